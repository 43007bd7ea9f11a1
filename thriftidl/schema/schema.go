// Package schema computes, once, the flat tables a service's hardware schema
// table holds: structs, fields, wire types and methods (docs/idl.md).
//
// Structs are numbered in this order: for each method (inherited ones
// first, base-most service first) its args struct "Method_args", then,
// unless oneway, its result struct "Method_result" (field 0 "success"
// unless void, then the declared exceptions with their ids, every field
// optional, as Apache's generated code builds them); after all methods, the
// IDL's structs, unions and exceptions in the order they are first reached,
// breadth first: structs in index order, each one's fields in id order.
// Fields lie in one flat list, struct by struct, each struct's in ascending
// id order.
//
// Slot rule: within a struct, taking fields in ascending id order, a
// fixed-size field (BOOL, BYTE, I16, I32, I64, DOUBLE, UUID) gets the next
// fixed slot 0, 1, 2, ...; any other (STRING/BINARY, STRUCT, MAP, SET,
// LIST) gets the next entry 0, 1, 2, ... of the variable area.
//
// Depth counts the levels of struct, list, set and map from the outermost
// struct, which is level 1: a struct of scalars has depth 1, args holding a
// map<string,string> depth 2, list<Post> in a result with Post holding
// list<UserMention> depth 5. A struct that contains itself is an error.
package schema

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"arcalis/thriftidl"
)

