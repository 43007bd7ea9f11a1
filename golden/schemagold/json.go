package schemagold

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"arcalis/thriftidl"
	"arcalis/thriftidl/schema"
)

// JSONSchema is what ArgsJSON needs beyond a service's tables: which STRING
// values the IDL declares binary (the tables give string and binary one
// wire type and share one type entry between them, so they cannot say) and
// which fields have an IDL default value.
type JSONSchema struct {
	t        *schema.Table
	types    []*jsonType // by index in t.Fields; nil: no binary anywhere in the field's type
	defaults []bool      // by index in t.Fields: the IDL gives the field a default value
	done     []bool      // by index in t.Structs: mapped
}

// jsonType marks the binary STRINGs of one field's type, the type's
// containers followed; a nested struct's fields have their own.
type jsonType struct {
	binary    bool
	key, elem *jsonType
}

// NewJSONSchema matches the args structs of table t, and the structs they
// reach, with the IDL of prog's service service (the name given to
// schema.Build). It fails if the two do not agree on a field's id, name or
// wire type.
func NewJSONSchema(prog *thriftidl.Program, service string, t *schema.Table) (*JSONSchema, error) {
	svc := prog.Service(service)
	if svc == nil {
		return nil, fmt.Errorf("schemagold: %w: %q", schema.ErrNoService, service)
	}
	funcs := map[string]*thriftidl.Function{}
	for s := svc; s != nil; s = s.Parent {
		for _, f := range s.Functions {
			if _, ok := funcs[f.Name]; !ok {
				funcs[f.Name] = f
			}
		}
	}
	js := &JSONSchema{t: t, types: make([]*jsonType, len(t.Fields)), defaults: make([]bool, len(t.Fields)), done: make([]bool, len(t.Structs))}
	for _, m := range t.Methods {
		f, ok := funcs[m.Name]
		if !ok {
			return nil, fmt.Errorf("schemagold: the IDL's service %s has no method %s", service, m.Name)
		}
		if err := js.mapStruct(m.Args, f.Args); err != nil {
			return nil, err
		}
	}
	return js, nil
}

// mapStruct records the binary STRINGs and defaults of table struct st,
// whose IDL fields are idl.
func (js *JSONSchema) mapStruct(st int, idl []*thriftidl.Field) error {
	if js.done[st] {
		return nil
	}
	js.done[st] = true
	e := js.t.Structs[st]
	if len(idl) != e.Count {
		return fmt.Errorf("schemagold: struct %s has %d fields in the tables, %d in the IDL", e.Name, e.Count, len(idl))
	}
	for i, f := range js.t.StructFields(st) {
		var src *thriftidl.Field
		for _, g := range idl {
			if g.ID == int(f.ID) {
				src = g
			}
		}
		if src == nil || src.Name != f.Name {
			return fmt.Errorf("schemagold: field %d (%s) of %s is not in the IDL", f.ID, f.Name, e.Name)
		}
		jt, err := js.mapType(f.Type, src.Type, e.Name+"."+f.Name)
		if err != nil {
			return err
		}
		js.types[e.First+i], js.defaults[e.First+i] = jt, src.Default != nil
	}
	return nil
}

// mapType walks table type ti and IDL type it together.
func (js *JSONSchema) mapType(ti int, it *thriftidl.Type, path string) (*jsonType, error) {
	it = it.Resolve()
	ty := js.t.Types[ti]
	bad := fmt.Errorf("schemagold: %s is %s in the tables, %s in the IDL", path, schema.WireName(ty.Wire), it.Name)
	switch ty.Wire {
	case schema.String:
		switch it.Kind {
		case thriftidl.Binary:
			return &jsonType{binary: true}, nil
		case thriftidl.String:
			return nil, nil
		}
		return nil, bad
	case schema.Struct:
		if it.Kind != thriftidl.Named || it.Struct == nil {
			return nil, bad
		}
		return nil, js.mapStruct(ty.Struct, it.Struct.Fields)
	case schema.List, schema.Set, schema.Map:
		want := map[uint8]thriftidl.BaseKind{schema.List: thriftidl.List, schema.Set: thriftidl.Set, schema.Map: thriftidl.Map}[ty.Wire]
		if it.Kind != want {
			return nil, bad
		}
		elem, err := js.mapType(ty.Elem, it.Elem, path+"[]")
		if err != nil {
			return nil, err
		}
		var key *jsonType
		if ty.Wire == schema.Map {
			if key, err = js.mapType(ty.Key, it.Key, path+"{}"); err != nil {
				return nil, err
			}
		}
		if key == nil && elem == nil {
			return nil, nil
		}
		return &jsonType{key: key, elem: elem}, nil
	}
	return nil, nil
}

