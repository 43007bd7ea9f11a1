package schemagold_test

import (
	"encoding/binary"

	"arcalis/thriftidl/schema"
)

// wire builds a message byte by byte (big-endian, as the binary protocol).
type wire struct{ b []byte }

func head(ver uint32, name string, seq int32) *wire {
	w := &wire{}
	return w.u32(ver).u32(uint32(len(name))).raw([]byte(name)...).u32(uint32(seq))
}

func call(name string, seq int32) *wire { return head(0x80010001, name, seq) }

func (w *wire) raw(b ...byte) *wire { w.b = append(w.b, b...); return w }
func (w *wire) u16(v uint16) *wire  { w.b = binary.BigEndian.AppendUint16(w.b, v); return w }
func (w *wire) u32(v uint32) *wire  { w.b = binary.BigEndian.AppendUint32(w.b, v); return w }
func (w *wire) u64(v uint64) *wire  { w.b = binary.BigEndian.AppendUint64(w.b, v); return w }

// field writes a field header.
func (w *wire) field(t uint8, id int16) *wire { return w.raw(t).u16(uint16(id)) }
func (w *wire) stop() *wire                   { return w.raw(0) }
func (w *wire) i64(id int16, v int64) *wire   { return w.field(schema.I64, id).u64(uint64(v)) }
func (w *wire) i32(id int16, v int32) *wire   { return w.field(schema.I32, id).u32(uint32(v)) }
func (w *wire) str(id int16, s string) *wire {
	return w.field(schema.String, id).u32(uint32(len(s))).raw([]byte(s)...)
}

// list writes a list header (no field header).
func (w *wire) list(elem uint8, n int32) *wire { return w.raw(elem).u32(uint32(n)) }

// mapHead writes a map header (no field header).
func (w *wire) mapHead(k, v uint8, n int32) *wire { return w.raw(k, v).u32(uint32(n)) }

// nestedLists writes an unknown field 99 of levels nested lists, the
// innermost an empty list of i64: levels levels below the struct it is in.
func (w *wire) nestedLists(levels int) *wire {
	w.field(schema.List, 99)
	for range levels - 1 {
		w.list(schema.List, 1)
	}
	return w.list(schema.I64, 0)
}

// limitSeeds are hand-built messages of method name at the limits: nesting
// of 8 and 9 levels, a count over MaxElements, bad types and lengths
// (TestSchemagoldLimits has containers of 65,535 and 65,536 elements: as
// seeds they would slow the fuzzer down).
func limitSeeds(name string) [][]byte {
	return [][]byte{
		call(name, 1).nestedLists(7).stop().b, // args (1) + 7 = 8 levels: accepted
		call(name, 1).nestedLists(8).stop().b, // 9 levels: DEPTH_EXCEEDED, Apache skips it
		call(name, 1).field(schema.List, 99).list(schema.Bool, 65536).raw(1, 1).stop().b,
		call(name, 1).i32(1, 5).str(1, "x").stop().b,
		call(name, 1).field(schema.Map, 98).mapHead(0, 16, 0).stop().b,   // empty: any types
		call(name, 1).field(schema.Map, 98).mapHead(11, 16, 1).stop().b,  // BAD_TYPE
		call(name, 1).field(16, 97).u64(0).u64(0).stop().b,               // UUID: BAD_TYPE
		call(name, 1).field(schema.String, 96).u32(0xFFFFFFFF).stop().b,  // BAD_LENGTH
		call(name, 1).field(schema.Struct, 95).i64(1, 5).stop().stop().b, // a nested unknown struct
	}
}
