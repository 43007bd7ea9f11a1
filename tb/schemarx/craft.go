package schemarx

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"

	"arcalis/golden/schemagold"
	"arcalis/thriftidl/schema"
)

// enc builds Thrift binary-protocol bytes.
type enc []byte

func (e enc) u8(v ...byte) enc           { return append(e, v...) }
func (e enc) u16(v uint16) enc           { return binary.BigEndian.AppendUint16(e, v) }
func (e enc) u32(v uint32) enc           { return binary.BigEndian.AppendUint32(e, v) }
func (e enc) field(w byte, id int16) enc { return e.u8(w).u16(uint16(id)) }

// callHeader is a strict CALL header of method name.
func callHeader(name string, seqid uint32) enc {
	return enc{}.u32(0x8001_0001).u32(uint32(len(name))).u8([]byte(name)...).u32(seqid)
}

// crafter makes the messages of one method that the vectors and their
// mutants rarely reach: every limit of docs/idl.md with its code, and an
// area filled exactly to its capacity.
type crafter struct {
	t      *schema.Table
	m      schema.Method
	idx    int            // the method's index, the seed's second word
	fields []schema.Field // the args struct's
	rng    *rand.Rand
	out    []Message
	img    []byte // a MaxCap image for measuring with the reference
	big    *bool  // the MaxCap fill is made once per service: its messages are 4 MB
	omit   int    // generated args: percent of fields left out
}

func (c *crafter) add(what string, msg enc, capacity int) {
	src := fmt.Sprintf("crafted for %s (PCG seed %#x,%d): %s", c.m.Name, craftSeed, c.idx, what)
	c.out = append(c.out, Message{Source: src, Msg: msg, Cap: capacity})
}

// head is the method's header with a random seqid.
func (c *crafter) head() enc { return callHeader(c.m.Name, c.rng.Uint32()) }

// unknownID is a field id the args struct does not have.
func (c *crafter) unknownID() int16 { return unknownIn(c.fields, 100) }

// crafted lists the crafted messages of every method of t.
func crafted(t *schema.Table) []Message {
	var out []Message
	img := make([]byte, MaxCap)
	big := false
	for i, m := range t.Methods {
		c := &crafter{t: t, m: m, idx: i, fields: t.StructFields(m.Args), rng: rand.New(rand.NewPCG(craftSeed, uint64(i))), img: img, big: &big}
		c.basics()
		c.nesting()
		c.counts()
		c.types()
		c.known()
		c.fill()
		out = append(out, c.out...)
	}
	return out
}

// generatedPerMethod is how many args generated returns per method.
const generatedPerMethod = 12

// generated returns, for each method of t, generatedPerMethod CALLs: the
// first with every field of its args present, each container one to three
// elements; the others with each field, at every level, left out a time in
// four (required ones too: REQUIRED_MISSING), some repeated or first of
// another wire type, and unknown fields among them (see record). Those of method i come from
// rand.NewPCG(fullSeed, i*generatedPerMethod + variant).
func generated(t *schema.Table) [][]byte {
	var out [][]byte
	for i, m := range t.Methods {
		for v := range generatedPerMethod {
			c := &crafter{t: t, m: m, rng: rand.New(rand.NewPCG(fullSeed, uint64(i*generatedPerMethod+v)))}
			if v > 0 {
				c.omit = 25
			}
			out = append(out, c.head().u8(c.record(m.Args)...))
		}
	}
	return out
}

// record encodes struct st. With c.omit set, each field is left out
// c.omit percent of the time, written twice (the last wins) or first with
// another wire type (skipped) a tenth of the time, and unknown fields of
// any type come between them.
func (c *crafter) record(st int) enc {
	e := enc{}
	fields := c.t.StructFields(st)
	for _, f := range fields {
		if c.omit > 0 && c.rng.IntN(10) == 0 {
			w, v := c.junk(2)
			e = e.field(w, unknownIn(fields, int16(c.rng.IntN(200)))).u8(v...)
		}
		if c.omit > 0 && c.rng.IntN(100) < c.omit {
			continue
		}
		if c.omit > 0 && c.rng.IntN(10) == 0 {
			w, v := c.junk(1)
			if w != f.Wire {
				e = e.field(w, f.ID).u8(v...)
			}
		}
		e = e.field(f.Wire, f.ID).u8(c.full(f.Type)...)
		if c.omit > 0 && c.rng.IntN(10) == 0 {
			e = e.field(f.Wire, f.ID).u8(c.full(f.Type)...)
		}
	}
	return e.u8(schema.Stop)
}

// unknownIn is the first id from id up that fields do not have.
func unknownIn(fields []schema.Field, id int16) int16 {
	for {
		known := false
		for _, f := range fields {
			known = known || f.ID == id
		}
		if !known {
			return id
		}
		id++
	}
}

