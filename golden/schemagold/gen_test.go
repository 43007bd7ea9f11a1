package schemagold_test

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"

	"arcalis/golden/schemagold"
	"arcalis/thriftidl/schema"

	"github.com/apache/thrift/lib/go/thrift"
)

// randLen is a length in [0, limit], short more often than long.
func randLen(rng *rand.Rand, limit int) int {
	if rng.IntN(4) == 0 {
		return rng.IntN(limit + 1)
	}
	return rng.IntN(min(limit, 12) + 1)
}

func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// sizes bounds the random arguments' lengths.
type sizes struct{ str, list, entries int }

// full are the lengths of issue 17: strings 0-300 bytes, lists 0-64
// elements, maps 0-8 entries. The fuzz seeds are smaller: the fuzzer
// minimizes every new input it finds, byte by byte.
var (
	full  = sizes{300, 64, 8}
	small = sizes{24, 4, 3}
)

// randArgs fills Apache's args struct of method mi with random values of
// lengths up to lim, every field sometimes left unset.
func randArgs(rng *rand.Rand, tab *schema.Table, mi int, args thrift.TStruct, lim sizes) {
	randStruct(rng, tab, tab.Methods[mi].Args, reflect.ValueOf(args).Elem(), lim)
}

func randStruct(rng *rand.Rand, tab *schema.Table, st int, a reflect.Value, lim sizes) {
	byID := map[int16]int{}
	for i := range a.NumField() {
		if id, ok := thriftID(a.Type().Field(i)); ok {
			byID[id] = i
		}
	}
	for _, f := range tab.StructFields(st) {
		if rng.IntN(8) == 0 {
			continue
		}
		fv := a.Field(byID[f.ID])
		fv.Set(randValue(rng, tab, f.Type, fv.Type(), lim))
	}
}

// randValue is a random value of table type ti as Go type gt.
func randValue(rng *rand.Rand, tab *schema.Table, ti int, gt reflect.Type, lim sizes) reflect.Value {
	ty := tab.Types[ti]
	v := reflect.New(gt).Elem()
	switch gt.Kind() {
	case reflect.Pointer:
		if ty.Wire == schema.Struct {
			p := reflect.New(gt.Elem())
			randStruct(rng, tab, ty.Struct, p.Elem(), lim)
			return p
		}
		p := reflect.New(gt.Elem())
		p.Elem().Set(randValue(rng, tab, ti, gt.Elem(), lim))
		return p
	case reflect.Slice:
		if gt.Elem().Kind() == reflect.Uint8 {
			v.SetBytes(randBytes(rng, randLen(rng, lim.str)))
			return v
		}
		n := randLen(rng, lim.list)
		v.Set(reflect.MakeSlice(gt, n, n))
		for i := range n {
			v.Index(i).Set(randValue(rng, tab, ty.Elem, gt.Elem(), lim))
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(gt))
		for range randLen(rng, lim.entries) {
			v.SetMapIndex(randValue(rng, tab, ty.Key, gt.Key(), lim), randValue(rng, tab, ty.Elem, gt.Elem(), lim))
		}
	case reflect.String:
		v.SetString(string(randBytes(rng, randLen(rng, lim.str))))
	case reflect.Bool:
		v.SetBool(rng.IntN(2) == 1)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x := int64(rng.Uint64())
		if ty.Wire == schema.I32 { // an enum is an int64 in Go and an i32 on the wire
			x = int64(int32(x))
		}
		v.SetInt(x)
	case reflect.Float64:
		v.SetFloat(math.Float64frombits(rng.Uint64()))
	default:
		panic("randValue: Go kind " + gt.Kind().String())
	}
	return v
}

// allWires are the types thrift.Skip reads.
var allWires = []uint8{schema.Bool, schema.Byte, schema.Double, schema.I16, schema.I32, schema.I64,
	schema.String, schema.Struct, schema.Map, schema.Set, schema.List}

// randWire is a random type thrift.Skip reads; nested ones only when levels > 0.
func randWire(rng *rand.Rand, levels int) uint8 {
	if levels <= 0 {
		return allWires[rng.IntN(7)]
	}
	return allWires[rng.IntN(len(allWires))]
}