// ArgsJSON is ArgsJSON of the tables alone: without the IDL every STRING is
// written as a string, a binary one too (Apache writes binary as base64),
// and IDL default values are not known. Use a JSONSchema for a service with
// binary fields.
func ArgsJSON(t *schema.Table, img []byte) ([]byte, error) {
	js := &JSONSchema{t: t, types: make([]*jsonType, len(t.Fields)), defaults: make([]bool, len(t.Fields))}
	return js.ArgsJSON(img)
}

// ArgsJSON reads image img back (ReadBack) and writes the method's args
// struct as the Write of Apache Thrift Go 0.17.0's generated args struct
// writes it with thrift.NewTSimpleJSONProtocol, byte for byte:
//
//   - a struct is an object of its fields in ascending id order (the
//     generated Write calls writeField<id> in id order, whatever the IDL's
//     order), named by their IDL names;
//   - an optional field absent from the image is left out, as Apache leaves
//     out an unset optional; a present one is written, an empty binary too
//     (Apache's binary protocol reads it as an empty, not a nil, slice);
//   - a default or required field absent from the image is written with the
//     value Apache's struct then holds, its type's zero value: false, 0, "",
//     [type,0] for a list or set, [ktype,vtype,0] for a map, and {} for a
//     struct (Apache writes a nil struct pointer as an empty object). A
//     union must hold exactly one field, as Apache's Write demands, so an
//     absent default union field is an error (Apache's Write panics there);
//   - a list or set is [etype,count,e1,...], a map [ktype,vtype,count,k1,v1,...]
//     with the wire type ids; integers and enums in decimal, doubles as
//     strconv's shortest 'g' form and "NaN", "Infinity", "-Infinity" in
//     quotes, strings as encoding/json quotes them (HTML characters escaped,
//     invalid UTF-8 as U+FFFD), binary as standard base64 in quotes except a
//     map key, which Apache writes as a string;
//   - a map has one entry per key, as Apache's Go map after reading: the
//     last occurrence's key and value, at its key's first position in the
//     wire order. Apache ranges over a Go map, so its own order is random;
//     this order is ArgsJSON's. Double keys compare as Go's map compares
//     them (NaN never equal, -0 equal to +0); struct keys are pointers in
//     Apache's map, so no two are one key;
//   - a set holding two equal elements is an error: Apache's generated Write
//     refuses it ("slice is not unique").
//
// A field with an IDL default value that is optional, or absent from the
// image, is an error: the tables do not hold the default, and Apache's
// optional fields with a default are set by comparison with it.
func (js *JSONSchema) ArgsJSON(img []byte) ([]byte, error) {
	m, err := ReadBack(js.t, img)
	if err != nil {
		return nil, err
	}
	w := &jsonOut{js: js}
	if err := w.structValue(js.t.Methods[m.Result.Method-1].Args, m.Args, true); err != nil {
		return nil, err
	}
	return w.b.Bytes(), nil
}

type jsonOut struct {
	js *JSONSchema
	b  bytes.Buffer
}

func (w *jsonOut) quote(s string) {
	q, _ := json.Marshal(s) // never fails on a string
	w.b.Write(q)
}

// optional reports whether Apache's Go code treats field f of struct e as
// optional: a union's fields are, whatever the IDL says.
func optional(e schema.StructEntry, f schema.Field) bool {
	return f.Req == int(thriftidl.Optional) || e.Kind == schema.KindUnion
}

// structValue writes struct st; s nil is a nil struct pointer in Apache's
// struct (present false).
func (w *jsonOut) structValue(st int, s *Struct, present bool) error {
	t := w.js.t
	e := t.Structs[st]
	if e.Kind == schema.KindUnion && (!present || len(s.Fields) != 1) {
		n := 0
		if present {
			n = len(s.Fields)
		}
		return fmt.Errorf("schemagold: union %s holds %d fields: Apache's Write needs exactly one", e.Name, n)
	}
	if !present {
		w.b.WriteString("{}")
		return nil
	}
	w.b.WriteByte('{')
	k, first := 0, true
	for i, f := range t.StructFields(st) {
		var v any
		here := k < len(s.Fields) && s.Fields[k].ID == f.ID
		if here {
			v = s.Fields[k].Value
			k++
		}
		jt := w.js.types[e.First+i]
		if w.js.defaults[e.First+i] && (!here || optional(e, f)) {
			return fmt.Errorf("schemagold: %s.%s has an IDL default value, which the tables do not hold", e.Name, f.Name)
		}
		if optional(e, f) && !here {
			continue
		}
		if !first {
			w.b.WriteByte(',')
		}
		first = false
		w.quote(f.Name)
		w.b.WriteByte(':')
		var err error
		if here {
			err = w.value(f.Type, jt, v)
		} else {
			err = w.zero(f.Type)
		}
		if err != nil {
			return fmt.Errorf("%s.%s: %w", e.Name, f.Name, err)
		}
	}
	if k != len(s.Fields) {
		return fmt.Errorf("schemagold: struct %s read back with a field it does not have", e.Name)
	}
	w.b.WriteByte('}')
	return nil
}