// junk is a random value of a random type Apache's Skip reads, nesting at
// most levels structs and containers: what the walk skips.
func (c *crafter) junk(levels int) (byte, enc) {
	types := []byte{schema.Bool, schema.Byte, schema.Double, schema.I16, schema.I32, schema.I64, schema.String,
		schema.Struct, schema.Map, schema.Set, schema.List}
	if levels == 0 {
		types = types[:7]
	}
	w := types[c.rng.IntN(len(types))]
	switch w {
	case schema.String:
		n := c.rng.IntN(24)
		e := enc{}.u32(uint32(n))
		for range n {
			e = append(e, byte(c.rng.Uint32()))
		}
		return w, e
	case schema.Struct:
		e := enc{}
		for range c.rng.IntN(3) {
			fw, v := c.junk(levels - 1)
			e = e.field(fw, int16(c.rng.Uint32())).u8(v...)
		}
		return w, e.u8(schema.Stop)
	case schema.Map:
		n := c.rng.IntN(3)
		kw, _ := c.junk(0)
		vw, _ := c.junk(levels - 1)
		e := enc{kw, vw}.u32(uint32(n))
		for range n {
			e = e.u8(c.junkOf(kw, 0)...).u8(c.junkOf(vw, levels-1)...)
		}
		return w, e
	case schema.Set, schema.List:
		n := c.rng.IntN(3)
		ew, _ := c.junk(levels - 1)
		e := enc{ew}.u32(uint32(n))
		for range n {
			e = e.u8(c.junkOf(ew, levels-1)...)
		}
		return w, e
	}
	e := make(enc, schemagold.FixedSize(w))
	for i := range e {
		e[i] = byte(c.rng.Uint32())
	}
	return w, e
}

// junkOf is a random value of wire type w, as junk makes them.
func (c *crafter) junkOf(w byte, levels int) enc {
	for {
		if got, v := c.junk(levels); got == w {
			return v
		}
	}
}

// full encodes a random value of type ti, structs with every field.
func (c *crafter) full(ti int) enc {
	ty := c.t.Types[ti]
	switch ty.Wire {
	case schema.String:
		e := enc{}.u32(uint32(c.rng.IntN(20)))
		for range int(binary.BigEndian.Uint32(e)) {
			e = append(e, byte(' '+c.rng.IntN(95)))
		}
		return e
	case schema.Struct:
		return c.record(ty.Struct)
	case schema.List, schema.Set:
		n := 1 + c.rng.IntN(3)
		e := enc{c.t.Types[ty.Elem].Wire}.u32(uint32(n))
		for range n {
			e = e.u8(c.full(ty.Elem)...)
		}
		return e
	case schema.Map:
		n := 1 + c.rng.IntN(3)
		e := enc{c.t.Types[ty.Key].Wire, c.t.Types[ty.Elem].Wire}.u32(uint32(n))
		for range n {
			e = e.u8(c.full(ty.Key)...).u8(c.full(ty.Elem)...)
		}
		return e
	case schema.Bool:
		return enc{byte(c.rng.IntN(3))} // 2 reads as false, as Apache's ReadBool
	case schema.UUID:
		return make(enc, 16)
	}
	e := make(enc, schemagold.FixedSize(ty.Wire))
	for i := range e {
		e[i] = byte(c.rng.Uint32())
	}
	return e
}

// basics: no fields, and no STOP.
func (c *crafter) basics() {
	c.add("no fields", c.head().u8(schema.Stop), 65536)
	c.add("no STOP", c.head(), 65536)
}

// nested encodes a value that nests the kinds given (STRUCT, LIST, SET,
// MAP), outermost first, around an I32: one level per kind.
func nested(kinds []byte) (byte, enc) {
	if len(kinds) == 0 {
		return schema.I32, enc{}.u32(7)
	}
	w, inner := nested(kinds[1:])
	switch kinds[0] {
	case schema.Struct:
		return schema.Struct, enc{}.field(w, 1).u8(inner...).u8(schema.Stop)
	case schema.Map:
		return schema.Map, enc{}.u8(schema.I32, w).u32(1).u32(3).u8(inner...)
	}
	return kinds[0], enc{}.u8(w).u32(1).u8(inner...)
}

