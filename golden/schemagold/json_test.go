package schemagold_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"arcalis/golden/schemagold"
	"arcalis/internal/memcached"
	"arcalis/thriftidl"
	"arcalis/thriftidl/schema"

	"github.com/apache/thrift/lib/go/thrift"
)

var jsonSchemas sync.Map // service name -> *schemagold.JSONSchema

// jsonSchema builds (once) the JSONSchema of s from its IDL.
func (s *service) jsonSchema(t testing.TB) *schemagold.JSONSchema {
	t.Helper()
	tab := s.table(t)
	if js, ok := jsonSchemas.Load(s.name); ok {
		return js.(*schemagold.JSONSchema)
	}
	prog, err := thriftidl.Load(filepath.Join("..", "..", "idl", s.file))
	if err != nil {
		t.Fatal(err)
	}
	js, err := schemagold.NewJSONSchema(prog, s.name, tab)
	if err != nil {
		t.Fatal(err)
	}
	jsonSchemas.Store(s.name, js)
	return js
}

// apacheJSON is what Apache's TSimpleJSONProtocol writes for args.
func apacheJSON(t testing.TB, args thrift.TStruct) []byte {
	t.Helper()
	ctx := context.Background()
	buf := thrift.NewTMemoryBuffer()
	// NewTSimpleJSONProtocol is deprecated for this; writing reads no
	// configuration, so both write the same bytes.
	p := thrift.NewTSimpleJSONProtocolConf(buf, &thrift.TConfiguration{})
	if err := args.Write(ctx, p); err != nil {
		t.Fatal(err)
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	return append([]byte{}, buf.Bytes()...)
}

// hasRandomOrder reports whether Apache's Write of v ranges over a Go map
// of two entries or more, whose order is then random.
func hasRandomOrder(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && hasRandomOrder(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && hasRandomOrder(v.Field(i)) {
				return true
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			if hasRandomOrder(v.Index(i)) {
				return true
			}
		}
	case reflect.Map:
		if v.Len() > 1 {
			return true
		}
		for it := v.MapRange(); it.Next(); {
			if hasRandomOrder(it.Key()) || hasRandomOrder(it.Value()) {
				return true
			}
		}
	}
	return false
}

// jsonNode is a parsed JSON value that keeps its object members in order.
type jsonNode struct {
	object  bool
	array   bool
	members []jsonMember
	elems   []*jsonNode
	scalar  string // a scalar re-marshalled
}

type jsonMember struct {
	name  string
	value *jsonNode
}

func parseJSON(data []byte) (*jsonNode, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := parseNode(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("data after the JSON value")
	}
	return n, nil
}

func parseNode(dec *json.Decoder) (*jsonNode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		n := &jsonNode{object: true}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := parseNode(dec)
			if err != nil {
				return nil, err
			}
			n.members = append(n.members, jsonMember{k.(string), v})
		}
		_, err := dec.Token()
		return n, err
	case json.Delim('['):
		n := &jsonNode{array: true}
		for dec.More() {
			v, err := parseNode(dec)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, v)
		}
		_, err := dec.Token()
		return n, err
	}
	b, err := json.Marshal(tok)
	return &jsonNode{scalar: string(b)}, err
}

// canonStruct writes n, a struct st of tab as TSimpleJSONProtocol writes
// it, in a form where only the order of map entries is lost: each map's
// key-value pairs are sorted. Everything else keeps its order.
func canonStruct(tab *schema.Table, st int, n *jsonNode) (string, error) {
	if !n.object {
		return "", fmt.Errorf("%s: not an object", tab.Structs[st].Name)
	}
	var parts []string
	for _, m := range n.members {
		ti := -1
		for _, f := range tab.StructFields(st) {
			if f.Name == m.name {
				ti = f.Type
			}
		}
		if ti < 0 {
			return "", fmt.Errorf("%s has no field %q", tab.Structs[st].Name, m.name)
		}
		v, err := canonValue(tab, ti, m.value)
		if err != nil {
			return "", err
		}
		parts = append(parts, fmt.Sprintf("%q:%s", m.name, v))
	}
	return "{" + strings.Join(parts, ",") + "}", nil
}

