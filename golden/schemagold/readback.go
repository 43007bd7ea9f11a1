package schemagold

import (
	"encoding/binary"
	"fmt"
	"math"

	"arcalis/thriftidl/schema"
)

// Struct is a struct read back from an image: its present fields in
// ascending id order.
type Struct struct {
	Name   string // the table's struct name
	Fields []FieldValue
}

// FieldValue is one present field.
type FieldValue struct {
	ID    int16
	Name  string
	Value any
}

// MapEntry is one entry of a map, in wire order. An image keeps every entry
// the message held, a repeated key included: a reader building a map lets
// the later entry win, as Apache's generated code does.
type MapEntry struct {
	Key, Value any
}

// Get returns the value of the field named name and whether it is present.
func (s *Struct) Get(name string) (any, bool) {
	for _, f := range s.Fields {
		if f.Name == name {
			return f.Value, true
		}
	}
	return nil, false
}

// Message is what ReadBack finds in an image.
type Message struct {
	Result Result  // the header line
	Method string  // the method's name
	Args   *Struct // the method's arguments
}

// ReadBack decodes the image img of a message Deserialize accepted with
// table t: the header line, then the args record and everything it points
// to. The values are bool, int8, int16, int32, int64, float64 and string (a
// STRING or BINARY) for the wire types of the same names, []any for a list
// or set, []MapEntry for a map and *Struct for a struct.
//
// An absent field is left out, also one with a default value in the IDL:
// the tables hold no defaults, and the reader applies them.
//
// ReadBack checks what it reads: a header whose code is not OK, a record,
// array or string outside [AreaStart, AreaEnd), a presence bit of no field,
// or more elements in all than the area could hold is an error, never a
// panic.
func ReadBack(t *schema.Table, img []byte) (*Message, error) {
	r, err := ParseHeader(img)
	if err != nil {
		return nil, err
	}
	if r.Code != CodeOK {
		return nil, fmt.Errorf("schemagold: result %v, not OK: no arguments to read back", r.Code)
	}
	if r.Method == 0 || int(r.Method) > len(t.Methods) {
		return nil, fmt.Errorf("schemagold: method %d is not one of the table's %d", r.Method, len(t.Methods))
	}
	if r.AreaEnd < AreaStart || int(r.AreaEnd) > len(img) || r.AreaEnd%SlotSize != 0 {
		return nil, fmt.Errorf("schemagold: area end %d outside [%d, %d] or not 8-aligned", r.AreaEnd, AreaStart, len(img))
	}
	m := t.Methods[r.Method-1]
	rd := &reader{t: t, img: img[:r.AreaEnd], budget: int(r.AreaEnd) / SlotSize}
	if r.ArgsOffset != AreaStart || int(r.ArgsSize) != RecordSize(t, m.Args) {
		return nil, fmt.Errorf("schemagold: args record at %d, %d bytes; want %d, %d", r.ArgsOffset, r.ArgsSize, AreaStart, RecordSize(t, m.Args))
	}
	args, err := rd.record(m.Args, AreaStart, 1)
	if err != nil {
		return nil, err
	}
	return &Message{Result: r, Method: m.Name, Args: args}, nil
}

type reader struct {
	t      *schema.Table
	img    []byte // [0, AreaEnd)
	budget int    // elements left to read: an area of k slots cannot hold more
}

// span checks that [off, off+size) lies in the area.
func (rd *reader) span(off, size int, what string) error {
	if off < AreaStart || off%SlotSize != 0 || size < 0 || size > len(rd.img)-off {
		return fmt.Errorf("schemagold: %s at %d, %d bytes, outside the area [%d, %d) or not 8-aligned", what, off, size, AreaStart, len(rd.img))
	}
	return nil
}

