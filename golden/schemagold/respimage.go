package schemagold

import (
	"encoding/binary"
	"fmt"
	"math"

	"arcalis/thriftidl/schema"
)

// RespHeader is the header line [0, 64) of an App.Resp image (docs/abi.md
// section 13): where the application put the
// method's result record and which call it answers. Bytes not listed are 0.
type RespHeader struct {
	ResultOffset uint32 // offset 0: the result record's offset, always AreaStart
	ResultSize   uint32 // offset 4: the result record's size, RecordSize of the method's Result struct
	AreaEnd      uint32 // offset 8: the first area byte not used (8-aligned, <= C)
	SeqID        int32  // offset 24: the request's seqid
	Method       uint8  // offset 31: the method's index in the tables plus 1
}

// Offsets of the App.Resp header's fields.
const (
	respOffResult = 0
	respOffSize   = 4
	respOffEnd    = 8
	respOffSeqID  = 24
	respOffMethod = 31
)

// Put writes h as the 64-byte little-endian header line into dst[:64], the
// bytes not listed 0. It panics if len(dst) < 64.
func (h RespHeader) Put(dst []byte) {
	_ = dst[HeaderSize-1]
	clear(dst[:HeaderSize])
	le := binary.LittleEndian
	le.PutUint32(dst[respOffResult:], h.ResultOffset)
	le.PutUint32(dst[respOffSize:], h.ResultSize)
	le.PutUint32(dst[respOffEnd:], h.AreaEnd)
	le.PutUint32(dst[respOffSeqID:], uint32(h.SeqID))
	dst[respOffMethod] = h.Method
}

// ParseRespHeader reads the fields of an App.Resp header line; it does not
// check them (Serialize does). It fails if line is shorter than 64 bytes.
func ParseRespHeader(line []byte) (RespHeader, error) {
	if len(line) < HeaderSize {
		return RespHeader{}, fmt.Errorf("schemagold: header line is %d bytes, want %d", len(line), HeaderSize)
	}
	le := binary.LittleEndian
	return RespHeader{
		ResultOffset: le.Uint32(line[respOffResult:]),
		ResultSize:   le.Uint32(line[respOffSize:]),
		AreaEnd:      le.Uint32(line[respOffEnd:]),
		SeqID:        int32(le.Uint32(line[respOffSeqID:])),
		Method:       line[respOffMethod],
	}, nil
}

// respReserved reports whether byte i of the App.Resp header is always 0.
func respReserved(i int) bool {
	return (i >= 12 && i < respOffSeqID) || (i >= 28 && i < respOffMethod) || i >= 32
}

// BuildResp writes the App.Resp image with which an application answers a
// call of method (an index in t.Methods) with seqid: result is the method's
// result struct, holding at most one field (success, or one declared
// exception; none: a void method's success, or a nil result, the result
// struct with no field that Apache's Go server sends when a handler returns
// a nil slice, map or struct). It is the inverse of ReadBack: values are
// bool, int8, int16, int32, int64, float64, string (or []byte) for the wire
// types of those names, []any for a list or set, []MapEntry for a map and
// *Struct for a struct; a Struct's Name and a FieldValue's Name
// may be "" (fields are matched by ID) and its fields may come in any order.
//
// The layout is the one Deserialize gives a message: the result record at
// AreaStart, then each value's record, array or string reserved in wire
// order (ascending field ids), 8-aligned, zeroed. The image's capacity is
// the area end rounded up to 64 bytes, at least MinCapacity; a result
// needing more than MaxCapacity, more than MaxDepth levels or more than
// MaxElements elements in a container is an error.
func BuildResp(t *schema.Table, method int, seqid int32, result *Struct) ([]byte, error) {
	if t == nil || method < 0 || method >= len(t.Methods) || method >= MaxMethods {
		return nil, fmt.Errorf("schemagold: no method %d in the tables", method)
	}
	m := t.Methods[method]
	if m.Oneway {
		return nil, fmt.Errorf("schemagold: %s is oneway: it has no reply", m.Name)
	}
	if result != nil && len(result.Fields) > 1 {
		return nil, fmt.Errorf("schemagold: %s's result holds %d fields, at most one may be present", m.Name, len(result.Fields))
	}
	b := &builder{t: t, img: make([]byte, MinCapacity)}
	size := RecordSize(t, m.Result)
	rec := b.reserve(size)
	if err := b.record(m.Result, rec, result, 1); err != nil {
		return nil, err
	}
	capacity := max(MinCapacity, (b.ptr+63)/64*64)
	if capacity > MaxCapacity {
		return nil, fmt.Errorf("schemagold: the result needs %d bytes, more than %d", b.ptr, MaxCapacity)
	}
	img := make([]byte, capacity)
	copy(img, b.img[:b.ptr])
	RespHeader{ResultOffset: AreaStart, ResultSize: uint32(size), AreaEnd: uint32(b.ptr),
		SeqID: seqid, Method: uint8(method + 1)}.Put(img)
	return img, nil
}