func canonValue(tab *schema.Table, ti int, n *jsonNode) (string, error) {
	ty := tab.Types[ti]
	switch ty.Wire {
	case schema.Struct:
		return canonStruct(tab, ty.Struct, n)
	case schema.List, schema.Set, schema.Map:
		head := 2
		if ty.Wire == schema.Map {
			head = 3
		}
		if !n.array || len(n.elems) < head {
			return "", fmt.Errorf("a %s that is not [types..., count, ...]", schema.WireName(ty.Wire))
		}
		var parts []string
		for _, e := range n.elems[:head] {
			parts = append(parts, e.scalar)
		}
		var items []string
		rest := n.elems[head:]
		for i := 0; i < len(rest); i++ {
			if ty.Wire != schema.Map {
				v, err := canonValue(tab, ty.Elem, rest[i])
				if err != nil {
					return "", err
				}
				items = append(items, v)
				continue
			}
			if i+1 >= len(rest) {
				return "", fmt.Errorf("a map with a key and no value")
			}
			k, err := canonValue(tab, ty.Key, rest[i])
			if err != nil {
				return "", err
			}
			v, err := canonValue(tab, ty.Elem, rest[i+1])
			if err != nil {
				return "", err
			}
			items = append(items, k+","+v)
			i++
		}
		if ty.Wire == schema.Map {
			slices.Sort(items)
		}
		return "[" + strings.Join(append(parts, items...), ",") + "]", nil
	}
	if n.object || n.array {
		return "", fmt.Errorf("a %s that is not a scalar", schema.WireName(ty.Wire))
	}
	return n.scalar, nil
}

// sameJSON compares two JSON texts of args struct st, map entries in any
// order.
func sameJSON(tab *schema.Table, st int, a, b []byte) error {
	var canon [2]string
	for i, data := range [][]byte{a, b} {
		n, err := parseJSON(data)
		if err != nil {
			return fmt.Errorf("%s: %w", data, err)
		}
		if canon[i], err = canonStruct(tab, st, n); err != nil {
			return fmt.Errorf("%s: %w", data, err)
		}
	}
	if canon[0] != canon[1] {
		return fmt.Errorf("map entries aside, they differ:\n%s\n%s", canon[0], canon[1])
	}
	return nil
}