// zero writes the zero value of type ti: what Apache writes for a default
// field it did not read.
func (w *jsonOut) zero(ti int) error {
	t := w.js.t
	ty := t.Types[ti]
	switch ty.Wire {
	case schema.Bool:
		w.b.WriteString("false")
	case schema.Byte, schema.I16, schema.I32, schema.I64, schema.Double:
		w.b.WriteByte('0')
	case schema.String:
		w.b.WriteString(`""`)
	case schema.List, schema.Set:
		fmt.Fprintf(&w.b, "[%d,0]", t.Types[ty.Elem].Wire)
	case schema.Map:
		fmt.Fprintf(&w.b, "[%d,%d,0]", t.Types[ty.Key].Wire, t.Types[ty.Elem].Wire)
	case schema.Struct:
		return w.structValue(ty.Struct, nil, false)
	default:
		return fmt.Errorf("schemagold: type %d (%s) has no JSON form in Apache Go 0.17.0", ty.Wire, schema.WireName(ty.Wire))
	}
	return nil
}

// value writes a value of type ti read back; jt marks its binary STRINGs.
func (w *jsonOut) value(ti int, jt *jsonType, v any) error {
	t := w.js.t
	ty := t.Types[ti]
	bad := fmt.Errorf("schemagold: %T read back for a %s", v, schema.WireName(ty.Wire))
	switch ty.Wire {
	case schema.Bool:
		x, ok := v.(bool)
		if !ok {
			return bad
		}
		w.b.WriteString(strconv.FormatBool(x))
	case schema.Byte, schema.I16, schema.I32, schema.I64:
		var x int64
		switch n := v.(type) {
		case int8:
			x = int64(n)
		case int16:
			x = int64(n)
		case int32:
			x = int64(n)
		case int64:
			x = n
		default:
			return bad
		}
		w.b.WriteString(strconv.FormatInt(x, 10))
	case schema.Double:
		x, ok := v.(float64)
		if !ok {
			return bad
		}
		w.b.WriteString(jsonDouble(x))
	case schema.String:
		x, ok := v.(string)
		if !ok {
			return bad
		}
		if jt != nil && jt.binary {
			w.b.WriteByte('"')
			w.b.WriteString(base64.StdEncoding.EncodeToString([]byte(x)))
			w.b.WriteByte('"')
		} else {
			w.quote(x)
		}
	case schema.Struct:
		x, ok := v.(*Struct)
		if !ok || x == nil {
			return bad
		}
		return w.structValue(ty.Struct, x, true)
	case schema.List, schema.Set:
		l, ok := v.([]any)
		if !ok {
			return bad
		}
		if ty.Wire == schema.Set {
			for i := range l {
				for j := i + 1; j < len(l); j++ {
					if w.js.equal(ty.Elem, l[i], l[j]) {
						return fmt.Errorf("schemagold: set elements %d and %d are equal: Apache's Write refuses a set that is not unique", i, j)
					}
				}
			}
		}
		fmt.Fprintf(&w.b, "[%d,%d", t.Types[ty.Elem].Wire, len(l))
		for _, x := range l {
			w.b.WriteByte(',')
			if err := w.value(ty.Elem, jt.elemOf(), x); err != nil {
				return err
			}
		}
		w.b.WriteByte(']')
	case schema.Map:
		m, ok := v.([]MapEntry)
		if !ok {
			return bad
		}
		m = mapKeys(t, ty.Key, m)
		fmt.Fprintf(&w.b, "[%d,%d,%d", t.Types[ty.Key].Wire, t.Types[ty.Elem].Wire, len(m))
		for _, x := range m {
			w.b.WriteByte(',')
			// Apache's generated code writes a binary key with WriteString.
			kt := jt.keyOf()
			if t.Types[ty.Key].Wire == schema.String {
				kt = nil
			}
			if err := w.value(ty.Key, kt, x.Key); err != nil {
				return err
			}
			w.b.WriteByte(',')
			if err := w.value(ty.Elem, jt.elemOf(), x.Value); err != nil {
				return err
			}
		}
		w.b.WriteByte(']')
	default:
		return bad
	}
	return nil
}

func (jt *jsonType) elemOf() *jsonType {
	if jt == nil {
		return nil
	}
	return jt.elem
}

