package schematx

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"arcalis/golden/schemagold"
	"arcalis/thriftidl/schema"
)

// Image is one App.Resp image with the call it answers.
type Image struct {
	N      int    // its number in the case: SCHEMATX_IMG replays it
	Source string // how it was made
	Method int    // index in the table's methods
	SeqID  int32
	Img    []byte
}

// Images generates a case's images, each from (seed, its number) alone:
// valid ones from schemagold.BuildResp for every method that has a reply
// (success, each declared exception, none), then as many corrupted ones.
func Images(t *schema.Table, seed uint64, valid, corrupt int) []Image {
	var methods []int
	for i, m := range t.Methods {
		if !m.Oneway {
			methods = append(methods, i)
		}
	}
	if len(methods) == 0 {
		return nil
	}
	imgs := make([]Image, 0, valid+corrupt)
	for n := range valid + corrupt {
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		g := &gen{t: t, rng: rng}
		mi := methods[n%len(methods)]
		seq := int32(rng.Uint32())
		im, what := g.build(mi, seq)
		src := "BuildResp " + t.Methods[mi].Name + " " + what
		if n >= valid {
			src += "; corrupted: " + g.corrupt(im)
		}
		imgs = append(imgs, Image{N: n, Source: src, Method: mi, SeqID: seq, Img: im})
	}
	return imgs
}

// gen makes random values of a table's types.
type gen struct {
	t        *schema.Table
	rng      *rand.Rand
	str, cnt int // longest string, most elements of a container
	left     int // values left to make for this image: nested containers stay small
}

// build returns a valid image answering method mi with seq: its result holds one
// field picked at random (success or an exception) or none (a void method's
// success, or a nil result); it says which.
func (g *gen) build(mi int, seq int32) ([]byte, string) {
	t := g.t
	fields := t.StructFields(t.Methods[mi].Result)
	choices := len(fields) + 1
	for try := 0; ; try++ {
		// Sizes: small, medium or large strings and containers, smaller
		// on each retry of a result too big for an image.
		scale := []struct{ str, cnt int }{{8, 3}, {40, 8}, {300, 24}}[g.rng.IntN(3)]
		g.str, g.cnt = max(1, scale.str>>try), max(1, scale.cnt>>try)
		g.left = 2000 >> try
		k := g.rng.IntN(choices)
		res := &schemagold.Struct{}
		what := "none"
		if k < len(fields) && t.Types[fields[k].Type].Wire == schema.UUID {
			return g.uuidResult(mi, seq, k), fields[k].Name + " (a UUID, by hand)"
		}
		if k < len(fields) {
			res.Fields = []schemagold.FieldValue{{ID: fields[k].ID, Value: g.value(fields[k].Type, 1)}}
			what = fields[k].Name
		}
		img, err := schemagold.BuildResp(t, mi, seq, res)
		if err == nil {
			return img, fmt.Sprintf("%s (strings <= %d, containers <= %d)", what, g.str, g.cnt)
		}
		if try == 8 {
			panic(fmt.Sprintf("schematx: no image for %s: %v", t.Methods[mi].Name, err))
		}
	}
}

// value is a random value of type ti at nesting level depth.
func (g *gen) value(ti, depth int) any {
	ty := g.t.Types[ti]
	r := g.rng
	g.left--
	switch ty.Wire {
	case schema.Bool:
		return r.IntN(2) == 1
	case schema.Byte:
		return int8(r.Uint32())
	case schema.I16:
		return int16(r.Uint32())
	case schema.I32:
		return int32(r.Uint32())
	case schema.I64:
		return int64(r.Uint64())
	case schema.Double:
		return math.Float64frombits(r.Uint64())
	case schema.String:
		b := make([]byte, r.IntN(g.str+1))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return string(b)
	case schema.Struct:
		return g.record(ty.Struct, depth+1)
	case schema.List, schema.Set:
		l := make([]any, g.count(ty, depth+1))
		for i := range l {
			l[i] = g.value(ty.Elem, depth+1)
		}
		return l
	case schema.Map:
		m := make([]schemagold.MapEntry, g.count(ty, depth+1))
		for i := range m {
			m[i] = schemagold.MapEntry{Key: g.value(ty.Key, depth+1), Value: g.value(ty.Elem, depth+1)}
		}
		return m
	}
	panic("schematx: no value of type " + schema.WireName(ty.Wire))
}