// TestArgsJSONApache encodes random arguments of every method of every
// service with Apache's binary protocol, half of them with unknown,
// mistyped and repeated fields injected, decodes them with Apache and with
// Deserialize, and compares ArgsJSON of the image with what Apache's
// TSimpleJSONProtocol writes for the struct Apache decoded: byte for byte
// unless Apache ranged over a Go map of two entries or more, and then
// with each map's entries sorted.
func TestArgsJSONApache(t *testing.T) {
	const perMethod = 500
	for _, svc := range services {
		t.Run(svc.name, func(t *testing.T) {
			tab := svc.table(t)
			js := svc.jsonSchema(t)
			binary := svc.name == "MemcachedService" // the only service of idl/ with binary fields
			img, done := bigImage()
			defer done()
			exact, unordered := 0, 0
			for mi, m := range tab.Methods {
				rng := rand.New(rand.NewPCG(uint64(mi), 0x15071))
				for k := range perMethod {
					args := svc.args[m.Name]()
					randArgs(rng, tab, mi, args, full)
					var wrap func(thrift.TProtocol) thrift.TProtocol
					if k%2 == 1 {
						wrap = newInjector(rng, tab)
					}
					msg := encode(t, m.Name, thrift.CALL, int32(k), args, wrap)
					d, err := apacheDecode(svc, msg)
					if err != nil {
						t.Fatalf("%s #%d: Apache: %v", m.Name, k, err)
					}
					want := apacheJSON(t, d.args)
					if r := schemagold.Deserialize(tab, msg, img); r.Code != schemagold.CodeOK {
						t.Fatalf("%s #%d: Deserialize: %v", m.Name, k, r.Code)
					}
					got, err := js.ArgsJSON(img)
					if err != nil {
						t.Fatalf("%s #%d: ArgsJSON: %v", m.Name, k, err)
					}
					if hasRandomOrder(reflect.ValueOf(d.args)) {
						if err := sameJSON(tab, m.Args, want, got); err != nil {
							t.Fatalf("%s #%d: %v", m.Name, k, err)
						}
						unordered++
					} else {
						if !bytes.Equal(got, want) {
							t.Fatalf("%s #%d:\nArgsJSON %s\nApache   %s", m.Name, k, got, want)
						}
						exact++
					}
					// Without the IDL only binary is written otherwise.
					plain, err := schemagold.ArgsJSON(tab, img)
					if err != nil {
						t.Fatalf("%s #%d: ArgsJSON of the tables: %v", m.Name, k, err)
					}
					if !binary && !bytes.Equal(plain, got) {
						t.Fatalf("%s #%d: the tables alone give\n%s\nthe IDL\n%s", m.Name, k, plain, got)
					}
				}
			}
			t.Logf("%d byte-equal, %d equal but for the order of map entries", exact, unordered)
			if exact < len(tab.Methods)*perMethod/10 {
				t.Errorf("only %d of %d cases compared byte for byte", exact, len(tab.Methods)*perMethod)
			}
			if hasMap(tab) && unordered == 0 {
				t.Errorf("no case with a map of two entries or more")
			}
		})
	}
}

// hasMap reports whether an args struct of tab holds a map field.
func hasMap(tab *schema.Table) bool {
	for _, m := range tab.Methods {
		for _, f := range tab.StructFields(m.Args) {
			if f.Wire == schema.Map {
				return true
			}
		}
	}
	return false
}

// TestArgsJSONMemcachedLiteral: binary is base64, an absent default field
// is its zero value, as Apache writes them; the tables alone write binary
// as a string.
func TestArgsJSONMemcachedLiteral(t *testing.T) {
	svc := serviceNamed("MemcachedService")
	tab := svc.table(t)
	js := svc.jsonSchema(t)
	img, done := bigImage()
	defer done()

	set := memcached.NewMemcachedServiceSetArgs()
	set.ReqID, set.Key, set.Value, set.Flags, set.Exptime = 7, []byte("key"), []byte{0, 0xff, 'v'}, 3, -1
	const want = `{"req_id":7,"key":"a2V5","value":"AP92","flags":3,"exptime":-1}`
	if a := apacheJSON(t, set); string(a) != want {
		t.Fatalf("Apache writes %s, the test expects %s", a, want)
	}
	if r := schemagold.Deserialize(tab, encode(t, "Set", thrift.CALL, 1, set, nil), img); r.Code != schemagold.CodeOK {
		t.Fatal(r.Code)
	}
	if got, err := js.ArgsJSON(img); err != nil || string(got) != want {
		t.Fatalf("ArgsJSON: %s, %v; want %s", got, err, want)
	}
	const plain = `{"req_id":7,"key":"key","value":"\u0000\ufffdv","flags":3,"exptime":-1}`
	if got, err := schemagold.ArgsJSON(tab, img); err != nil || string(got) != plain {
		t.Fatalf("ArgsJSON of the tables: %s, %v; want %s", got, err, plain)
	}

	// Get without its key: Apache's Key stays nil and is written "".
	msg, _ := hex.DecodeString("80010001000000034765740000000a0a0001000000000000000500")
	const wantGet = `{"req_id":5,"key":""}`
	d, err := apacheDecode(svc, msg)
	if err != nil {
		t.Fatal(err)
	}
	if a := apacheJSON(t, d.args); string(a) != wantGet {
		t.Fatalf("Apache writes %s, the test expects %s", a, wantGet)
	}
	if r := schemagold.Deserialize(tab, msg, img); r.Code != schemagold.CodeOK {
		t.Fatal(r.Code)
	}
	if got, err := js.ArgsJSON(img); err != nil || string(got) != wantGet {
		t.Fatalf("ArgsJSON: %s, %v; want %s", got, err, wantGet)
	}
}