// nesting: unknown fields 7 levels deep inside the args (level 8, the
// deepest the stack holds) and 8 (level 9: DEPTH_EXCEEDED), of one kind or
// mixed.
func (c *crafter) nesting() {
	kinds := []byte{schema.Struct, schema.List, schema.Set, schema.Map}
	id := c.unknownID()
	for _, k := range []int{7, 8} {
		for _, kind := range kinds {
			seq := make([]byte, k)
			for j := range seq {
				seq[j] = kind
			}
			w, v := nested(seq)
			c.add(fmt.Sprintf("an unknown %s nested %d deep", schema.WireName(kind), k), c.head().field(w, id).u8(v...).u8(schema.Stop), 65536)
		}
		for range 2 {
			seq := make([]byte, k)
			for j := range seq {
				seq[j] = kinds[c.rng.IntN(len(kinds))]
			}
			w, v := nested(seq)
			c.add(fmt.Sprintf("an unknown value nesting %v", seq), c.head().field(w, id).u8(v...).u8(schema.Stop), 65536)
		}
	}
}

// counts: unknown containers at and past the element limit, negative.
func (c *crafter) counts() {
	id := c.unknownID()
	list := func(n uint32) enc { return c.head().field(schema.List, id).u8(schema.Bool).u32(n) }
	all := list(schemagold.MaxElements)
	for range schemagold.MaxElements {
		all = all.u8(1)
	}
	c.add("an unknown list<bool> of 65535 elements", all.u8(schema.Stop), 65536)
	c.add("an unknown list<bool> of 65535 elements, 3 present", list(schemagold.MaxElements).u8(1, 0, 1), 65536)
	c.add("an unknown list<bool> of 65536 elements", list(schemagold.MaxElements+1).u8(1, 0, 1), 65536)
	c.add("an unknown list<bool> of -1 elements", list(0xFFFF_FFFF).u8(schema.Stop), 65536)
	c.add("an unknown set<i64> of -5 elements", c.head().field(schema.Set, id).u8(schema.I64).u32(0xFFFF_FFFB).u8(schema.Stop), 65536)
	c.add("an unknown map of 65536 entries", c.head().field(schema.Map, id).u8(schema.Byte, schema.Byte).u32(schemagold.MaxElements+1).u8(schema.Stop), 65536)
	c.add("an unknown string of length -1", c.head().field(schema.String, id).u32(0xFFFF_FFFF).u8(schema.Stop), 65536)
	c.add("an unknown string past the end", c.head().field(schema.String, id).u32(9).u8('a', 'b'), 65536)
}

// types: type ids Apache's Skip does not read, in field headers and in
// containers, empty (no error) and not.
func (c *crafter) types() {
	id := c.unknownID()
	for _, w := range []byte{1, 5, 7, 9, schema.UUID, 17, 0xFF} {
		c.add(fmt.Sprintf("a field of type %d", w), c.head().field(w, id).u8(make([]byte, 16)...).u8(schema.Stop), 65536)
	}
	c.add("an unknown empty list of type 17", c.head().field(schema.List, id).u8(17).u32(0).u8(schema.Stop), 65536)
	c.add("an unknown list of one STOP", c.head().field(schema.List, id).u8(schema.Stop).u32(1).u8(0, schema.Stop), 65536)
	c.add("an unknown list of one UUID", c.head().field(schema.List, id).u8(schema.UUID).u32(1).u8(make([]byte, 17)...), 65536)
	c.add("an unknown empty map of types 1, 16", c.head().field(schema.Map, id).u8(1, schema.UUID).u32(0).u8(schema.Stop), 65536)
	c.add("an unknown map of key type 1", c.head().field(schema.Map, id).u8(1, schema.I32).u32(1).u8(make([]byte, 9)...), 65536)
	c.add("an unknown map of value type 16", c.head().field(schema.Map, id).u8(schema.I32, schema.UUID).u32(1).u8(make([]byte, 21)...), 65536)
}

// zero encodes the zero value of type ti: fixed types 0, strings and
// containers empty, structs without fields.
func (c *crafter) zero(ti int) enc {
	ty := c.t.Types[ti]
	switch ty.Wire {
	case schema.String:
		return enc{}.u32(0)
	case schema.Struct:
		return enc{schema.Stop}
	case schema.List, schema.Set:
		return enc{c.t.Types[ty.Elem].Wire}.u32(0)
	case schema.Map:
		return enc{c.t.Types[ty.Key].Wire, c.t.Types[ty.Elem].Wire}.u32(0)
	}
	return make(enc, schemagold.FixedSize(ty.Wire))
}

