package gen

import (
	"bytes"
	"fmt"
	"math/bits"
	"strings"

	"arcalis/golden/schemagold"
	"arcalis/thriftidl/schema"
)

// SV returns the SystemVerilog package of t. Every table is a function of
// an index made of one case statement that assigns the function's name (no
// unpacked localparam arrays and no return statements: Yosys 0.23 reads
// neither). Fields of an index that do not apply (a oneway method's result,
// the struct of a non-STRUCT field, the key of a list) read as 0.
func SV(t *schema.Table, o Options) []byte {
	w := &svWriter{}
	pkg := SVPackage(t.Service)
	nm, ns, nf, nt := len(t.Methods), len(t.Structs), len(t.Fields), len(t.Types)
	maxName, maxSlots, maxDepth, maxCount := 1, 0, 0, 0
	for _, m := range t.Methods {
		maxName = max(maxName, len(m.Name))
		maxDepth = max(maxDepth, m.ArgsDepth, m.ResultDepth)
	}
	for _, s := range t.Structs {
		maxSlots = max(maxSlots, s.FixedSlots, s.VarSlots)
		maxCount = max(maxCount, s.Count)
	}
	mW, sW, fW, tW := idxWidth(nm), idxWidth(ns), idxWidth(nf), idxWidth(nt)
	nameW, slotW, depthW, countW := width(maxName), width(maxSlots), width(maxDepth), width(max(nf, maxCount))

	w.printf("%s", header(o))
	w.printf("// Schema table of the Thrift service %s (docs/idl.md): methods, structs,\n", t.Service)
	w.printf("// fields with their wire types and slots, and wire types with their key,\n")
	w.printf("// element and struct. Each table is a function of its index.\n")
	w.printf("package %s;\n", pkg)
	w.printf("  /* verilator lint_off UNUSEDPARAM */\n\n")
	w.printf("  // Thrift type ids as on the wire.\n")
	for _, c := range []struct {
		name string
		v    int
	}{{"WireBool", schema.Bool}, {"WireByte", schema.Byte}, {"WireDouble", schema.Double}, {"WireI16", schema.I16},
		{"WireI32", schema.I32}, {"WireI64", schema.I64}, {"WireString", schema.String}, {"WireStruct", schema.Struct},
		{"WireMap", schema.Map}, {"WireSet", schema.Set}, {"WireList", schema.List}, {"WireUuid", schema.UUID}} {
		w.printf("  localparam logic [4:0] %-10s = 5'd%d;\n", c.name, c.v)
	}
	w.printf("\n  // Struct kinds.\n")
	for i, k := range kindNames {
		w.printf("  localparam logic [2:0] %-13s = 3'd%d;\n", k, i)
	}
	w.printf("\n  // Sizes, and the widths of indices and values below.\n")
	for _, c := range []struct {
		name string
		v    int
		doc  string
	}{
		{"NumMethods", nm, ""}, {"NumStructs", ns, ""}, {"NumFields", nf, ""}, {"NumTypes", nt, ""},
		{"MaxNameLen", maxName, "longest method name in bytes"},
		{"MaxDepth", maxDepth, "deepest args or result nesting"},
		{"MaxSlots", maxSlots, "most fixed slots or variable entries of a struct"},
		{"MethodIdxW", mW, ""}, {"StructIdxW", sW, ""}, {"FieldIdxW", fW, ""}, {"TypeIdxW", tW, ""},
		{"NameLenW", nameW, ""}, {"SlotW", slotW, ""}, {"DepthW", depthW, ""}, {"CountW", countW, ""},
	} {
		if c.doc != "" {
			w.printf("  localparam int %-10s = %d;  // %s\n", c.name, c.v, c.doc)
		} else {
			w.printf("  localparam int %-10s = %d;\n", c.name, c.v)
		}
	}

	// Methods.
	w.section("Methods, inherited ones first. A name's first byte is bits [7:0].")
	mi := func(f func(i int) (string, string)) []entry {
		var es []entry
		for i, m := range t.Methods {
			v, c := f(i)
			if c == "" {
				c = m.Name
			}
			es = append(es, entry{v, c})
		}
		return es
	}
	w.table("method_name", 8*maxName, mW, mi(func(i int) (string, string) {
		return BytesLiteral([]byte(t.Methods[i].Name), maxName), ""
	}))
	w.table("method_name_len", nameW, mW, mi(func(i int) (string, string) { return lit(nameW, len(t.Methods[i].Name)), "" }))
	w.table("method_args", sW, mW, mi(func(i int) (string, string) {
		return lit(sW, t.Methods[i].Args), t.Methods[i].Name + ": " + t.Structs[t.Methods[i].Args].Name
	}))
	w.table("method_result", sW, mW, mi(func(i int) (string, string) {
		m := t.Methods[i]
		if m.Result < 0 {
			return lit(sW, 0), m.Name + ": oneway, no result"
		}
		return lit(sW, m.Result), m.Name + ": " + t.Structs[m.Result].Name
	}))
	w.table("method_oneway", 1, mW, mi(func(i int) (string, string) { return bit(t.Methods[i].Oneway), "" }))
	w.table("method_args_depth", depthW, mW, mi(func(i int) (string, string) { return lit(depthW, t.Methods[i].ArgsDepth), "" }))
	w.table("method_result_depth", depthW, mW, mi(func(i int) (string, string) { return lit(depthW, t.Methods[i].ResultDepth), "" }))

	// Structs.
	w.section("Structs: each method's args and result, then the structs they reach.\n  // A struct's fields are indices [struct_first, struct_first + struct_count).")
	si := func(f func(s schema.StructEntry) string) []entry {
		var es []entry
		for _, s := range t.Structs {
			es = append(es, entry{f(s), s.Name})
		}
		return es
	}
	w.table("struct_kind", 3, sW, si(func(s schema.StructEntry) string { return kindNames[s.Kind] }))
	w.table("struct_first", countW, sW, si(func(s schema.StructEntry) string { return lit(countW, s.First) }))
	w.table("struct_count", countW, sW, si(func(s schema.StructEntry) string { return lit(countW, s.Count) }))
	w.table("struct_fixed_slots", slotW, sW, si(func(s schema.StructEntry) string { return lit(slotW, s.FixedSlots) }))
	w.table("struct_var_slots", slotW, sW, si(func(s schema.StructEntry) string { return lit(slotW, s.VarSlots) }))
	w.table("struct_depth", depthW, sW, si(func(s schema.StructEntry) string { return lit(depthW, s.Depth) }))

	// Fields.
	w.section("Fields, struct by struct, in ascending id order. field_req: 0 default,\n  // 1 required, 2 optional. field_slot is a fixed slot, or an entry of the\n  // variable area when field_var.")
	var owner []string
	for si, s := range t.Structs {
		for range t.StructFields(si) {
			owner = append(owner, s.Name)
		}
	}
	fi := func(f func(fl schema.Field) string) []entry {
		var es []entry
		for i, fl := range t.Fields {
			es = append(es, entry{f(fl), owner[i] + "." + fl.Name})
		}
		return es
	}
	w.table("field_id", 16, fW, fi(func(f schema.Field) string { return lit(16, int(f.ID)) }))
	w.table("field_wire", 5, fW, fi(func(f schema.Field) string { return wireConst(f.Wire) }))
	w.table("field_type", tW, fW, fi(func(f schema.Field) string { return lit(tW, f.Type) }))
	w.table("field_struct", sW, fW, fi(func(f schema.Field) string { return lit(sW, max(f.Struct, 0)) }))
	w.table("field_req", 2, fW, fi(func(f schema.Field) string { return lit(2, f.Req) }))
	w.table("field_var", 1, fW, fi(func(f schema.Field) string { return bit(f.Var) }))
	w.table("field_slot", slotW, fW, fi(func(f schema.Field) string { return lit(slotW, f.Slot) }))

	// Lookup by (struct, id): the comparator.
	w.printf("\n  // field_find: {hit, field index} of the field with id id_i in struct\n")
	w.printf("  // struct_i; {1'b0, '0} when the struct has no such id.\n")
	w.printf("  function automatic logic [%d:0] field_find(input logic [%d:0] struct_i, input logic [15:0] id_i);\n", fW, sW-1)
	w.printf("    unique case ({struct_i, id_i})\n")
	for si, s := range t.Structs {
		for i, f := range t.StructFields(si) {
			w.printf("      {%s, %s}: field_find = {1'b1, %s};  // %s.%s\n", lit(sW, si), lit(16, int(f.ID)), lit(fW, s.First+i), s.Name, f.Name)
		}
	}
	w.printf("      default: field_find = '0;\n    endcase\n  endfunction\n")

	// Types.
	w.section("Wire types: type_struct when type_wire is WireStruct, type_key of a\n  // map, type_elem of a list, set or map (a map's value); 0 otherwise.")
	ti := func(f func(ty schema.Type) string) []entry {
		var es []entry
		for i, ty := range t.Types {
			es = append(es, entry{f(ty), typeString(t, i)})
		}
		return es
	}
	w.table("type_wire", 5, tW, ti(func(ty schema.Type) string { return wireConst(ty.Wire) }))
	w.table("type_struct", sW, tW, ti(func(ty schema.Type) string { return lit(sW, max(ty.Struct, 0)) }))
	w.table("type_key", tW, tW, ti(func(ty schema.Type) string { return lit(tW, max(ty.Key, 0)) }))
	w.table("type_elem", tW, tW, ti(func(ty schema.Type) string { return lit(tW, max(ty.Elem, 0)) }))

	// Layout: golden/schemagold's rules for the records and arrays of the
	// App.Recv and App.Resp images, evaluated here so that the modules
	// hold no copy of them.
	maxSize := 0
	for si := range t.Structs {
		maxSize = max(maxSize, schemagold.RecordSize(t, si))
	}
	for ti := range t.Types {
		maxSize = max(maxSize, schemagold.ArrayUnit(t, ti))
	}
	sizeW := width(maxSize)
	w.printf("\n  localparam int SizeW = %d;  // bits of the sizes and offsets below\n", sizeW)
	w.section("Layout of the images (golden/schemagold): a struct's record size,\n  // a field's offset in its struct's record, and the struct it belongs to.")
	var sizes, offsets, owners, rsz, esz, unit []entry
	for i, s := range t.Structs {
		sizes = append(sizes, entry{lit(sizeW, schemagold.RecordSize(t, i)), s.Name})
		for _, f := range t.StructFields(i) {
			offsets = append(offsets, entry{lit(sizeW, schemagold.SlotOffset(t, i, f)), s.Name + "." + f.Name})
			owners = append(owners, entry{lit(sW, i), s.Name + "." + f.Name})
		}
	}
	for i, ty := range t.Types {
		r := 0
		if ty.Wire == schema.Struct {
			r = schemagold.RecordSize(t, ty.Struct)
		}
		rsz = append(rsz, entry{lit(sizeW, r), typeString(t, i)})
		esz = append(esz, entry{lit(sizeW, schemagold.ElemSize(t, i)), typeString(t, i)})
		unit = append(unit, entry{lit(sizeW, schemagold.ArrayUnit(t, i)), typeString(t, i)})
	}
	w.table("struct_size", sizeW, sW, sizes)
	w.table("field_offset", sizeW, fW, offsets)
	w.table("field_owner", sW, fW, owners)
	w.section("Per wire type: the record of a struct type (else 0), the size of\n  // one value of the type in an element array, and a list's, set's or\n  // map's bytes per element (else 0).")
	w.table("type_record_size", sizeW, tW, rsz)
	w.table("type_elem_size", sizeW, tW, esz)
	w.table("type_array_unit", sizeW, tW, unit)
	w.printf("\n  /* verilator lint_on UNUSEDPARAM */\nendpackage\n")
	return w.b.Bytes()
}

