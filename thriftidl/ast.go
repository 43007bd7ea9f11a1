package thriftidl

// Document is one parsed IDL file.
type Document struct {
	File        string // path as opened
	Namespaces  []Namespace
	Includes    []*Include
	CppIncludes []string
	Consts      []*Const
	Enums       []*Enum
	Typedefs    []*Typedef
	Structs     []*Struct // structs, unions and exceptions, in file order
	Services    []*Service
}

// Namespace is "namespace SCOPE NAME".
type Namespace struct {
	Pos   Pos
	Scope string // "go", "cpp", "*", ...
	Name  string
}

// Include is "include PATH". Doc is set when the program is loaded.
type Include struct {
	Pos    Pos
	Path   string // as written
	Prefix string // the file name without directory and ".thrift": how names from it are qualified
	Doc    *Document
}

// BaseKind says what a Type is.
type BaseKind int

// Kinds of type. Named is a reference to a struct, union, exception, enum or
// typedef, resolved when the program is loaded.
const (
	Named BaseKind = iota
	Bool
	Byte // byte and i8
	I16
	I32
	I64
	Double
	String
	Binary
	UUID
	List
	Set
	Map
)

// baseNames maps the base-type keywords to their kinds.
var baseNames = map[string]BaseKind{
	"bool": Bool, "byte": Byte, "i8": Byte, "i16": I16, "i32": I32, "i64": I64,
	"double": Double, "string": String, "binary": Binary, "uuid": UUID,
}

// Type is a type as written, with its reference resolved after loading.
type Type struct {
	Pos  Pos
	Kind BaseKind
	Name string // as written: "i32", "list", "Post", "common.Post"
	Key  *Type  // map key
	Elem *Type  // list and set element, map value

	// Set by resolution for Named: exactly one of these is non-nil.
	Struct  *Struct
	Enum    *Enum
	Typedef *Typedef
}

// Resolve follows typedefs to the type they stand for.
func (t *Type) Resolve() *Type {
	for t.Kind == Named && t.Typedef != nil {
		t = t.Typedef.Type
	}
	return t
}

// Requiredness of a field.
type Requiredness int

// Requiredness values; Default is a field written with neither keyword.
const (
	Default Requiredness = iota
	Required
	Optional
)

func (r Requiredness) String() string {
	return [...]string{"default", "required", "optional"}[r]
}

// Field is a struct field, a function argument or a declared exception.
type Field struct {
	Pos     Pos
	ID      int
	Name    string
	Req     Requiredness
	Type    *Type
	Default *ConstValue // nil when none
}

// StructKind distinguishes struct, union and exception.
type StructKind int

// Kinds of struct.
const (
	KindStruct StructKind = iota
	KindUnion
	KindException
)

func (k StructKind) String() string { return [...]string{"struct", "union", "exception"}[k] }

// Struct is a struct, union or exception.
type Struct struct {
	Pos    Pos
	Kind   StructKind
	Name   string
	Fields []*Field
	Doc    *Document
}

// Enum is an enum; values are i32 on the wire.
type Enum struct {
	Pos    Pos
	Name   string
	Values []*EnumValue
	Doc    *Document
}

// EnumValue is one enum constant with its value (explicit or implicit).
type EnumValue struct {
	Pos   Pos
	Name  string
	Value int64
}

// Typedef is "typedef TYPE NAME".
type Typedef struct {
	Pos  Pos
	Name string
	Type *Type
	Doc  *Document
}

// Const is "const TYPE NAME = VALUE".
type Const struct {
	Pos   Pos
	Name  string
	Type  *Type
	Value *ConstValue
	Doc   *Document
}

// ValueKind says what a ConstValue holds.
type ValueKind int

// Kinds of constant value.
const (
	IntValue ValueKind = iota
	DoubleValue
	StringValue
	IdentValue // a reference to an enum constant or a const
	ListValue
	MapValue
)

// ConstValue is a constant as written.
type ConstValue struct {
	Pos    Pos
	Kind   ValueKind
	Int    int64
	Double float64
	Text   string        // string literal, the identifier of IdentValue, or "true"/"false" (IntValue 1/0)
	List   []*ConstValue // ListValue
	Keys   []*ConstValue // MapValue, parallel to Values
	Values []*ConstValue
}

// Service is a service with its functions.
type Service struct {
	Pos       Pos
	Name      string
	Extends   string   // as written, "" when none
	Parent    *Service // resolved Extends
	Functions []*Function
	Doc       *Document
}

// Function is a service method.
type Function struct {
	Pos     Pos
	Name    string
	Oneway  bool
	Returns *Type // nil for void
	Args    []*Field
	Throws  []*Field
	Service *Service
}