// TestArgsJSONRepeatedKey: a map key twice on the wire is one entry, the
// last value, as in Apache's map; an absent struct field is {}.
func TestArgsJSONRepeatedKey(t *testing.T) {
	svc := serviceNamed("PostStorageService")
	tab := svc.table(t)
	ctx := context.Background()
	buf := thrift.NewTMemoryBuffer()
	p := thrift.NewTBinaryProtocolConf(buf, &thrift.TConfiguration{TBinaryStrictWrite: thrift.BoolPtr(true)})
	p.WriteMessageBegin(ctx, "StorePost", thrift.CALL, 9)
	p.WriteFieldBegin(ctx, "", thrift.I64, 1)
	p.WriteI64(ctx, 1)
	p.WriteFieldBegin(ctx, "", thrift.MAP, 3)
	p.WriteMapBegin(ctx, thrift.STRING, thrift.STRING, 3)
	for _, s := range []string{"k1", "a", "k2", "b", "k1", "c"} {
		p.WriteString(ctx, s)
	}
	p.WriteFieldStop(ctx)
	msg := append([]byte{}, buf.Bytes()...)

	const want = `{"req_id":1,"post":{},"carrier":[11,11,2,"k1","c","k2","b"]}`
	d, err := apacheDecode(svc, msg)
	if err != nil {
		t.Fatal(err)
	}
	if a := string(apacheJSON(t, d.args)); a != want && a != `{"req_id":1,"post":{},"carrier":[11,11,2,"k2","b","k1","c"]}` {
		t.Fatalf("Apache writes %s", a)
	}
	img, done := bigImage()
	defer done()
	if r := schemagold.Deserialize(tab, msg, img); r.Code != schemagold.CodeOK {
		t.Fatal(r.Code)
	}
	if got, err := svc.jsonSchema(t).ArgsJSON(img); err != nil || string(got) != want {
		t.Fatalf("ArgsJSON: %s, %v; want %s", got, err, want)
	}
}

// The IDLs of the literal cases below. Apache's Go code for them is not in
// the repository: thrift 0.17.0 generated it, and the messages and JSON
// texts below are what that code wrote (the binary messages, some written
// field by field with TBinaryProtocol, decoded by the generated Read, then
// written by the generated Write with TSimpleJSONProtocol), or its error.
// tb/schemarx's required.thrift, but for the namespace: "required" is a
// keyword to Apache's compiler.
const requiredIDL = `namespace go reqd
struct Inner {
  1: required i32 a,
  2: optional string b,
  3: required list<i64> c,
}
union Pick {
  1: i64 n,
  2: string s,
  3: Inner inner,
}
struct Outer {
  1: required Inner inner,
  2: list<Inner> inners,
  3: map<string, Inner> by_name,
  4: Pick pick,
  5: double d,
  6: bool flag,
  7: byte b,
  8: i16 s,
  9: set<list<Inner>> sets,
  70: required string far,
}
service RequiredService {
  void Put(1: required Outer outer, 2: required i64 id, 3: set<string> tags),
  oneway void Drop(1: i64 id),
  Outer Get(1: required i64 id, 2: Pick pick),
}
`

// Fields declared out of id order, binary in containers and as a map key,
// double keys and set elements, sets of structs and maps.
const extraIDL = `namespace go jx
struct P { 2: i32 b, 1: optional string a, 3: optional binary c }
struct Q {
  3: i64 c,
  1: optional binary ob,
  2: list<binary> lb,
  4: map<binary, binary> mb,
  5: map<double, i32> dm,
  6: optional set<double> sd,
  7: optional set<P> sp,
  8: optional set<map<string, i32>> sm,
}
service X { void M(2: Q q, 1: i64 x) }
`