type entry struct{ value, comment string }

type svWriter struct{ b bytes.Buffer }

func (w *svWriter) printf(format string, args ...any) { fmt.Fprintf(&w.b, format, args...) }

func (w *svWriter) section(doc string) { w.printf("\n  // ---- %s\n", doc) }

// table writes "function automatic logic [width-1:0] name(input logic
// [idxW-1:0] idx)" returning entries[idx], and 0 for an index past them.
func (w *svWriter) table(name string, width, idxW int, entries []entry) {
	ret := "logic"
	if width > 1 {
		ret = fmt.Sprintf("logic [%d:0]", width-1)
	}
	w.printf("\n  function automatic %s %s(input logic [%d:0] idx);\n", ret, name, idxW-1)
	w.printf("    unique case (idx)\n")
	for i, e := range entries {
		w.printf("      %s: %s = %s;  // %s\n", lit(idxW, i), name, e.value, e.comment)
	}
	w.printf("      default: %s = '0;\n    endcase\n  endfunction\n", name)
}

// width is the bits needed for values 0..n, at least 1.
func width(n int) int { return max(1, bits.Len(uint(n))) }

// idxWidth is the bits of an index over n entries, at least 1.
func idxWidth(n int) int { return width(max(n-1, 0)) }

func lit(w, v int) string { return fmt.Sprintf("%d'd%d", w, v) }