// builder lays out values as Deserialize does: one pointer from AreaStart.
type builder struct {
	t   *schema.Table
	img []byte // grows; [0, ptr) is in use
	ptr int
}

// reserve reserves n bytes, rounded up to 8, zeroed, at the pointer.
func (b *builder) reserve(n int) int {
	if b.ptr < AreaStart {
		b.ptr = AreaStart
	}
	at := b.ptr
	b.ptr += (n + 7) &^ 7
	if b.ptr > len(b.img) {
		b.img = append(b.img, make([]byte, max(b.ptr, 2*len(b.img))-len(b.img))...)
	}
	clear(b.img[at:b.ptr])
	return at
}

// record writes struct st's value v into its record at rec, at level depth.
func (b *builder) record(st, rec int, v *Struct, depth int) error {
	s := b.t.Structs[st]
	if depth > MaxDepth {
		return fmt.Errorf("schemagold: struct %s at level %d, deeper than %d", s.Name, depth, MaxDepth)
	}
	if v == nil {
		return nil // a record with no field present
	}
	if v.Name != "" && v.Name != s.Name {
		return fmt.Errorf("schemagold: a %s value where the tables have %s", v.Name, s.Name)
	}
	fields := b.t.StructFields(st)
	// Wire order is ascending id, whatever the order of v.Fields.
	vals := make([]*FieldValue, len(fields))
	for k := range v.Fields {
		fv := &v.Fields[k]
		i := find(fields, fv.ID)
		if i < 0 || (fv.Name != "" && fv.Name != fields[i].Name) {
			return fmt.Errorf("schemagold: %s has no field %d %q", s.Name, fv.ID, fv.Name)
		}
		if vals[i] != nil {
			return fmt.Errorf("schemagold: %s.%s given twice", s.Name, fields[i].Name)
		}
		vals[i] = fv
	}
	for i, f := range fields {
		if vals[i] == nil {
			continue
		}
		if err := b.value(f.Type, rec+SlotOffset(b.t, st, f), vals[i].Value, depth); err != nil {
			return fmt.Errorf("%s.%s: %w", s.Name, f.Name, err)
		}
		b.img[rec+i/8] |= 1 << (i % 8)
	}
	return nil
}