// writeRandom writes a random value of wire type w that may add levels
// levels of nesting (a struct or container is one).
func writeRandom(ctx context.Context, rng *rand.Rand, p thrift.TProtocol, w uint8, levels int) {
	switch w {
	case schema.Bool:
		p.WriteByte(ctx, int8(rng.IntN(3))) // 2 reads as false, as Apache's ReadBool
	case schema.Byte:
		p.WriteByte(ctx, int8(rng.Uint32()))
	case schema.I16:
		p.WriteI16(ctx, int16(rng.Uint32()))
	case schema.I32:
		p.WriteI32(ctx, int32(rng.Uint32()))
	case schema.I64:
		p.WriteI64(ctx, int64(rng.Uint64()))
	case schema.Double:
		p.WriteDouble(ctx, math.Float64frombits(rng.Uint64()))
	case schema.String:
		p.WriteBinary(ctx, randBytes(rng, randLen(rng, 40)))
	case schema.Struct:
		p.WriteStructBegin(ctx, "unknown")
		for range rng.IntN(4) {
			ft := randWire(rng, levels-1)
			p.WriteFieldBegin(ctx, "", thrift.TType(ft), int16(rng.Uint32()))
			writeRandom(ctx, rng, p, ft, levels-1)
		}
		p.WriteFieldStop(ctx)
		p.WriteStructEnd(ctx)
	case schema.List, schema.Set:
		n := rng.IntN(4)
		e := randWire(rng, levels-1)
		if n == 0 && rng.IntN(2) == 0 {
			e = []uint8{0, 1, 5, 16, 200}[rng.IntN(5)] // an empty container may name any type
		}
		if w == schema.List {
			p.WriteListBegin(ctx, thrift.TType(e), n)
		} else {
			p.WriteSetBegin(ctx, thrift.TType(e), n)
		}
		for range n {
			writeRandom(ctx, rng, p, e, levels-1)
		}
	case schema.Map:
		n := rng.IntN(4)
		k, v := randWire(rng, levels-1), randWire(rng, levels-1)
		if n == 0 && rng.IntN(2) == 0 {
			k, v = 0, 16
		}
		p.WriteMapBegin(ctx, thrift.TType(k), thrift.TType(v), n)
		for range n {
			writeRandom(ctx, rng, p, k, levels-1)
			writeRandom(ctx, rng, p, v, levels-1)
		}
	}
}

// writeTyped writes a random value of table type ti (a struct's fields in
// random order, some absent, with unknown ones among them) that starts at
// nesting level level.
func writeTyped(ctx context.Context, rng *rand.Rand, tab *schema.Table, p thrift.TProtocol, ti, level int) {
	ty := tab.Types[ti]
	switch ty.Wire {
	case schema.Struct:
		p.WriteStructBegin(ctx, tab.Structs[ty.Struct].Name)
		fields := tab.StructFields(ty.Struct)
		for _, k := range rng.Perm(len(fields)) {
			if rng.IntN(3) == 0 {
				continue
			}
			p.WriteFieldBegin(ctx, "", thrift.TType(fields[k].Wire), fields[k].ID)
			writeTyped(ctx, rng, tab, p, fields[k].Type, level+1)
			if rng.IntN(4) == 0 {
				w := randWire(rng, schemagold.MaxDepth-level)
				p.WriteFieldBegin(ctx, "", thrift.TType(w), unknownID(rng, fields))
				writeRandom(ctx, rng, p, w, schemagold.MaxDepth-level)
			}
		}
		p.WriteFieldStop(ctx)
	case schema.List, schema.Set:
		n := rng.IntN(4)
		p.WriteListBegin(ctx, thrift.TType(tab.Types[ty.Elem].Wire), n) // a set is written as a list: the header is the same
		for range n {
			writeTyped(ctx, rng, tab, p, ty.Elem, level+1)
		}
	case schema.Map:
		n := rng.IntN(4)
		p.WriteMapBegin(ctx, thrift.TType(tab.Types[ty.Key].Wire), thrift.TType(tab.Types[ty.Elem].Wire), n)
		for range n {
			writeTyped(ctx, rng, tab, p, ty.Key, level+1)
			writeTyped(ctx, rng, tab, p, ty.Elem, level+1)
		}
	default:
		writeRandom(ctx, rng, p, ty.Wire, 0)
	}
}

// unknownID is an id none of fields has.
func unknownID(rng *rand.Rand, fields []schema.Field) int16 {
	for {
		id := int16(rng.IntN(40) - 10)
		if rng.IntN(8) == 0 {
			id = int16(rng.Uint32())
		}
		known := false
		for _, f := range fields {
			known = known || f.ID == id
		}
		if !known {
			return id
		}
	}
}