func bit(b bool) string {
	if b {
		return "1'b1"
	}
	return "1'b0"
}

func wireConst(w uint8) string {
	n := schema.WireName(w)
	return "Wire" + n[:1] + strings.ToLower(n[1:])
}

// BytesLiteral is bs as an n-byte SystemVerilog hex literal, its first byte
// in bits [7:0] (the byte lanes' order), zeros above. It panics if bs is
// longer than n bytes.
func BytesLiteral(bs []byte, n int) string {
	if len(bs) > n {
		panic(fmt.Sprintf("gen: %d bytes do not fit a %d-byte literal", len(bs), n))
	}
	var b strings.Builder
	for i := n - 1; i >= 0; i-- {
		c := byte(0)
		if i < len(bs) {
			c = bs[i]
		}
		fmt.Fprintf(&b, "%02x", c)
	}
	return fmt.Sprintf("%d'h%s", 8*n, b.String())
}

// typeString is type i as IDL-like text: "list<map<STRING,STRING>>", "Post".
func typeString(t *schema.Table, i int) string {
	ty := t.Types[i]
	switch ty.Wire {
	case schema.Struct:
		return t.Structs[ty.Struct].Name
	case schema.List, schema.Set:
		return strings.ToLower(schema.WireName(ty.Wire)) + "<" + typeString(t, ty.Elem) + ">"
	case schema.Map:
		return "map<" + typeString(t, ty.Key) + "," + typeString(t, ty.Elem) + ">"
	}
	return schema.WireName(ty.Wire)
}
