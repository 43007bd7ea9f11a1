package thriftidl

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
)

// Parse parses one IDL file's text. Includes are recorded, not read: Load
// reads them. Names are not resolved either.
func Parse(file string, src []byte) (*Document, error) {
	p := &parser{lex: newLexer(file, src), doc: &Document{File: file}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if err := p.document(); err != nil {
		return nil, err
	}
	return p.doc, nil
}

type parser struct {
	lex *lexer
	tok token
	doc *Document
}

func (p *parser) advance() error {
	t, err := p.lex.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) is(punct string) bool { return p.tok.kind == tPunct && p.tok.text == punct }

func (p *parser) isKeyword(kw string) bool { return p.tok.kind == tIdent && p.tok.text == kw }

func (p *parser) expected(what string) error {
	return errorf(p.tok.pos, "expected %s, found %s", what, p.tok.describe())
}

// expect consumes the punctuation punct.
func (p *parser) expect(punct string) error {
	if !p.is(punct) {
		return p.expected(fmt.Sprintf("%q", punct))
	}
	return p.advance()
}

// skipSeparator consumes an optional list separator, "," or ";".
func (p *parser) skipSeparator() error {
	if p.is(",") || p.is(";") {
		return p.advance()
	}
	return nil
}

// topLevel are the keywords that start a definition.
var topLevel = map[string]bool{
	"namespace": true, "include": true, "cpp_include": true, "const": true, "typedef": true,
	"enum": true, "struct": true, "union": true, "exception": true, "service": true,
}

var keywords = map[string]bool{
	"namespace": true, "include": true, "cpp_include": true, "const": true, "typedef": true,
	"enum": true, "struct": true, "union": true, "exception": true, "service": true,
	"extends": true, "oneway": true, "throws": true, "void": true, "required": true,
	"optional": true, "list": true, "set": true, "map": true,
}

// name consumes an identifier that is not a keyword or base type; what
// says what it names ("struct name").
func (p *parser) name(what string) (string, Pos, error) {
	t := p.tok
	if t.kind != tIdent {
		return "", t.pos, p.expected(what)
	}
	if _, base := baseNames[t.text]; keywords[t.text] || base {
		return "", t.pos, errorf(t.pos, "expected %s, found keyword %q", what, t.text)
	}
	if strings.Contains(t.text, ".") {
		return "", t.pos, errorf(t.pos, "expected %s, found %q: a name defined here has no dot", what, t.text)
	}
	return t.text, t.pos, p.advance()
}

func (p *parser) document() error {
	for p.tok.kind != tEOF {
		if p.tok.kind != tIdent {
			return p.expected("a definition (namespace, include, const, typedef, enum, struct, union, exception, service)")
		}
		var err error
		switch p.tok.text {
		case "namespace":
			err = p.namespace()
		case "include", "cpp_include":
			err = p.include()
		case "const":
			err = p.constDef()
		case "typedef":
			err = p.typedef()
		case "enum":
			err = p.enum()
		case "struct", "union", "exception":
			err = p.structDef()
		case "service":
			err = p.service()
		default:
			err = p.expected("a definition (namespace, include, const, typedef, enum, struct, union, exception, service)")
		}
		if err != nil {
			return err
		}
		if err := p.skipSeparator(); err != nil {
			return err
		}
	}
	return nil
}

func (p *parser) namespace() error {
	pos := p.tok.pos
	if err := p.advance(); err != nil {
		return err
	}
	var scope string
	switch {
	case p.is("*"):
		scope = "*"
	case p.tok.kind == tIdent:
		scope = p.tok.text
	default:
		return p.expected("namespace scope (a language name or *)")
	}
	if err := p.advance(); err != nil {
		return err
	}
	if p.tok.kind != tIdent && p.tok.kind != tString {
		return p.expected("namespace name")
	}
	p.doc.Namespaces = append(p.doc.Namespaces, Namespace{pos, scope, p.tok.text})
	if err := p.advance(); err != nil {
		return err
	}
	return p.annotations()
}

func (p *parser) include() error {
	cpp := p.tok.text == "cpp_include"
	pos := p.tok.pos
	if err := p.advance(); err != nil {
		return err
	}
	if p.tok.kind != tString {
		return p.expected("file name in quotes")
	}
	path := p.tok.text
	if cpp {
		p.doc.CppIncludes = append(p.doc.CppIncludes, path)
	} else {
		prefix := strings.TrimSuffix(filepath.Base(path), ".thrift")
		p.doc.Includes = append(p.doc.Includes, &Include{Pos: pos, Path: path, Prefix: prefix})
	}
	return p.advance()
}

func (p *parser) constDef() error {
	c := &Const{Pos: p.tok.pos, Doc: p.doc}
	if err := p.advance(); err != nil {
		return err
	}
	var err error
	if c.Type, err = p.fieldType(); err != nil {
		return err
	}
	if c.Name, _, err = p.name("constant name"); err != nil {
		return err
	}
	if err := p.expect("="); err != nil {
		return err
	}
	if c.Value, err = p.constValue(); err != nil {
		return err
	}
	p.doc.Consts = append(p.doc.Consts, c)
	return p.annotations()
}

func (p *parser) typedef() error {
	td := &Typedef{Pos: p.tok.pos, Doc: p.doc}
	if err := p.advance(); err != nil {
		return err
	}
	var err error
	if td.Type, err = p.fieldType(); err != nil {
		return err
	}
	if td.Name, _, err = p.name("typedef name"); err != nil {
		return err
	}
	p.doc.Typedefs = append(p.doc.Typedefs, td)
	return p.annotations()
}

func (p *parser) enum() error {
	e := &Enum{Pos: p.tok.pos, Doc: p.doc}
	if err := p.advance(); err != nil {
		return err
	}
	var err error
	if e.Name, _, err = p.name("enum name"); err != nil {
		return err
	}
	if err := p.annotations(); err != nil {
		return err
	}
	if err := p.expect("{"); err != nil {
		return err
	}
	next := int64(0)
	for !p.is("}") {
		v := &EnumValue{}
		if v.Name, v.Pos, err = p.name(fmt.Sprintf("enum constant or \"}\" closing enum %s", e.Name)); err != nil {
			return err
		}
		v.Value = next
		if p.is("=") {
			if err := p.advance(); err != nil {
				return err
			}
			if p.tok.kind != tInt {
				return p.expected("integer value of " + v.Name)
			}
			n, err := parseInt(p.tok)
			if err != nil {
				return err
			}
			if n < math.MinInt32 || n > math.MaxInt32 {
				return errorf(p.tok.pos, "enum value %d of %s is outside i32", n, v.Name)
			}
			v.Value = n
			if err := p.advance(); err != nil {
				return err
			}
		} else if next > math.MaxInt32 {
			return errorf(v.Pos, "implicit value %d of %s is outside i32", next, v.Name)
		}
		next = v.Value + 1
		e.Values = append(e.Values, v)
		if err := p.annotations(); err != nil {
			return err
		}
		if err := p.skipSeparator(); err != nil {
			return err
		}
	}
	p.doc.Enums = append(p.doc.Enums, e)
	if err := p.advance(); err != nil {
		return err
	}
	return p.annotations()
}

func (p *parser) structDef() error {
	s := &Struct{Pos: p.tok.pos, Doc: p.doc}
	s.Kind = map[string]StructKind{"struct": KindStruct, "union": KindUnion, "exception": KindException}[p.tok.text]
	if err := p.advance(); err != nil {
		return err
	}
	var err error
	if s.Name, _, err = p.name(s.Kind.String() + " name"); err != nil {
		return err
	}
	if p.isKeyword("xsd_all") {
		return errorf(p.tok.pos, "xsd_all is not supported")
	}
	if err := p.annotations(); err != nil {
		return err
	}
	if err := p.expect("{"); err != nil {
		return err
	}
	if s.Fields, err = p.fields("}", fmt.Sprintf("%s %s", s.Kind, s.Name)); err != nil {
		return err
	}
	p.doc.Structs = append(p.doc.Structs, s)
	return p.annotations()
}

// fields parses fields up to and including the closing punctuation end;
// owner names what they belong to, for error messages.
func (p *parser) fields(end, owner string) ([]*Field, error) {
	var fs []*Field
	for !p.is(end) {
		if p.tok.kind == tEOF || p.tok.kind == tIdent && topLevel[p.tok.text] {
			return nil, p.expected(fmt.Sprintf("field or %q closing %s", end, owner))
		}
		f, err := p.field()
		if err != nil {
			return nil, err
		}
		fs = append(fs, f)
		if err := p.skipSeparator(); err != nil {
			return nil, err
		}
	}
	return fs, p.advance()
}

// field parses "ID: [required|optional] TYPE NAME [= VALUE] [(annotations)]".
func (p *parser) field() (*Field, error) {
	f := &Field{Pos: p.tok.pos}
	if p.tok.kind != tInt {
		if p.tok.kind == tIdent {
			return nil, errorf(p.tok.pos, "expected field id, found %s (implicit field ids are not supported: number every field, 1 to 32767)", p.tok.describe())
		}
		return nil, p.expected("field id")
	}
	id, err := parseInt(p.tok)
	if err != nil {
		return nil, err
	}
	if id < 1 || id > math.MaxInt16 {
		return nil, errorf(p.tok.pos, "field id %d out of range: ids are 1 to 32767 (0 is the result's success, negative ids are not supported)", id)
	}
	f.ID = int(id)
	if err := p.advance(); err != nil {
		return nil, err
	}
	if err := p.expect(":"); err != nil {
		return nil, err
	}
	switch {
	case p.isKeyword("required"):
		f.Req = Required
	case p.isKeyword("optional"):
		f.Req = Optional
	}
	if f.Req != Default {
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	if f.Type, err = p.fieldType(); err != nil {
		return nil, err
	}
	if f.Name, _, err = p.name("field name"); err != nil {
		return nil, err
	}
	if p.is("=") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		if f.Default, err = p.constValue(); err != nil {
			return nil, err
		}
	}
	return f, p.annotations()
}

// fieldType parses a base type, a container or a type name.
func (p *parser) fieldType() (*Type, error) {
	t := &Type{Pos: p.tok.pos, Name: p.tok.text}
	if p.tok.kind != tIdent {
		return nil, p.expected("type")
	}
	if k, ok := baseNames[p.tok.text]; ok {
		t.Kind = k
		if err := p.advance(); err != nil {
			return nil, err
		}
		return t, p.annotations()
	}
	switch p.tok.text {
	case "list", "set", "map":
		return p.container(t)
	case "void":
		return nil, errorf(p.tok.pos, "void is only a function's return type")
	}
	if keywords[p.tok.text] {
		return nil, errorf(p.tok.pos, "expected type, found keyword %q", p.tok.text)
	}
	t.Kind = Named
	if err := p.advance(); err != nil {
		return nil, err
	}
	return t, p.annotations()
}

func (p *parser) container(t *Type) (*Type, error) {
	kw := p.tok.text
	t.Kind = map[string]BaseKind{"list": List, "set": Set, "map": Map}[kw]
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.isKeyword("cpp_type") {
		return nil, errorf(p.tok.pos, "cpp_type is not supported")
	}
	if err := p.expect("<"); err != nil {
		return nil, err
	}
	var err error
	if kw == "map" {
		if t.Key, err = p.fieldType(); err != nil {
			return nil, err
		}
		if err := p.expect(","); err != nil {
			return nil, err
		}
	}
	if t.Elem, err = p.fieldType(); err != nil {
		return nil, err
	}
	if err := p.expect(">"); err != nil {
		return nil, err
	}
	return t, p.annotations()
}

// constValue parses an integer, double, string, identifier, [list] or {map}.
func (p *parser) constValue() (*ConstValue, error) {
	v := &ConstValue{Pos: p.tok.pos}
	switch {
	case p.tok.kind == tInt:
		n, err := parseInt(p.tok)
		if err != nil {
			return nil, err
		}
		v.Kind, v.Int = IntValue, n
	case p.tok.kind == tDouble:
		d, err := strconv.ParseFloat(p.tok.text, 64)
		if err != nil {
			return nil, errorf(p.tok.pos, "bad number %q", p.tok.text)
		}
		v.Kind, v.Double = DoubleValue, d
	case p.tok.kind == tString:
		v.Kind, v.Text = StringValue, p.tok.text
	case p.isKeyword("true") || p.isKeyword("false"): // as Apache: the integers 1 and 0
		v.Kind, v.Text = IntValue, p.tok.text
		if p.tok.text == "true" {
			v.Int = 1
		}
	case p.tok.kind == tIdent:
		v.Kind, v.Text = IdentValue, p.tok.text
	case p.is("["):
		v.Kind = ListValue
		if err := p.advance(); err != nil {
			return nil, err
		}
		for !p.is("]") {
			e, err := p.constValue()
			if err != nil {
				return nil, err
			}
			v.List = append(v.List, e)
			if err := p.skipSeparator(); err != nil {
				return nil, err
			}
		}
	case p.is("{"):
		v.Kind = MapValue
		if err := p.advance(); err != nil {
			return nil, err
		}
		for !p.is("}") {
			k, err := p.constValue()
			if err != nil {
				return nil, err
			}
			if err := p.expect(":"); err != nil {
				return nil, err
			}
			e, err := p.constValue()
			if err != nil {
				return nil, err
			}
			v.Keys, v.Values = append(v.Keys, k), append(v.Values, e)
			if err := p.skipSeparator(); err != nil {
				return nil, err
			}
		}
	default:
		return nil, p.expected("constant value")
	}
	return v, p.advance()
}

func parseInt(t token) (int64, error) {
	s := t.text
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")
	var u uint64
	var err error
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		u, err = strconv.ParseUint(s[2:], 16, 64)
	} else {
		u, err = strconv.ParseUint(s, 10, 64)
	}
	if err != nil || u > math.MaxInt64 && !(neg && u == 1<<63) {
		return 0, errorf(t.pos, "integer %s does not fit in 64 bits", t.text)
	}
	if neg {
		return -int64(u), nil
	}
	return int64(u), nil
}