// known: each args field empty, of another wire type (skipped), and, for a
// container, with wire element types the table's are not compared with,
// and with 65535 elements announced but absent (the area reserved and
// zeroed, then TRUNCATED or AREA_OVERFLOW).
func (c *crafter) known() {
	for _, f := range c.fields {
		c.add(fmt.Sprintf("field %d zero", f.ID), c.head().field(f.Wire, f.ID).u8(c.zero(f.Type)...).u8(schema.Stop), 65536)
		other, v := byte(schema.I32), enc{}.u32(5)
		if f.Wire == schema.I32 {
			other, v = schema.String, enc{}.u32(1).u8('x')
		}
		c.add(fmt.Sprintf("field %d as type %d", f.ID, other), c.head().field(other, f.ID).u8(v...).u8(schema.Stop), 65536)
		ty := c.t.Types[f.Type]
		switch ty.Wire {
		case schema.List, schema.Set:
			one := c.head().field(f.Wire, f.ID).u8(17).u32(1).u8(c.zero(ty.Elem)...).u8(schema.Stop)
			c.add(fmt.Sprintf("field %d of one element, wire type 17", f.ID), one, 65536)
		case schema.Map:
			one := c.head().field(f.Wire, f.ID).u8(17, 0).u32(1).u8(c.zero(ty.Key)...).u8(c.zero(ty.Elem)...).u8(schema.Stop)
			c.add(fmt.Sprintf("field %d of one entry, wire types 17, 0", f.ID), one, 65536)
		default:
			continue
		}
		head := c.head().field(f.Wire, f.ID).u8(c.zero(f.Type)[:len(c.zero(f.Type))-4]...).u32(schemagold.MaxElements)
		for _, capacity := range []int{65536, MaxCap} {
			c.add(fmt.Sprintf("field %d of 65535 elements, none present", f.ID), head, capacity)
		}
	}
}

// fill: args whose area ends exactly at the capacity, and one byte more
// (AREA_OVERFLOW), by repeating a field that holds a string: each
// occurrence is read into newly reserved space.
func (c *crafter) fill() {
	var f schema.Field
	var occ func(n int) enc // one occurrence holding a string of n random bytes
	for _, fl := range c.fields {
		ty := c.t.Types[fl.Type]
		str := func(n int) enc {
			e := enc{}.u32(uint32(n))
			for range n {
				e = append(e, byte('a'+c.rng.IntN(26)))
			}
			return e
		}
		switch {
		case ty.Wire == schema.String:
			occ = func(n int) enc { return enc{}.field(fl.Wire, fl.ID).u8(str(n)...) }
		case (ty.Wire == schema.List || ty.Wire == schema.Set) && c.t.Types[ty.Elem].Wire == schema.String:
			occ = func(n int) enc { return enc{}.field(fl.Wire, fl.ID).u8(schema.String).u32(1).u8(str(n)...) }
		case ty.Wire == schema.Map && c.t.Types[ty.Key].Wire == schema.String:
			occ = func(n int) enc {
				return enc{}.field(fl.Wire, fl.ID).u8(schema.String, c.t.Types[ty.Elem].Wire).u32(1).u8(str(n)...).u8(c.zero(ty.Elem)...)
			}
		default:
			continue
		}
		f = fl
		break
	}
	if occ == nil {
		return
	}
	areaEnd := func(msg enc, capacity int) (int, schemagold.Code) {
		r := schemagold.Deserialize(c.t, msg, c.img[:capacity])
		return int(r.AreaEnd), r.Code
	}
	const chunk = 65536
	// The required fields first, so that the args can end OK.
	req := enc{}
	for _, fl := range c.fields {
		if fl.Req == 1 && fl.ID != f.ID {
			req = req.field(fl.Wire, fl.ID).u8(c.full(fl.Type)...)
		}
	}
	head := func() enc { return c.head().u8(req...) }
	base, _ := areaEnd(head().u8(schema.Stop), MaxCap)
	one, _ := areaEnd(head().u8(occ(0)...).u8(schema.Stop), MaxCap)
	over := one - base // what an occurrence takes besides its string
	caps := []int{1024, 65536}
	if !*c.big {
		caps, *c.big = append(caps, MaxCap), true
	}
	for _, capacity := range caps {
		body := enc{}
		left := capacity - base
		for left-over > chunk {
			body = body.u8(occ(chunk)...)
			left -= over + chunk
		}
		if left < over {
			continue
		}
		exact := head().u8(body...).u8(occ(left - over)...).u8(schema.Stop)
		if end, code := areaEnd(exact, capacity); end != capacity || code != schemagold.CodeOK {
			panic(fmt.Sprintf("schemarx: %s: filling %d bytes with field %d ends at %d, %v", c.m.Name, capacity, f.ID, end, code))
		}
		c.add(fmt.Sprintf("field %d repeated to fill %d bytes exactly", f.ID, capacity), exact, capacity)
		c.add(fmt.Sprintf("field %d repeated to fill %d bytes and one more", f.ID, capacity),
			head().u8(body...).u8(occ(left-over+1)...).u8(schema.Stop), capacity)
	}
}
