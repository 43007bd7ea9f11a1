package gen

import (
	"bytes"
	"fmt"
	"go/format"

	"arcalis/thriftidl/schema"
)

// Go returns the Go source of t: the same tables as data, in a package of
// their own that needs no import.
func Go(t *schema.Table, o Options) ([]byte, error) {
	pkg := o.Package
	if pkg == "" {
		pkg = GoPackage(t.Service)
	}
	var b bytes.Buffer
	b.WriteString(header(o))
	fmt.Fprintf(&b, `
// Package %s is the schema table of the Thrift service
// %s: its methods, their args and result structs and the structs
// they hold, every field with its wire type and slot (docs/idl.md explains
// the layout and the slot rule).
package %s

// Thrift type ids as on the wire.
const (
	Bool   = 2
	Byte   = 3
	Double = 4
	I16    = 6
	I32    = 8
	I64    = 10
	String = 11 // and binary
	Struct = 12
	Map    = 13
	Set    = 14
	List   = 15
	UUID   = 16
)

// Struct kinds.
const (
	KindStruct = iota
	KindUnion
	KindException
	KindArgs
	KindResult
)

// Method is a method; Args and Result index Structs (Result is -1 when oneway).
type Method struct {
	Name        string
	Service     string
	Args        int
	Result      int
	Oneway      bool
	ArgsDepth   int
	ResultDepth int
}

// StructEntry is a struct; its fields are Fields[First : First+Count].
type StructEntry struct {
	Name       string
	Kind       int
	First      int
	Count      int
	FixedSlots int
	VarSlots   int
	Depth      int
}

// Field is a field; Type indexes Types, Struct indexes Structs (-1 unless
// Wire is Struct), Req is 0 default, 1 required, 2 optional, and Slot is a
// fixed slot, or an entry of the variable area when Var.
type Field struct {
	ID     int16
	Name   string
	Wire   uint8
	Type   int
	Struct int
	Req    int
	Var    bool
	Slot   int
}

// Type is a wire type; Struct indexes Structs, Key and Elem index Types
// (-1 when the wire type has none).
type Type struct {
	Wire   uint8
	Struct int
	Key    int
	Elem   int
}

// Service is the service's name.
const Service = %q
`, pkg, t.Service, pkg, t.Service)

	b.WriteString("\n// Methods of the service, inherited ones first.\nvar Methods = []Method{\n")
	for i, m := range t.Methods {
		fmt.Fprintf(&b, "\t{Name: %q, Service: %q, Args: %d, Result: %d, Oneway: %t, ArgsDepth: %d, ResultDepth: %d}, // %d\n",
			m.Name, m.Service, m.Args, m.Result, m.Oneway, m.ArgsDepth, m.ResultDepth, i)
	}
	b.WriteString("}\n\n// Structs: each method's args and result, then the structs they reach.\nvar Structs = []StructEntry{\n")
	for i, s := range t.Structs {
		fmt.Fprintf(&b, "\t{Name: %q, Kind: %s, First: %d, Count: %d, FixedSlots: %d, VarSlots: %d, Depth: %d}, // %d\n",
			s.Name, kindNames[s.Kind], s.First, s.Count, s.FixedSlots, s.VarSlots, s.Depth, i)
	}
	b.WriteString("}\n\n// Fields of every struct, struct by struct, in ascending id order.\nvar Fields = []Field{\n")
	for si, s := range t.Structs {
		fmt.Fprintf(&b, "\t// %s\n", s.Name)
		for i, f := range t.StructFields(si) {
			fmt.Fprintf(&b, "\t{ID: %d, Name: %q, Wire: %s, Type: %d, Struct: %d, Req: %d, Var: %t, Slot: %d}, // %d\n",
				f.ID, f.Name, goWire(f.Wire), f.Type, f.Struct, f.Req, f.Var, f.Slot, s.First+i)
		}
	}
	b.WriteString("}\n\n// Types: wire types with their key, element and struct.\nvar Types = []Type{\n")
	for i, ty := range t.Types {
		fmt.Fprintf(&b, "\t{Wire: %s, Struct: %d, Key: %d, Elem: %d}, // %d\n", goWire(ty.Wire), ty.Struct, ty.Key, ty.Elem, i)
	}
	b.WriteString("}\n")
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("generated Go does not parse: %w", err)
	}
	return out, nil
}

// goWire is the generated file's constant for a wire type.
func goWire(w uint8) string {
	return map[uint8]string{schema.Bool: "Bool", schema.Byte: "Byte", schema.Double: "Double", schema.I16: "I16",
		schema.I32: "I32", schema.I64: "I64", schema.String: "String", schema.Struct: "Struct", schema.Map: "Map",
		schema.Set: "Set", schema.List: "List", schema.UUID: "UUID"}[w]
}