// annotations skips an optional "(key = "value", key2, ...)".
func (p *parser) annotations() error {
	if !p.is("(") {
		return nil
	}
	if err := p.advance(); err != nil {
		return err
	}
	for !p.is(")") {
		if p.tok.kind != tIdent {
			return p.expected("annotation name or \")\"")
		}
		if err := p.advance(); err != nil {
			return err
		}
		if p.is("=") {
			if err := p.advance(); err != nil {
				return err
			}
			if p.tok.kind != tString && p.tok.kind != tInt && p.tok.kind != tIdent {
				return p.expected("annotation value")
			}
			if err := p.advance(); err != nil {
				return err
			}
		}
		if err := p.skipSeparator(); err != nil {
			return err
		}
	}
	return p.advance()
}

func (p *parser) service() error {
	s := &Service{Pos: p.tok.pos, Doc: p.doc}
	if err := p.advance(); err != nil {
		return err
	}
	var err error
	if s.Name, _, err = p.name("service name"); err != nil {
		return err
	}
	if p.isKeyword("extends") {
		if err := p.advance(); err != nil {
			return err
		}
		if p.tok.kind != tIdent || keywords[p.tok.text] {
			return p.expected("name of the service extended")
		}
		s.Extends = p.tok.text
		if err := p.advance(); err != nil {
			return err
		}
	}
	if err := p.annotations(); err != nil {
		return err
	}
	if err := p.expect("{"); err != nil {
		return err
	}
	for !p.is("}") {
		if p.tok.kind == tEOF || p.tok.kind == tIdent && topLevel[p.tok.text] {
			return p.expected(fmt.Sprintf("function or \"}\" closing service %s", s.Name))
		}
		f, err := p.function(s)
		if err != nil {
			return err
		}
		s.Functions = append(s.Functions, f)
		if err := p.skipSeparator(); err != nil {
			return err
		}
	}
	p.doc.Services = append(p.doc.Services, s)
	if err := p.advance(); err != nil {
		return err
	}
	return p.annotations()
}