// jsonFromIDL builds the tables and the JSONSchema of service svc of an
// IDL text.
func jsonFromIDL(t *testing.T, idl, svc string) (*schema.Table, *schemagold.JSONSchema) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.thrift")
	if err := os.WriteFile(path, []byte(idl), 0o644); err != nil {
		t.Fatal(err)
	}
	prog, err := thriftidl.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := schema.Build(prog, svc)
	if err != nil {
		t.Fatal(err)
	}
	js, err := schemagold.NewJSONSchema(prog, svc, tab)
	if err != nil {
		t.Fatal(err)
	}
	return tab, js
}

func TestArgsJSONLiterals(t *testing.T) {
	cases := []struct {
		name, idl, svc, msg string
		want                string // the JSON, or what the error says
		fails               bool
	}{
		{"every scalar, NaN, union, nested", requiredIDL, "RequiredService",
			"8001000100000003507574000000010c00010c0001080001000000010f00030a000000020000000000000005fffffffffffffffa000f00020c00000001080001ffffffff0b000200000009783c793e26e280a8ff0f00030a00000000000d00030b0c00000001000000016b080001000000020f00030a00000000000c00040b00020000000170000400057ff80000000000010200060103000780060008012c0e00090f000000020c00000001080001000000030f00030a000000010000000000000001000c000000000b004600000002fffe000a0002fffffffffffffff70e00030b0000000200000002743100000002743200",
			`{"outer":{"inner":{"a":1,"c":[10,2,5,-6]},"inners":[12,1,{"a":-1,"b":"x\u003cy\u003e\u0026\u2028\ufffd","c":[10,0]}],"by_name":[11,12,1,"k",{"a":2,"c":[10,0]}],"pick":{"s":"p"},"d":"NaN","flag":true,"b":-128,"s":300,"sets":[15,2,[12,1,{"a":3,"c":[10,1,1]}],[12,0]],"far":"\ufffd\ufffd"},"id":-9,"tags":[11,2,"t1","t2"]}`, false},
		{"Infinity", requiredIDL, "RequiredService",
			"8001000100000003507574000000010c00010c0001080001000000000b0002000000000f00030a00000000000f00020c000000000d00030b0c000000000c00040a00010000000000000007000400057ff0000000000000020006000300070006000800000e00090f000000000b004600000000000a000200000000000000000e00030b0000000000",
			`{"outer":{"inner":{"a":0,"b":"","c":[10,0]},"inners":[12,0],"by_name":[11,12,0],"pick":{"n":7},"d":"Infinity","flag":false,"b":0,"s":0,"sets":[15,0],"far":""},"id":0,"tags":[11,0]}`, false},
		{"-Infinity", requiredIDL, "RequiredService",
			"8001000100000003507574000000010c00010c0001080001000000000b0002000000000f00030a00000000000f00020c000000000d00030b0c000000000c00040a0001000000000000000700040005fff0000000000000020006000300070006000800000e00090f000000000b004600000000000a000200000000000000000e00030b0000000000",
			`{"outer":{"inner":{"a":0,"b":"","c":[10,0]},"inners":[12,0],"by_name":[11,12,0],"pick":{"n":7},"d":"-Infinity","flag":false,"b":0,"s":0,"sets":[15,0],"far":""},"id":0,"tags":[11,0]}`, false},
		{"1e21", requiredIDL, "RequiredService",
			"8001000100000003507574000000010c00010c0001080001000000000b0002000000000f00030a00000000000f00020c000000000d00030b0c000000000c00040a0001000000000000000700040005444b1ae4d6e2ef50020006000300070006000800000e00090f000000000b004600000000000a000200000000000000000e00030b0000000000",
			`{"outer":{"inner":{"a":0,"b":"","c":[10,0]},"inners":[12,0],"by_name":[11,12,0],"pick":{"n":7},"d":1e+21,"flag":false,"b":0,"s":0,"sets":[15,0],"far":""},"id":0,"tags":[11,0]}`, false},
		{"-0", requiredIDL, "RequiredService",
			"8001000100000003507574000000010c00010c0001080001000000000b0002000000000f00030a00000000000f00020c000000000d00030b0c000000000c00040a00010000000000000007000400058000000000000000020006000300070006000800000e00090f000000000b004600000000000a000200000000000000000e00030b0000000000",
			`{"outer":{"inner":{"a":0,"b":"","c":[10,0]},"inners":[12,0],"by_name":[11,12,0],"pick":{"n":7},"d":-0,"flag":false,"b":0,"s":0,"sets":[15,0],"far":""},"id":0,"tags":[11,0]}`, false},
		{"5e-324", requiredIDL, "RequiredService",
			"8001000100000003507574000000010c00010c0001080001000000000b0002000000000f00030a00000000000f00020c000000000d00030b0c000000000c00040a00010000000000000007000400050000000000000001020006000300070006000800000e00090f000000000b004600000000000a000200000000000000000e00030b0000000000",
			`{"outer":{"inner":{"a":0,"b":"","c":[10,0]},"inners":[12,0],"by_name":[11,12,0],"pick":{"n":7},"d":5e-324,"flag":false,"b":0,"s":0,"sets":[15,0],"far":""},"id":0,"tags":[11,0]}`, false},
		{"0.1", requiredIDL, "RequiredService",
			"8001000100000003507574000000010c00010c0001080001000000000b0002000000000f00030a00000000000f00020c000000000d00030b0c000000000c00040a00010000000000000007000400053fb999999999999a020006000300070006000800000e00090f000000000b004600000000000a000200000000000000000e00030b0000000000",
			`{"outer":{"inner":{"a":0,"b":"","c":[10,0]},"inners":[12,0],"by_name":[11,12,0],"pick":{"n":7},"d":0.1,"flag":false,"b":0,"s":0,"sets":[15,0],"far":""},"id":0,"tags":[11,0]}`, false},
		{"a union in a struct", requiredIDL, "RequiredService",
			"8001000100000003476574000000010a000100000000000000010c00020c0003080001000000010f00030a00000000000000",
			`{"id":1,"pick":{"inner":{"a":1,"c":[10,0]}}}`, false},
		// Apache's Write dereferences the nil union and panics.
		{"an absent union", requiredIDL, "RequiredService",
			"8001000100000003476574000000010a0001000000000000000100",
			"union Pick holds 0 fields", true},
		{"a set not unique", requiredIDL, "RequiredService",
			"8001000100000003507574000000010c00010c0001080001000000000f00030a00000000000f00020c000000000d00030b0c000000000c00040a00010000000000000001000400050000000000000000020006000300070006000800000e00090f000000000b004600000000000a000200000000000000050e00030b0000000300000001610000000162000000016100",
			"not unique", true},
		{"id order, binary, double keys", extraIDL, "X",
			"80010001000000014d000000010a0001fffffffffffffffe0c00020a000300000000000000010b0001000000000f00020b00000002000000030001fb000000000d00040b0b0000000100000002ff3c00000002ff3c0d00050408000000048000000000000000000000010000000000000000000000027ff8000000000001000000057ff8000000000001000000050e000604000000037ff80000000000017ff800000000000140040000000000000e00070c000000020800020000000100080002000000010b000100000000000e00080d000000020b08000000010000000161000000010b08000000010000000162000000010000",
			`{"x":-2,"q":{"ob":"","lb":[11,2,"AAH7",""],"c":1,"mb":[11,11,1,"\ufffd\u003c","/zw="],"dm":[4,8,3,0,2,"NaN",5,"NaN",5],"sd":[4,3,"NaN","NaN",2.5],"sp":[12,2,{"b":1},{"a":"","b":1}],"sm":[13,2,[11,8,1,"a",1],[11,8,1,"b",1]]}}`, false},
		{"the last double key", extraIDL, "X",
			"80010001000000014d000000010c00020d00050408000000020000000000000000000000018000000000000000000000020000",
			`{"x":0,"q":{"lb":[11,0],"c":0,"mb":[11,11,0],"dm":[4,8,1,-0,2]}}`, false},
		{"an absent struct", extraIDL, "X",
			"80010001000000014d0000000100",
			`{"x":0,"q":{}}`, false},
		{"a set of -0 and 0", extraIDL, "X",
			"80010001000000014d000000010c00020e00060400000002800000000000000000000000000000000000",
			"not unique", true},
		{"a set of structs equal but for an empty optional binary", extraIDL, "X",
			"80010001000000014d000000010c00020e00070c00000002080002000000010b0003000000000008000200000001000000",
			"not unique", true},
		{"a set of maps Apache's Equals calls equal", extraIDL, "X",
			"80010001000000014d000000010c00020e00080d000000020b08000000010000000161000000000b08000000010000000162000000000000",
			"not unique", true},
	}
	img, done := bigImage()
	defer done()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tab, js := jsonFromIDL(t, c.idl, c.svc)
			msg, err := hex.DecodeString(c.msg)
			if err != nil {
				t.Fatal(err)
			}
			if r := schemagold.Deserialize(tab, msg, img); r.Code != schemagold.CodeOK {
				t.Fatalf("Deserialize: %v", r.Code)
			}
			got, err := js.ArgsJSON(img)
			switch {
			case c.fails && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("ArgsJSON: %s, %v; want an error saying %q", got, err, c.want)
			case !c.fails && (err != nil || string(got) != c.want):
				t.Fatalf("ArgsJSON: %s, %v;\nwant %s", got, err, c.want)
			}
		})
	}
}