// Thrift type ids as on the wire.
const (
	Stop   = 0 // the type byte that closes a struct
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

// WireName is the name of a Thrift type id ("I64"), or "" for another value.
func WireName(w uint8) string {
	return map[uint8]string{Bool: "BOOL", Byte: "BYTE", Double: "DOUBLE", I16: "I16", I32: "I32",
		I64: "I64", String: "STRING", Struct: "STRUCT", Map: "MAP", Set: "SET", List: "LIST", UUID: "UUID"}[w]
}

// Fixed reports whether values of wire type w have a fixed size.
func Fixed(w uint8) bool {
	switch w {
	case Bool, Byte, Double, I16, I32, I64, UUID:
		return true
	}
	return false
}

// Table is the schema of one service.
type Table struct {
	Service string
	Methods []Method
	Structs []StructEntry
	Fields  []Field
	Types   []Type
}

// Method is one method of the service.
type Method struct {
	Name        string
	Service     string // the service that declares it (a parent's, for an inherited one)
	Args        int    // index in Structs
	Result      int    // index in Structs; -1 when oneway
	Oneway      bool
	ArgsDepth   int
	ResultDepth int // 0 when oneway
}

// Struct kinds.
const (
	KindStruct = iota
	KindUnion
	KindException
	KindArgs
	KindResult
)

// StructEntry is one struct; its fields are Fields[First : First+Count].
type StructEntry struct {
	Name       string
	Kind       int
	First      int
	Count      int
	FixedSlots int
	VarSlots   int
	Depth      int
}

// Field is one field of a struct.
type Field struct {
	ID     int16
	Name   string
	Wire   uint8 // Types[Type].Wire
	Type   int   // index in Types
	Struct int   // nested struct index when Wire is STRUCT, else -1
	Req    int   // 0 default, 1 required, 2 optional
	Var    bool  // Slot is in the variable area, not a fixed slot
	Slot   int
}

// Type is a wire type with, for containers, its key and element types and,
// for a struct, its index. Identical types share one entry; a type's key
// and element types come before it.
type Type struct {
	Wire   uint8
	Struct int // index in Structs when Wire is STRUCT, else -1
	Key    int // index in Types of a map's key type, else -1
	Elem   int // index in Types of a list's or set's element or a map's value, else -1
}

// StructFields returns the fields of struct i.
func (t *Table) StructFields(i int) []Field {
	s := t.Structs[i]
	return t.Fields[s.First : s.First+s.Count]
}

// ErrNoService is what Build's error wraps when the file has no service of
// the name given.
var ErrNoService = errors.New("no such service")

type noService struct{ msg string }

func (e noService) Error() string { return e.msg }
func (e noService) Unwrap() error { return ErrNoService }

// Build computes the table of the service named service ("prefix.Name" for
// one in an included file) of a loaded program.
func Build(prog *thriftidl.Program, service string) (*Table, error) {
	svc := prog.Service(service)
	if svc == nil {
		var names []string
		for _, s := range prog.Root.Services {
			names = append(names, s.Name)
		}
		if len(names) == 0 {
			return nil, noService{fmt.Sprintf("%s defines no service", prog.Root.File)}
		}
		return nil, noService{fmt.Sprintf("%s has no service %q (it has %s)", prog.Root.File, service, strings.Join(names, ", "))}
	}
	b := &builder{t: &Table{Service: svc.Name}, index: map[*thriftidl.Struct]int{}, types: map[Type]int{}}
	funcs, err := methods(svc)
	if err != nil {
		return nil, err
	}
	// Number the args and result structs first, then the IDL's structs.
	type pending struct {
		fields []*thriftidl.Field
		result bool
	}
	var bodies []pending
	for _, f := range funcs {
		m := Method{Name: f.Name, Service: f.Service.Name, Oneway: f.Oneway, Result: -1}
		m.Args = len(b.t.Structs)
		b.t.Structs = append(b.t.Structs, StructEntry{Name: f.Name + "_args", Kind: KindArgs})
		bodies = append(bodies, pending{f.Args, false})
		if !f.Oneway {
			m.Result = len(b.t.Structs)
			b.t.Structs = append(b.t.Structs, StructEntry{Name: f.Name + "_result", Kind: KindResult})
			res := f.Throws
			if f.Returns != nil {
				res = append([]*thriftidl.Field{{Pos: f.Pos, ID: 0, Name: "success", Type: f.Returns}}, f.Throws...)
			}
			bodies = append(bodies, pending{res, true})
		}
		b.t.Methods = append(b.t.Methods, m)
	}
	// Struct i's fields are b.bodies[i]; the structs grow as fields reach new ones.
	for i := 0; i < len(b.t.Structs); i++ {
		var fs []Field
		if i < len(bodies) {
			fs = b.fields(bodies[i].fields, bodies[i].result)
		} else {
			fs = b.fields(b.src[i-len(bodies)].Fields, false)
		}
		b.t.Structs[i].FixedSlots, b.t.Structs[i].VarSlots = slots(fs)
		b.bodies = append(b.bodies, fs)
	}
	for i := range b.t.Structs {
		b.t.Structs[i].First, b.t.Structs[i].Count = len(b.t.Fields), len(b.bodies[i])
		b.t.Fields = append(b.t.Fields, b.bodies[i]...)
	}
	if err := b.depths(); err != nil {
		return nil, err
	}
	for i := range b.t.Methods {
		m := &b.t.Methods[i]
		m.ArgsDepth = b.t.Structs[m.Args].Depth
		if m.Result >= 0 {
			m.ResultDepth = b.t.Structs[m.Result].Depth
		}
	}
	b.qualifyNames()
	return b.t, nil
}

// methods lists a service's functions, its parents' first.
func methods(svc *thriftidl.Service) ([]*thriftidl.Function, error) {
	var chain []*thriftidl.Service
	for s := svc; s != nil; s = s.Parent {
		chain = append([]*thriftidl.Service{s}, chain...)
	}
	var out []*thriftidl.Function
	seen := map[string]*thriftidl.Function{}
	for _, s := range chain {
		for _, f := range s.Functions {
			if old, ok := seen[f.Name]; ok {
				return nil, fmt.Errorf("%s: function %s of %s is also defined by %s at %s", f.Pos, f.Name, s.Name, old.Service.Name, old.Pos)
			}
			seen[f.Name] = f
			out = append(out, f)
		}
	}
	return out, nil
}

type builder struct {
	t      *Table
	index  map[*thriftidl.Struct]int // IDL struct -> index in t.Structs
	src    []*thriftidl.Struct       // the IDL structs, in index order after the args and results
	bodies [][]Field
	types  map[Type]int
}

// fields turns IDL fields into table fields in ascending id order, with slots.
func (b *builder) fields(in []*thriftidl.Field, result bool) []Field {
	sorted := append([]*thriftidl.Field{}, in...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].ID < sorted[j].ID })
	var out []Field
	fixed, variable := 0, 0
	for _, f := range sorted {
		ti := b.typeIndex(f.Type)
		ty := b.t.Types[ti]
		tf := Field{ID: int16(f.ID), Name: f.Name, Wire: ty.Wire, Type: ti, Struct: ty.Struct, Req: int(f.Req)}
		if result {
			tf.Req = int(thriftidl.Optional)
		}
		if Fixed(ty.Wire) {
			tf.Slot = fixed
			fixed++
		} else {
			tf.Var, tf.Slot = true, variable
			variable++
		}
		out = append(out, tf)
	}
	return out
}

