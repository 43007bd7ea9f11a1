package gen

import (
	"bytes"
	"fmt"
	"go/format"

	"arcalis/thriftidl/schema"
)

// Go returns the Go source of t: the same tables as a schema.Table value,
// so a program uses them with the types package schema declares once.
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

import "arcalis/thriftidl/schema"

// Table is the service's schema table.
var Table = &schema.Table{
	Service: %q,
`, pkg, t.Service, pkg, t.Service)

	b.WriteString("\n\t// Methods of the service, inherited ones first.\n\tMethods: []schema.Method{\n")
	for i, m := range t.Methods {
		fmt.Fprintf(&b, "\t\t{Name: %q, Service: %q, Args: %d, Result: %d, Oneway: %t, ArgsDepth: %d, ResultDepth: %d}, // %d\n",
			m.Name, m.Service, m.Args, m.Result, m.Oneway, m.ArgsDepth, m.ResultDepth, i)
	}
	b.WriteString("\t},\n\n\t// Structs: each method's args and result, then the structs they reach.\n\tStructs: []schema.StructEntry{\n")
	for i, s := range t.Structs {
		fmt.Fprintf(&b, "\t\t{Name: %q, Kind: schema.%s, First: %d, Count: %d, FixedSlots: %d, VarSlots: %d, Depth: %d}, // %d\n",
			s.Name, kindNames[s.Kind], s.First, s.Count, s.FixedSlots, s.VarSlots, s.Depth, i)
	}
	b.WriteString("\t},\n\n\t// Fields of every struct, struct by struct, in ascending id order.\n\tFields: []schema.Field{\n")
	for si, s := range t.Structs {
		fmt.Fprintf(&b, "\t\t// %s\n", s.Name)
		for i, f := range t.StructFields(si) {
			fmt.Fprintf(&b, "\t\t{ID: %d, Name: %q, Wire: schema.%s, Type: %d, Struct: %d, Req: %d, Var: %t, Slot: %d}, // %d\n",
				f.ID, f.Name, goWire(f.Wire), f.Type, f.Struct, f.Req, f.Var, f.Slot, s.First+i)
		}
	}
	b.WriteString("\t},\n\n\t// Types: wire types with their key, element and struct.\n\tTypes: []schema.Type{\n")
	for i, ty := range t.Types {
		fmt.Fprintf(&b, "\t\t{Wire: schema.%s, Struct: %d, Key: %d, Elem: %d}, // %d\n", goWire(ty.Wire), ty.Struct, ty.Key, ty.Elem, i)
	}
	b.WriteString("\t},\n}\n")
	out, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("generated Go does not parse: %w", err)
	}
	return out, nil
}

// goWire is the name of package schema's constant for a wire type.
func goWire(w uint8) string {
	return map[uint8]string{schema.Bool: "Bool", schema.Byte: "Byte", schema.Double: "Double", schema.I16: "I16",
		schema.I32: "I32", schema.I64: "I64", schema.String: "String", schema.Struct: "Struct", schema.Map: "Map",
		schema.Set: "Set", schema.List: "List", schema.UUID: "UUID"}[w]
}