// TestArgsJSONDefault: the tables hold no IDL default, so a field that has
// one is written only when the message held it.
func TestArgsJSONDefault(t *testing.T) {
	tab, js := jsonFromIDL(t, "service D { void M(1: i32 a = 5, 2: i64 b) }\n", "D")
	img, done := bigImage()
	defer done()
	for _, c := range []struct{ msg, want string }{
		{"80010001000000014d00000001080001000000090a0002000000000000000200", `{"a":9,"b":2}`},
		{"80010001000000014d000000010a0002000000000000000200", "default value"},
	} {
		msg, _ := hex.DecodeString(c.msg)
		if r := schemagold.Deserialize(tab, msg, img); r.Code != schemagold.CodeOK {
			t.Fatalf("Deserialize: %v", r.Code)
		}
		got, err := js.ArgsJSON(img)
		if string(got) != c.want && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("ArgsJSON: %s, %v; want %s", got, err, c.want)
		}
	}
}

// TestArgsJSONErrors: an image that is not OK, and a JSONSchema of tables
// another IDL made.
func TestArgsJSONErrors(t *testing.T) {
	mc := serviceNamed("MemcachedService")
	tab := mc.table(t)
	img, done := bigImage()
	defer done()
	msg := encode(t, "Get", thrift.CALL, 1, memcached.NewMemcachedServiceGetArgs(), nil)
	if r := schemagold.Deserialize(tab, msg[:len(msg)-3], img); r.Code != schemagold.CodeTruncated {
		t.Fatalf("Deserialize of a truncated Get: %v", r.Code)
	}
	if got, err := mc.jsonSchema(t).ArgsJSON(img); err == nil {
		t.Errorf("ArgsJSON of a TRUNCATED image: %s, no error", got)
	}
	prog, err := thriftidl.Load(filepath.Join("..", "..", "idl", mc.file))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := schemagold.NewJSONSchema(prog, "NoSuchService", tab); !errors.Is(err, schema.ErrNoService) {
		t.Errorf("NewJSONSchema of no service: %v", err)
	}
	if _, err := schemagold.NewJSONSchema(prog, "MemcachedService", serviceNamed("PostStorageService").table(t)); err == nil {
		t.Errorf("NewJSONSchema of Memcached's IDL with PostStorage's tables: no error")
	}
}