func slots(fs []Field) (fixed, variable int) {
	for _, f := range fs {
		if f.Var {
			variable++
		} else {
			fixed++
		}
	}
	return fixed, variable
}

// typeIndex interns t (typedefs followed, enums as I32) and returns its index.
func (b *builder) typeIndex(t *thriftidl.Type) int {
	t = t.Resolve()
	e := Type{Struct: -1, Key: -1, Elem: -1}
	switch t.Kind {
	case thriftidl.Bool:
		e.Wire = Bool
	case thriftidl.Byte:
		e.Wire = Byte
	case thriftidl.I16:
		e.Wire = I16
	case thriftidl.I32:
		e.Wire = I32
	case thriftidl.I64:
		e.Wire = I64
	case thriftidl.Double:
		e.Wire = Double
	case thriftidl.String, thriftidl.Binary:
		e.Wire = String
	case thriftidl.UUID:
		e.Wire = UUID
	case thriftidl.List:
		e.Wire, e.Elem = List, b.typeIndex(t.Elem)
	case thriftidl.Set:
		e.Wire, e.Elem = Set, b.typeIndex(t.Elem)
	case thriftidl.Map:
		e.Wire, e.Key, e.Elem = Map, b.typeIndex(t.Key), b.typeIndex(t.Elem)
	case thriftidl.Named:
		if t.Enum != nil {
			e.Wire = I32
			break
		}
		e.Wire, e.Struct = Struct, b.structIndex(t.Struct)
	}
	if i, ok := b.types[e]; ok {
		return i
	}
	b.types[e] = len(b.t.Types)
	b.t.Types = append(b.t.Types, e)
	return len(b.t.Types) - 1
}

// structIndex numbers an IDL struct when first reached.
func (b *builder) structIndex(s *thriftidl.Struct) int {
	if i, ok := b.index[s]; ok {
		return i
	}
	i := len(b.t.Structs)
	b.index[s] = i
	b.src = append(b.src, s)
	b.t.Structs = append(b.t.Structs, StructEntry{Name: s.Name, Kind: int(s.Kind)})
	return i
}

// depths sets every struct's Depth, and fails on a struct that contains itself.
func (b *builder) depths() error {
	const (
		unvisited = iota
		visiting
		done
	)
	state := make([]int, len(b.t.Structs))
	var path []int
	var structDepth func(i int) error
	var typeDepth func(ti int) (int, error)
	typeDepth = func(ti int) (int, error) {
		ty := b.t.Types[ti]
		switch ty.Wire {
		case Struct:
			if err := structDepth(ty.Struct); err != nil {
				return 0, err
			}
			return b.t.Structs[ty.Struct].Depth, nil
		case List, Set, Map:
			d, err := typeDepth(ty.Elem)
			if err != nil {
				return 0, err
			}
			if ty.Key >= 0 {
				k, err := typeDepth(ty.Key)
				if err != nil {
					return 0, err
				}
				d = max(d, k)
			}
			return 1 + d, nil
		}
		return 0, nil
	}
	structDepth = func(i int) error {
		switch state[i] {
		case done:
			return nil
		case visiting:
			var names []string
			for _, j := range path[indexOf(path, i):] {
				names = append(names, b.t.Structs[j].Name)
			}
			names = append(names, b.t.Structs[i].Name)
			return fmt.Errorf("struct %s contains itself (%s): its nesting depth has no bound", b.t.Structs[i].Name, strings.Join(names, " > "))
		}
		state[i] = visiting
		path = append(path, i)
		d := 0
		for _, f := range b.bodies[i] {
			fd, err := typeDepth(f.Type)
			if err != nil {
				return err
			}
			d = max(d, fd)
		}
		b.t.Structs[i].Depth = 1 + d
		path = path[:len(path)-1]
		state[i] = done
		return nil
	}
	for i := range b.t.Structs {
		if err := structDepth(i); err != nil {
			return err
		}
	}
	return nil
}

func indexOf(s []int, v int) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// qualifyNames writes "prefix.Name" for IDL structs whose names clash.
func (b *builder) qualifyNames() {
	count := map[string]int{}
	for _, s := range b.t.Structs {
		count[s.Name]++
	}
	for i, s := range b.src {
		e := &b.t.Structs[len(b.t.Structs)-len(b.src)+i]
		if count[e.Name] > 1 {
			base := s.Doc.File[strings.LastIndexAny(s.Doc.File, `/\`)+1:]
			e.Name = strings.TrimSuffix(base, ".thrift") + "." + s.Name
		}
	}
}