// record reads the record of struct st at off, at nesting level depth.
func (rd *reader) record(st, off, depth int) (*Struct, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("schemagold: struct %s at level %d, deeper than %d", rd.t.Structs[st].Name, depth, MaxDepth)
	}
	s := rd.t.Structs[st]
	if err := rd.span(off, RecordSize(rd.t, st), "record of "+s.Name); err != nil {
		return nil, err
	}
	fields := rd.t.StructFields(st)
	words := PresenceWords(s.Count)
	for b := s.Count; b < words*64; b++ {
		if rd.img[off+b/8]&(1<<(b%8)) != 0 {
			return nil, fmt.Errorf("schemagold: record of %s at %d: presence bit %d names no field (%d fields)", s.Name, off, b, s.Count)
		}
	}
	out := &Struct{Name: s.Name}
	for i, f := range fields {
		if rd.img[off+i/8]&(1<<(i%8)) == 0 {
			continue
		}
		v, err := rd.value(f.Type, off+SlotOffset(rd.t, st, f), depth)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", s.Name, f.Name, err)
		}
		out.Fields = append(out.Fields, FieldValue{ID: f.ID, Name: f.Name, Value: v})
	}
	return out, nil
}

// value reads a value of type ti whose slot, descriptor or (a struct in an
// array) record is at at, in a struct or container at level depth.
func (rd *reader) value(ti, at, depth int) (any, error) {
	le := binary.LittleEndian
	slot := rd.img[at : at+SlotSize]
	ty := rd.t.Types[ti]
	switch ty.Wire {
	case schema.Bool:
		return slot[0] == 1, nil
	case schema.Byte:
		return int8(slot[0]), nil
	case schema.I16:
		return int16(le.Uint16(slot)), nil
	case schema.I32:
		return int32(le.Uint32(slot)), nil
	case schema.I64:
		return int64(le.Uint64(slot)), nil
	case schema.Double:
		return math.Float64frombits(le.Uint64(slot)), nil
	}
	off, n := int(le.Uint32(slot)), int(le.Uint32(slot[4:]))
	switch ty.Wire {
	case schema.String:
		if err := rd.span(off, n, "string"); err != nil {
			return nil, err
		}
		return string(rd.img[off : off+n]), nil
	case schema.Struct:
		if n != RecordSize(rd.t, ty.Struct) {
			return nil, fmt.Errorf("schemagold: record of %s at %d is %d bytes, want %d", rd.t.Structs[ty.Struct].Name, off, n, RecordSize(rd.t, ty.Struct))
		}
		return rd.record(ty.Struct, off, depth+1)
	case schema.List, schema.Set, schema.Map:
		if depth+1 > MaxDepth {
			return nil, fmt.Errorf("schemagold: container at level %d, deeper than %d", depth+1, MaxDepth)
		}
		if n > MaxElements || n > rd.budget {
			return nil, fmt.Errorf("schemagold: container at %d has %d elements, more than the image can hold", off, n)
		}
		rd.budget -= n
		esz, ksz := ElemSize(rd.t, ty.Elem), 0
		if ty.Wire == schema.Map {
			ksz = ElemSize(rd.t, ty.Key)
		}
		if n > 0 {
			if err := rd.span(off, n*(ksz+esz), "array"); err != nil {
				return nil, err
			}
		}
		if ty.Wire == schema.Map {
			out := make([]MapEntry, n)
			for k := range n {
				key, err := rd.elem(ty.Key, off+k*(ksz+esz), depth+1)
				if err != nil {
					return nil, err
				}
				val, err := rd.elem(ty.Elem, off+k*(ksz+esz)+ksz, depth+1)
				if err != nil {
					return nil, err
				}
				out[k] = MapEntry{key, val}
			}
			return out, nil
		}
		out := make([]any, n)
		for k := range n {
			v, err := rd.elem(ty.Elem, off+k*esz, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("schemagold: type %d (%s) has no slot in the image", ty.Wire, schema.WireName(ty.Wire))
}

// elem reads an element of type ti at at in an array at level depth: a
// struct's record lies in the array itself.
func (rd *reader) elem(ti, at, depth int) (any, error) {
	if ty := rd.t.Types[ti]; ty.Wire == schema.Struct {
		return rd.record(ty.Struct, at, depth+1)
	}
	return rd.value(ti, at, depth)
}