// value writes v, of type ti, into the slot at at, in a struct or container
// at level depth.
func (b *builder) value(ti, at int, v any, depth int) error {
	ty := b.t.Types[ti]
	le := binary.LittleEndian
	bad := func() error {
		return fmt.Errorf("schemagold: a %T where the tables have %s", v, schema.WireName(ty.Wire))
	}
	var x uint64
	switch ty.Wire {
	case schema.Bool:
		bv, ok := v.(bool)
		if !ok {
			return bad()
		}
		if bv {
			x = 1
		}
	case schema.Byte:
		n, ok := v.(int8)
		if !ok {
			return bad()
		}
		x = uint64(uint8(n))
	case schema.I16:
		n, ok := v.(int16)
		if !ok {
			return bad()
		}
		x = uint64(uint16(n))
	case schema.I32:
		n, ok := v.(int32)
		if !ok {
			return bad()
		}
		x = uint64(uint32(n))
	case schema.I64:
		n, ok := v.(int64)
		if !ok {
			return bad()
		}
		x = uint64(n)
	case schema.Double:
		f, ok := v.(float64)
		if !ok {
			return bad()
		}
		x = math.Float64bits(f)
	case schema.String:
		var s []byte
		switch sv := v.(type) {
		case string:
			s = []byte(sv)
		case []byte:
			s = sv
		default:
			return bad()
		}
		off := b.reserve(len(s))
		copy(b.img[off:], s)
		b.descriptor(at, off, len(s))
		return nil
	case schema.Struct:
		sv, ok := v.(*Struct)
		if !ok || sv == nil {
			return bad()
		}
		if depth+1 > MaxDepth {
			return fmt.Errorf("schemagold: struct at level %d, deeper than %d", depth+1, MaxDepth)
		}
		size := RecordSize(b.t, ty.Struct)
		off := b.reserve(size)
		if err := b.record(ty.Struct, off, sv, depth+1); err != nil {
			return err
		}
		b.descriptor(at, off, size)
		return nil
	case schema.List, schema.Set, schema.Map:
		if depth+1 > MaxDepth {
			return fmt.Errorf("schemagold: container at level %d, deeper than %d", depth+1, MaxDepth)
		}
		return b.container(ty, at, v, depth+1)
	default:
		return fmt.Errorf("schemagold: type %d (%s) has no slot in the image", ty.Wire, schema.WireName(ty.Wire))
	}
	le.PutUint64(b.img[at:], x)
	return nil
}

// container writes a list, set or map value at level depth: its array, then
// its elements in order (a map's key before its value).
func (b *builder) container(ty schema.Type, at int, v any, depth int) error {
	esz, ksz := ElemSize(b.t, ty.Elem), 0
	var n int
	var list []any
	var entries []MapEntry
	if ty.Wire == schema.Map {
		e, ok := v.([]MapEntry)
		if !ok {
			return fmt.Errorf("schemagold: a %T where the tables have MAP", v)
		}
		entries, n, ksz = e, len(e), ElemSize(b.t, ty.Key)
	} else {
		l, ok := v.([]any)
		if !ok {
			return fmt.Errorf("schemagold: a %T where the tables have %s", v, schema.WireName(ty.Wire))
		}
		list, n = l, len(l)
	}
	if n > MaxElements {
		return fmt.Errorf("schemagold: %d elements, more than %d", n, MaxElements)
	}
	if n*(ksz+esz) > MaxCapacity {
		return fmt.Errorf("schemagold: an array of %d bytes, more than an image holds", n*(ksz+esz))
	}
	base := b.reserve(n * (ksz + esz))
	for k := range n {
		var err error
		if ty.Wire == schema.Map {
			if err = b.elem(ty.Key, base+k*(ksz+esz), entries[k].Key, depth); err == nil {
				err = b.elem(ty.Elem, base+k*(ksz+esz)+ksz, entries[k].Value, depth)
			}
		} else {
			err = b.elem(ty.Elem, base+k*esz, list[k], depth)
		}
		if err != nil {
			return fmt.Errorf("[%d]: %w", k, err)
		}
	}
	b.descriptor(at, base, n)
	return nil
}

// elem writes an element of type ti at at, in a container at level depth: a
// struct's record lies in the array itself.
func (b *builder) elem(ti, at int, v any, depth int) error {
	if ty := b.t.Types[ti]; ty.Wire == schema.Struct {
		sv, ok := v.(*Struct)
		if !ok || sv == nil {
			return fmt.Errorf("schemagold: a %T where the tables have STRUCT", v)
		}
		return b.record(ty.Struct, at, sv, depth+1)
	}
	return b.value(ti, at, v, depth)
}

func (b *builder) descriptor(at, off, length int) {
	binary.LittleEndian.PutUint32(b.img[at:], uint32(off))
	binary.LittleEndian.PutUint32(b.img[at+4:], uint32(length))
}