func (p *parser) function(s *Service) (*Function, error) {
	f := &Function{Pos: p.tok.pos, Service: s}
	if p.isKeyword("oneway") {
		f.Oneway = true
		if err := p.advance(); err != nil {
			return nil, err
		}
	}
	if p.isKeyword("void") {
		if err := p.advance(); err != nil {
			return nil, err
		}
	} else {
		if p.tok.kind != tIdent {
			return nil, p.expected(fmt.Sprintf("function return type or \"}\" closing service %s", s.Name))
		}
		var err error
		if f.Returns, err = p.fieldType(); err != nil {
			return nil, err
		}
	}
	var err error
	var namePos Pos
	if f.Name, namePos, err = p.name("function name"); err != nil {
		return nil, err
	}
	if err := p.expect("("); err != nil {
		return nil, err
	}
	if f.Args, err = p.fields(")", "the arguments of "+f.Name); err != nil {
		return nil, err
	}
	if p.isKeyword("throws") {
		if err := p.advance(); err != nil {
			return nil, err
		}
		if err := p.expect("("); err != nil {
			return nil, err
		}
		if f.Throws, err = p.fields(")", "the exceptions of "+f.Name); err != nil {
			return nil, err
		}
	}
	if f.Oneway && f.Returns != nil {
		return nil, errorf(namePos, "oneway function %s must return void", f.Name)
	}
	if f.Oneway && len(f.Throws) > 0 {
		return nil, errorf(namePos, "oneway function %s cannot throw", f.Name)
	}
	return f, p.annotations()
}