func (jt *jsonType) keyOf() *jsonType {
	if jt == nil {
		return nil
	}
	return jt.key
}

// jsonDouble is a double as TSimpleJSONProtocol writes it.
func jsonDouble(x float64) string {
	switch {
	case math.IsNaN(x):
		return `"NaN"`
	case math.IsInf(x, 1):
		return `"Infinity"`
	case math.IsInf(x, -1):
		return `"-Infinity"`
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// mapKeys keeps one entry per key of a map of key type kt, as a Go map
// filled in wire order keeps them: the last key and value, at the key's
// first position. Keys that are not scalars are pointers or cannot be keys
// in Apache's Go code: every entry stays.
func mapKeys(t *schema.Table, kt int, m []MapEntry) []MapEntry {
	if !scalarKey(t, kt) {
		return m
	}
	out := make([]MapEntry, 0, len(m))
	at := map[any]int{}
	for _, e := range m {
		k := e.Key
		if x, ok := k.(float64); ok {
			if x != x {
				out = append(out, e) // NaN: a new key each time
				continue
			}
			if x == 0 {
				k = 0.0 // -0 is +0's key
			}
		}
		if i, ok := at[k]; ok {
			out[i] = e
			continue
		}
		at[k] = len(out)
		out = append(out, e)
	}
	return out
}

// scalarKey reports whether keys of type kt are values in Apache's Go map.
func scalarKey(t *schema.Table, kt int) bool {
	switch t.Types[kt].Wire {
	case schema.Bool, schema.Byte, schema.I16, schema.I32, schema.I64, schema.Double, schema.String:
		return true
	}
	return false
}

// equal compares two values of type ti as Apache's generated code compares
// set elements: scalars with == (NaN unequal to itself), structs as their
// Equals method does, lists element by element, maps key by key.
func (js *JSONSchema) equal(ti int, a, b any) bool {
	t := js.t
	ty := t.Types[ti]
	switch ty.Wire {
	case schema.Struct:
		x, _ := a.(*Struct)
		y, _ := b.(*Struct)
		return js.structEqual(ty.Struct, x, y)
	case schema.List, schema.Set:
		x, _ := a.([]any)
		y, _ := b.([]any)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !js.equal(ty.Elem, x[i], y[i]) {
				return false
			}
		}
		return true
	case schema.Map:
		x, _ := a.([]MapEntry)
		y, _ := b.([]MapEntry)
		x, y = mapKeys(t, ty.Key, x), mapKeys(t, ty.Key, y)
		if len(x) != len(y) {
			return false
		}
		// Apache looks each key up in the other map and compares with what
		// it finds, the zero value for a key it lacks; a struct key is a
		// pointer, never found.
		scalar := scalarKey(t, ty.Key)
		for _, e := range x {
			other := js.zeroValue(ty.Elem)
			for _, f := range y {
				if scalar && e.Key == f.Key {
					other = f.Value
				}
			}
			if !js.equal(ty.Elem, e.Value, other) {
				return false
			}
		}
		return true
	}
	return a == b
}

// structEqual is the generated Equals: an optional scalar or string is a
// pointer, so absent differs from any value; any other absent field is its
// zero value (a nil slice, map or []byte compares by length or content, a
// nil struct pointer equals only nil).
func (js *JSONSchema) structEqual(st int, a, b *Struct) bool {
	if a == nil || b == nil {
		return a == b
	}
	t := js.t
	e := t.Structs[st]
	for i, f := range t.StructFields(st) {
		va, ina := a.Get(f.Name)
		vb, inb := b.Get(f.Name)
		wire := t.Types[f.Type].Wire
		jt := js.types[e.First+i]
		pointer := wire == schema.Struct || (optional(e, f) && (schema.Fixed(wire) || (wire == schema.String && (jt == nil || !jt.binary))))
		if pointer {
			if ina != inb {
				return false
			}
			if !ina {
				continue
			}
		}
		if !ina {
			va = js.zeroValue(f.Type)
		}
		if !inb {
			vb = js.zeroValue(f.Type)
		}
		if !js.equal(f.Type, va, vb) {
			return false
		}
	}
	return true
}

// zeroValue is the value ReadBack would give for the zero value of type ti
// (not a struct: a struct field is a pointer).
func (js *JSONSchema) zeroValue(ti int) any {
	switch js.t.Types[ti].Wire {
	case schema.Bool:
		return false
	case schema.Byte:
		return int8(0)
	case schema.I16:
		return int16(0)
	case schema.I32:
		return int32(0)
	case schema.I64:
		return int64(0)
	case schema.Double:
		return 0.0
	case schema.String:
		return ""
	case schema.List, schema.Set:
		return []any{}
	case schema.Map:
		return []MapEntry{}
	}
	return nil
}