// record is a struct value with each field present at random (a union's:
// exactly one).
func (g *gen) record(st, depth int) *schemagold.Struct {
	fields := g.t.StructFields(st)
	s := &schemagold.Struct{}
	// What BuildResp can write at this level: no UUID, no struct or
	// container past MaxDepth (left absent: Serialize's zero value).
	var can []int
	for i, f := range fields {
		if w := g.t.Types[f.Type].Wire; w != schema.UUID && (!nested(w) || depth+1 <= schemagold.MaxDepth) {
			can = append(can, i)
		}
	}
	one := -1
	if g.t.Structs[st].Kind == schema.KindUnion && len(can) > 0 {
		one = can[g.rng.IntN(len(can))]
	}
	for i, f := range fields {
		if !slices.Contains(can, i) {
			continue
		}
		if (one < 0 && g.rng.IntN(10) < 7) || i == one {
			s.Fields = append(s.Fields, schemagold.FieldValue{ID: f.ID, Value: g.value(f.Type, depth)})
		}
	}
	return s
}

// nested reports whether values of wire type w nest a level.
func nested(w uint8) bool {
	return w == schema.Struct || w == schema.List || w == schema.Set || w == schema.Map
}

// count is a random element count for a container of type ty at level
// level: 0 when an element could not be written (a UUID, or a struct or
// container past MaxDepth).
func (g *gen) count(ty schema.Type, level int) int {
	for _, ti := range []int{ty.Elem, ty.Key} {
		if ti < 0 {
			continue
		}
		if w := g.t.Types[ti].Wire; w == schema.UUID || (nested(w) && level+1 > schemagold.MaxDepth) {
			return 0
		}
	}
	if g.left <= 0 {
		return 0
	}
	return g.rng.IntN(g.cnt + 1)
}

// uuidResult is an image BuildResp cannot write: method mi's result with
// field k, a UUID, present (Serialize: BAD_TYPE at its slot).
func (g *gen) uuidResult(mi int, seq int32, k int) []byte {
	st := g.t.Methods[mi].Result
	size := schemagold.RecordSize(g.t, st)
	img := make([]byte, max(schemagold.MinCapacity, (schemagold.AreaStart+size+63)/64*64))
	schemagold.RespHeader{ResultOffset: schemagold.AreaStart, ResultSize: uint32(size), AreaEnd: uint32(schemagold.AreaStart + size),
		SeqID: seq, Method: uint8(mi + 1)}.Put(img)
	img[schemagold.AreaStart+k/8] |= 1 << (k % 8)
	return img
}

// corrupt alters img once or twice where Serialize reads it: the result's
// presence word, a word's offset or length half, a byte, the area end.
// It says what it did.
func (g *gen) corrupt(img []byte) string {
	le := binary.LittleEndian
	r := g.rng
	end := int(le.Uint32(img[8:]))
	size := int(le.Uint32(img[4:]))
	var did []string
	for range 1 + r.IntN(2) {
		w := schemagold.AreaStart + 8*r.IntN((end-schemagold.AreaStart)/8)
		switch r.IntN(6) {
		case 0: // the result's presence word
			v := []byte{0, 3, 1 << r.IntN(8), byte(r.Uint32())}[r.IntN(4)]
			img[schemagold.AreaStart+r.IntN(8)] = v
			did = append(did, fmt.Sprintf("presence byte %#x", v))
		case 1: // a presence bit of any record, or a bit of a value
			img[w] ^= 1 << r.IntN(8)
			did = append(did, fmt.Sprintf("bit flipped at %#x", w))
		case 2: // an offset half
			old := le.Uint32(img[w:])
			v := []uint32{0, 8, 56, 64, uint32(w), uint32(w - 8), uint32(w + 8), uint32(end), uint32(end - 8), uint32(end + 8),
				0xFFFFFFF8, old + 1, old + 8, old - 8, old + 4, r.Uint32()}[r.IntN(16)]
			le.PutUint32(img[w:], v)
			did = append(did, fmt.Sprintf("offset at %#x: %#x -> %#x", w, old, v))
		case 3: // a length half
			old := le.Uint32(img[w+4:])
			v := []uint32{0, 1, old + 1, old - 1, old + 8, 65535, 65536, 0xFFFFFFFF, uint32(r.IntN(64)), r.Uint32()}[r.IntN(10)]
			le.PutUint32(img[w+4:], v)
			did = append(did, fmt.Sprintf("length at %#x: %#x -> %#x", w+4, old, v))
		case 4: // any byte
			b := w + r.IntN(8)
			img[b] = byte(r.Uint32())
			did = append(did, fmt.Sprintf("byte %#x = %#x", b, img[b]))
		case 5: // the area end, within the header's rules (8-aligned, past the result record, <= capacity)
			lo, hi := schemagold.AreaStart+size, len(img)
			v := lo + 8*r.IntN((hi-lo)/8+1)
			le.PutUint32(img[8:], uint32(v))
			did = append(did, fmt.Sprintf("area end %#x -> %#x", end, v))
			end = v
		}
	}
	return fmt.Sprint(did)
}