// injector passes Apache's generated Write through to the binary protocol
// and, before some field headers and STOPs, writes fields of its own with
// the binary protocol: unknown fields of every type (nested ones as deep as
// MaxDepth allows), known ids with another wire type, and known fields
// again with a random value of their type (repeated: the last one wins).
type injector struct {
	thrift.TProtocol
	rng     *rand.Rand
	tab     *schema.Table
	structs []int // table index of each struct being written, -1 for a container level
	count   int   // fields injected
}

func newInjector(rng *rand.Rand, tab *schema.Table) func(thrift.TProtocol) thrift.TProtocol {
	return func(p thrift.TProtocol) thrift.TProtocol { return &injector{TProtocol: p, rng: rng, tab: tab} }
}

func (w *injector) WriteStructBegin(ctx context.Context, name string) error {
	st := -1
	for i, s := range w.tab.Structs {
		if strings.EqualFold(s.Name[strings.LastIndex(s.Name, ".")+1:], name) {
			st = i
		}
	}
	if st < 0 {
		panic("injector: no struct " + name)
	}
	w.structs = append(w.structs, st)
	return w.TProtocol.WriteStructBegin(ctx, name)
}

func (w *injector) WriteStructEnd(ctx context.Context) error {
	w.structs = w.structs[:len(w.structs)-1]
	return w.TProtocol.WriteStructEnd(ctx)
}

func (w *injector) WriteListBegin(ctx context.Context, e thrift.TType, n int) error {
	w.structs = append(w.structs, -1)
	return w.TProtocol.WriteListBegin(ctx, e, n)
}

func (w *injector) WriteListEnd(ctx context.Context) error {
	w.structs = w.structs[:len(w.structs)-1]
	return w.TProtocol.WriteListEnd(ctx)
}

func (w *injector) WriteSetBegin(ctx context.Context, e thrift.TType, n int) error {
	w.structs = append(w.structs, -1)
	return w.TProtocol.WriteSetBegin(ctx, e, n)
}

func (w *injector) WriteSetEnd(ctx context.Context) error {
	w.structs = w.structs[:len(w.structs)-1]
	return w.TProtocol.WriteSetEnd(ctx)
}

func (w *injector) WriteMapBegin(ctx context.Context, k, v thrift.TType, n int) error {
	w.structs = append(w.structs, -1)
	return w.TProtocol.WriteMapBegin(ctx, k, v, n)
}

func (w *injector) WriteMapEnd(ctx context.Context) error {
	w.structs = w.structs[:len(w.structs)-1]
	return w.TProtocol.WriteMapEnd(ctx)
}

func (w *injector) WriteFieldBegin(ctx context.Context, name string, t thrift.TType, id int16) error {
	w.inject(ctx)
	return w.TProtocol.WriteFieldBegin(ctx, name, t, id)
}

func (w *injector) WriteFieldStop(ctx context.Context) error {
	w.inject(ctx)
	return w.TProtocol.WriteFieldStop(ctx)
}

// inject writes 0 to 2 fields into the struct being written.
func (w *injector) inject(ctx context.Context) {
	level := len(w.structs) // the struct's level; the args struct is 1
	st := w.structs[level-1]
	fields := w.tab.StructFields(st)
	p := w.TProtocol
	for range w.rng.IntN(3) {
		w.count++
		switch k := w.rng.IntN(4); {
		case k == 0 && len(fields) > 0: // a known id, another wire type: skipped
			f := fields[w.rng.IntN(len(fields))]
			t := randWire(w.rng, schemagold.MaxDepth-level)
			for t == f.Wire {
				t = randWire(w.rng, schemagold.MaxDepth-level)
			}
			p.WriteFieldBegin(ctx, "", thrift.TType(t), f.ID)
			writeRandom(ctx, w.rng, p, t, schemagold.MaxDepth-level)
		case k == 1 && len(fields) > 0: // a known field again
			f := fields[w.rng.IntN(len(fields))]
			p.WriteFieldBegin(ctx, "", thrift.TType(f.Wire), f.ID)
			writeTyped(ctx, w.rng, w.tab, p, f.Type, level+1)
		default: // an unknown field
			t := randWire(w.rng, schemagold.MaxDepth-level)
			p.WriteFieldBegin(ctx, "", thrift.TType(t), unknownID(w.rng, fields))
			writeRandom(ctx, w.rng, p, t, schemagold.MaxDepth-level)
		}
	}
}
