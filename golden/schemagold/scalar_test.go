package schemagold_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"arcalis/golden/schemagold"
	"arcalis/thriftidl"
	"arcalis/thriftidl/schema"

	"github.com/apache/thrift/lib/go/thrift"
)

// apacheScalar is what Apache's binary protocol reads from raw as wire type
// w, converted to the Go type ReadBack gives.
func apacheScalar(t *testing.T, w uint8, raw []byte) any {
	t.Helper()
	ctx := context.Background()
	buf := thrift.NewTMemoryBuffer()
	buf.Write(raw)
	p := thrift.NewTBinaryProtocolConf(buf, &thrift.TConfiguration{})
	var v any
	var err error
	switch w {
	case schema.Bool:
		v, err = p.ReadBool(ctx)
	case schema.Byte:
		v, err = p.ReadByte(ctx)
	case schema.I16:
		v, err = p.ReadI16(ctx)
	case schema.I32:
		v, err = p.ReadI32(ctx)
	case schema.I64:
		v, err = p.ReadI64(ctx)
	case schema.Double:
		var f float64
		f, err = p.ReadDouble(ctx)
		v = math.Float64bits(f)
	case schema.String:
		v, err = p.ReadString(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestSchemagoldScalars reads every scalar type, as a field, as list, set
// and map elements, from random wire bytes (BOOL bytes 0 to 3) and compares
// each value read back with what Apache's binary protocol reads from the
// same bytes; a fixed slot's bytes past the wire width must be 0.
func TestSchemagoldScalars(t *testing.T) {
	dir := t.TempDir()
	src := `service S { void M(1: bool a, 2: byte b, 3: i16 c, 4: i32 d, 5: i64 e, 6: double f,
		7: list<bool> g, 8: set<i16> h, 9: map<i32, double> m, 10: binary bin, 11: list<byte> l) }`
	if err := os.WriteFile(filepath.Join(dir, "s.thrift"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	prog, err := thriftidl.Load(filepath.Join(dir, "s.thrift"))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := schema.Build(prog, "S")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	size := map[uint8]int{schema.Bool: 1, schema.Byte: 1, schema.I16: 2, schema.I32: 4, schema.I64: 8, schema.Double: 8}
	raw := func(w uint8) []byte {
		b := randBytes(rng, size[w])
		if w == schema.Bool {
			b[0] = byte(rng.IntN(4))
		}
		return b
	}
	conv := func(v any) any { // ReadBack's value in apacheScalar's form
		if f, ok := v.(float64); ok {
			return math.Float64bits(f)
		}
		return v
	}
	for range 200 {
		w := call("M", 1)
		want := map[string][]any{}
		for id, wt := range []uint8{schema.Bool, schema.Byte, schema.I16, schema.I32, schema.I64, schema.Double} {
			b := raw(wt)
			w.field(wt, int16(id+1)).raw(b...)
			want[tab.StructFields(0)[id].Name] = []any{apacheScalar(t, wt, b)}
		}
		for _, c := range []struct {
			id   int16
			name string
			wire uint8
			elem uint8
		}{{7, "g", schema.List, schema.Bool}, {8, "h", schema.Set, schema.I16}, {11, "l", schema.List, schema.Byte}} {
			n := rng.IntN(5)
			w.field(c.wire, c.id).list(c.elem, int32(n))
			want[c.name] = []any{}
			for range n {
				b := raw(c.elem)
				w.raw(b...)
				want[c.name] = append(want[c.name], apacheScalar(t, c.elem, b))
			}
		}
		n := rng.IntN(4)
		w.field(schema.Map, 9).mapHead(schema.I32, schema.Double, int32(n))
		want["m"] = []any{}
		for range n {
			k, v := raw(schema.I32), raw(schema.Double)
			w.raw(k...).raw(v...)
			want["m"] = append(want["m"], apacheScalar(t, schema.I32, k), apacheScalar(t, schema.Double, v))
		}
		bin := randBytes(rng, rng.IntN(20))
		w.field(schema.String, 10).u32(uint32(len(bin))).raw(bin...)
		want["bin"] = []any{string(bin)}
		msg := w.stop().b

		img := make([]byte, 1024)
		r := schemagold.Deserialize(tab, msg, img)
		if r.Code != schemagold.CodeOK || int(r.Offset) != len(msg) {
			t.Fatalf("Deserialize: %v at %d", r.Code, r.Offset)
		}
		m, err := schemagold.ReadBack(tab, img)
		if err != nil {
			t.Fatal(err)
		}
		for name, vals := range want {
			v, ok := m.Args.Get(name)
			if !ok {
				t.Fatalf("field %s absent", name)
			}
			var got []any
			switch x := v.(type) {
			case []any:
				for _, e := range x {
					got = append(got, conv(e))
				}
			case []schemagold.MapEntry:
				for _, e := range x {
					got = append(got, conv(e.Key), conv(e.Value))
				}
			default:
				got = []any{conv(x)}
			}
			if len(got) != len(vals) {
				t.Fatalf("field %s: %v, Apache reads %v", name, got, vals)
			}
			for k := range got {
				if got[k] != vals[k] {
					t.Fatalf("field %s[%d]: %#v, Apache reads %#v", name, k, got[k], vals[k])
				}
			}
		}
		// Fixed slots: zero past the wire width (the record starts at 64: one presence word).
		for _, f := range tab.StructFields(0) {
			if f.Var {
				continue
			}
			slot := img[64+schemagold.SlotOffset(tab, 0, f):][:8]
			if !bytes.Equal(slot[size[f.Wire]:], make([]byte, 8-size[f.Wire])) {
				t.Fatalf("field %s: slot % x is not zero-extended", f.Name, slot)
			}
			if f.Wire == schema.Bool && slot[0] > 1 {
				t.Fatalf("bool slot % x", slot)
			}
		}
		if got := binary.LittleEndian.Uint64(img[64:]); got != 1<<11-1 {
			t.Fatalf("presence word %#x, want the 11 fields", got)
		}
	}
}
