package schemagold

import (
	"encoding/binary"
	"fmt"

	"arcalis/golden"
	"arcalis/thriftidl/schema"
)

// Layout and limits of the image (docs/abi.md section 12).
const (
	HeaderSize  = 64                 // the header line, bytes [0, 64), written last
	AreaStart   = 64                 // the args record starts here; the area is [64, C)
	MinCapacity = 128                // smallest capacity C: the header line and one line of area
	MaxCapacity = golden.MaxCapacity // largest C (a 16-bit line count, as the Memcached engine's)
	MaxMessage  = golden.MaxMessage  // longest message (Thrift's MaxFrameSize)
	MaxDepth    = 8                  // nesting levels of the hardware stack; the args struct is level 1
	MaxElements = 65535              // most elements of one list or set, entries of one map
	SlotSize    = 8                  // a fixed slot, a descriptor, a presence word
	MaxMethods  = 255                // methods the header's method byte can name; later ones are UNKNOWN_METHOD
)

// Result is the header line of the image: what the recvFunction reports for
// one message.
type Result struct {
	ArgsOffset uint32 // where the args record starts (AreaStart) once it is reserved, else 0
	ArgsSize   uint32 // the args record's size in bytes once it is reserved, else 0
	AreaEnd    uint32 // the first area byte not reserved or written (8-aligned)
	Struct     uint16 // REQUIRED_MISSING: the index of the struct that lacks the field; else 0
	FieldID    int16  // REQUIRED_MISSING: the id of the lowest missing required field; else 0
	Depth      uint8  // nesting level where parsing stopped (0 on OK and before the args struct)
	SeqID      int32
	Code       Code
	MsgType    uint8  // as golden: the version word's low byte once the version check passed, else 0
	Method     uint8  // index in schema.Table.Methods plus 1; 0 unknown
	Offset     uint32 // bytes consumed for OK, else the offset in the message of the item that failed
}

// PutHeader writes r as the 64-byte little-endian header line into dst[:64];
// bytes not listed in docs/abi.md section 12 are written 0. It panics if len(dst) < 64.
func (r Result) PutHeader(dst []byte) {
	_ = dst[HeaderSize-1]
	clear(dst[:HeaderSize])
	le := binary.LittleEndian
	le.PutUint32(dst[0:], r.ArgsOffset)
	le.PutUint32(dst[4:], r.ArgsSize)
	le.PutUint32(dst[8:], r.AreaEnd)
	le.PutUint16(dst[12:], r.Struct)
	le.PutUint16(dst[14:], uint16(r.FieldID))
	dst[16] = r.Depth
	le.PutUint32(dst[24:], uint32(r.SeqID))
	dst[28] = byte(r.Code)
	dst[29] = r.MsgType
	dst[31] = r.Method
	le.PutUint32(dst[32:], r.Offset)
}

// reserved lists the header bytes that are always 0.
func reservedByte(i int) bool { return (i >= 17 && i < 24) || i == 30 || i >= 36 }

// ParseHeader reads a header line. It fails if line is shorter than 64 bytes
// or a reserved byte is not 0.
func ParseHeader(line []byte) (Result, error) {
	if len(line) < HeaderSize {
		return Result{}, fmt.Errorf("schemagold: header line is %d bytes, want %d", len(line), HeaderSize)
	}
	for i := range HeaderSize {
		if reservedByte(i) && line[i] != 0 {
			return Result{}, fmt.Errorf("schemagold: header byte %d is %#02x, want 0 (reserved)", i, line[i])
		}
	}
	le := binary.LittleEndian
	return Result{
		ArgsOffset: le.Uint32(line[0:]),
		ArgsSize:   le.Uint32(line[4:]),
		AreaEnd:    le.Uint32(line[8:]),
		Struct:     le.Uint16(line[12:]),
		FieldID:    int16(le.Uint16(line[14:])),
		Depth:      line[16],
		SeqID:      int32(le.Uint32(line[24:])),
		Code:       Code(line[28]),
		MsgType:    line[29],
		Method:     line[31],
		Offset:     le.Uint32(line[32:]),
	}, nil
}

// CheckCapacity reports whether n bytes is a capacity Deserialize accepts: a
// multiple of 64 in [MinCapacity, MaxCapacity].
func CheckCapacity(n int) error {
	switch {
	case n%64 != 0:
		return fmt.Errorf("schemagold: capacity %d is not a multiple of 64", n)
	case n < MinCapacity:
		return fmt.Errorf("schemagold: capacity %d is below %d", n, MinCapacity)
	case n > MaxCapacity:
		return fmt.Errorf("schemagold: capacity %d is above %d", n, MaxCapacity)
	}
	return nil
}

// PresenceWords is the number of 8-byte presence words of a record of a
// struct with count fields: one bit per field, at least one word.
func PresenceWords(count int) int { return max(1, (count+63)/64) }

// RecordSize is the size in bytes of a record of struct i: its presence
// words, then its fixed slots, then its descriptors, 8 bytes each.
func RecordSize(t *schema.Table, i int) int {
	s := t.Structs[i]
	return SlotSize * (PresenceWords(s.Count) + s.FixedSlots + s.VarSlots)
}

// SlotOffset is the offset of field f's fixed slot or descriptor inside a
// record of struct i.
func SlotOffset(t *schema.Table, i int, f schema.Field) int {
	s := t.Structs[i]
	k := PresenceWords(s.Count) + f.Slot
	if f.Var {
		k += s.FixedSlots
	}
	return SlotSize * k
}

// ElemSize is the size in bytes of one value of type ti in an element array:
// the record of a struct, else one 8-byte slot (a scalar or a descriptor).
func ElemSize(t *schema.Table, ti int) int {
	ty := t.Types[ti]
	if ty.Wire == schema.Struct {
		return RecordSize(t, ty.Struct)
	}
	return SlotSize
}

// ArrayUnit is the size in bytes of one element of container type ti's
// array: the element's ElemSize, plus the key's for a map; 0 for a type
// that is not a list, set or map.
func ArrayUnit(t *schema.Table, ti int) int {
	ty := t.Types[ti]
	switch ty.Wire {
	case schema.List, schema.Set:
		return ElemSize(t, ty.Elem)
	case schema.Map:
		return ElemSize(t, ty.Key) + ElemSize(t, ty.Elem)
	}
	return 0
}
