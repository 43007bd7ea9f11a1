package thriftidl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Program is an IDL file with every file it includes, loaded and resolved.
type Program struct {
	Root *Document
	Docs []*Document // every file once, each after the files it includes; Root last
}

// ErrorList is the errors found in a loaded program, in file and position
// order; its text is one error a line.
type ErrorList []*Error

func (l ErrorList) Error() string {
	s := make([]string, len(l))
	for i, e := range l {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// Load parses the IDL file at path and the files it includes (each path
// relative to the including file's directory), then resolves and checks
// every name. An IDL error is an *Error or an ErrorList; a root file that
// cannot be read is the plain error of os.ReadFile.
func Load(path string) (*Program, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	l := &loader{byPath: map[string]*Document{}}
	root, err := l.load(filepath.Clean(path), src, nil)
	if err != nil {
		return nil, err
	}
	prog := &Program{Root: root, Docs: l.order}
	if errs := prog.resolve(); len(errs) > 0 {
		return nil, errs
	}
	return prog, nil
}

type loader struct {
	byPath map[string]*Document
	order  []*Document
}

// load parses path (already read as src) and, depth first, what it
// includes; stack holds the files being loaded, to find cycles.
func (l *loader) load(path string, src []byte, stack []string) (*Document, error) {
	doc, err := Parse(path, src)
	if err != nil {
		return nil, err
	}
	stack = append(stack, path)
	for _, inc := range doc.Includes {
		ipath := filepath.Join(filepath.Dir(path), inc.Path)
		for i, s := range stack {
			if s == ipath {
				cycle := append(append([]string{}, stack[i:]...), ipath)
				return nil, errorf(inc.Pos, "include cycle: %s", strings.Join(cycle, " -> "))
			}
		}
		if d, ok := l.byPath[ipath]; ok {
			inc.Doc = d
			continue
		}
		isrc, err := os.ReadFile(ipath)
		if err != nil {
			msg := err.Error()
			if errors.Is(err, fs.ErrNotExist) {
				msg = "no such file"
			}
			return nil, errorf(inc.Pos, "include %q: cannot read %s: %s", inc.Path, ipath, msg)
		}
		if inc.Doc, err = l.load(ipath, isrc, stack); err != nil {
			return nil, err
		}
	}
	l.byPath[path] = doc
	l.order = append(l.order, doc)
	return doc, nil
}

// decl is anything a document defines at the top level.
type decl struct {
	pos  Pos
	kind string // "struct", "union", "exception", "enum", "typedef", "const", "service"
	st   *Struct
	en   *Enum
	td   *Typedef
	co   *Const
	sv   *Service
}

type resolver struct {
	names map[*Document]map[string]*decl
	errs  ErrorList
}

func (r *resolver) errorf(pos Pos, format string, args ...any) {
	r.errs = append(r.errs, errorf(pos, format, args...))
}

func (prog *Program) resolve() ErrorList {
	r := &resolver{names: map[*Document]map[string]*decl{}}
	for _, d := range prog.Docs {
		r.collect(d)
	}
	for _, d := range prog.Docs {
		r.resolveDoc(d)
	}
	order := map[string]int{}
	for i, d := range prog.Docs {
		order[d.File] = i
	}
	sort.SliceStable(r.errs, func(i, j int) bool {
		a, b := r.errs[i].Pos, r.errs[j].Pos
		if a.File != b.File {
			return order[a.File] < order[b.File]
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return r.errs
}

// collect records a document's top-level names; a name defined twice is an
// error at the second definition.
func (r *resolver) collect(d *Document) {
	m := map[string]*decl{}
	r.names[d] = m
	add := func(name string, x *decl) {
		if old, ok := m[name]; ok {
			r.errorf(x.pos, "duplicate name %q: already defined at %s as %s", name, old.pos, old.kind)
			return
		}
		m[name] = x
	}
	for _, s := range d.Structs {
		add(s.Name, &decl{pos: s.Pos, kind: s.Kind.String(), st: s})
	}
	for _, e := range d.Enums {
		add(e.Name, &decl{pos: e.Pos, kind: "enum", en: e})
	}
	for _, t := range d.Typedefs {
		add(t.Name, &decl{pos: t.Pos, kind: "typedef", td: t})
	}
	for _, c := range d.Consts {
		add(c.Name, &decl{pos: c.Pos, kind: "const", co: c})
	}
	for _, s := range d.Services {
		add(s.Name, &decl{pos: s.Pos, kind: "service", sv: s})
	}
}

// lookup finds name ("Post" or "prefix.Post") as seen from d.
func (r *resolver) lookup(d *Document, name string) *decl {
	if x, ok := r.names[d][name]; ok {
		return x
	}
	prefix, rest, ok := strings.Cut(name, ".")
	if !ok {
		return nil
	}
	for _, inc := range d.Includes {
		if inc.Prefix == prefix && inc.Doc != nil {
			return r.names[inc.Doc][rest]
		}
	}
	return nil
}

func (r *resolver) resolveDoc(d *Document) {
	for _, t := range d.Typedefs {
		r.resolveType(d, t.Type)
	}
	for _, t := range d.Typedefs {
		r.checkTypedefCycle(t)
	}
	for _, c := range d.Consts {
		r.resolveType(d, c.Type)
		r.checkValue(d, c.Value)
	}
	for _, e := range d.Enums {
		seen := map[string]*EnumValue{}
		for _, v := range e.Values {
			if old, ok := seen[v.Name]; ok {
				r.errorf(v.Pos, "duplicate name %q in enum %s: already defined at %s", v.Name, e.Name, old.Pos)
			}
			seen[v.Name] = v
		}
	}
	for _, s := range d.Structs {
		r.resolveFields(d, s.Fields, fmt.Sprintf("%s %s", s.Kind, s.Name))
	}
	for _, s := range d.Services {
		r.resolveService(d, s)
	}
}

func (r *resolver) resolveType(d *Document, t *Type) {
	switch t.Kind {
	case List, Set:
		r.resolveType(d, t.Elem)
	case Map:
		r.resolveType(d, t.Key)
		r.resolveType(d, t.Elem)
	case Named:
		x := r.lookup(d, t.Name)
		switch {
		case x == nil:
			r.errorf(t.Pos, "unknown type %q", t.Name)
		case x.st != nil:
			t.Struct = x.st
		case x.en != nil:
			t.Enum = x.en
		case x.td != nil:
			t.Typedef = x.td
		default:
			r.errorf(t.Pos, "%q is a %s, not a type", t.Name, x.kind)
		}
	}
}

// checkTypedefCycle reports a typedef that, through others, stands for itself.
func (r *resolver) checkTypedefCycle(td *Typedef) {
	seen := map[*Typedef]bool{td: true}
	for t := td.Type; t.Kind == Named && t.Typedef != nil; t = t.Typedef.Type {
		if seen[t.Typedef] {
			if t.Typedef == td {
				r.errorf(td.Pos, "typedef %s stands for itself", td.Name)
				// Break the cycle, so that Resolve ends.
				td.Type = &Type{Pos: td.Type.Pos, Kind: Named, Name: td.Type.Name}
			}
			return
		}
		seen[t.Typedef] = true
	}
}

func (r *resolver) resolveFields(d *Document, fs []*Field, owner string) {
	ids := map[int]*Field{}
	names := map[string]*Field{}
	for _, f := range fs {
		if old, ok := ids[f.ID]; ok {
			r.errorf(f.Pos, "duplicate field id %d in %s: already used by %q at %s", f.ID, owner, old.Name, old.Pos)
		}
		if old, ok := names[f.Name]; ok {
			r.errorf(f.Pos, "duplicate field name %q in %s: already defined at %s", f.Name, owner, old.Pos)
		}
		ids[f.ID], names[f.Name] = f, f
		r.resolveType(d, f.Type)
		if f.Default != nil {
			r.checkValue(d, f.Default)
		}
	}
}

// checkValue reports identifiers in a constant that name no enum constant
// or const.
func (r *resolver) checkValue(d *Document, v *ConstValue) {
	switch v.Kind {
	case ListValue:
		for _, e := range v.List {
			r.checkValue(d, e)
		}
	case MapValue:
		for i := range v.Keys {
			r.checkValue(d, v.Keys[i])
			r.checkValue(d, v.Values[i])
		}
	case IdentValue:
		if x := r.lookup(d, v.Text); x != nil && x.co != nil {
			return
		}
		i := strings.LastIndex(v.Text, ".")
		if i < 0 {
			r.errorf(v.Pos, "undefined constant %q (an enum constant is written Enum.NAME)", v.Text)
			return
		}
		x := r.lookup(d, v.Text[:i])
		if x == nil || x.en == nil {
			r.errorf(v.Pos, "undefined enum constant %q: no enum %q", v.Text, v.Text[:i])
			return
		}
		for _, ev := range x.en.Values {
			if ev.Name == v.Text[i+1:] {
				return
			}
		}
		r.errorf(v.Pos, "undefined enum constant %q: enum %s has no %s", v.Text, x.en.Name, v.Text[i+1:])
	}
}

func (r *resolver) resolveService(d *Document, s *Service) {
	if s.Extends != "" {
		x := r.lookup(d, s.Extends)
		if x == nil || x.sv == nil {
			r.errorf(s.Pos, "service %s extends %q, which is not a service", s.Name, s.Extends)
		} else {
			s.Parent = x.sv
			for p := s.Parent; p != nil; p = p.Parent {
				if p == s {
					r.errorf(s.Pos, "service %s extends itself", s.Name)
					s.Parent = nil
					break
				}
			}
		}
	}
	names := map[string]*Function{}
	for _, f := range s.Functions {
		if old, ok := names[f.Name]; ok {
			r.errorf(f.Pos, "duplicate function %q in service %s: already defined at %s", f.Name, s.Name, old.Pos)
		}
		names[f.Name] = f
		if f.Returns != nil {
			r.resolveType(d, f.Returns)
		}
		r.resolveFields(d, f.Args, "the arguments of "+f.Name)
		r.resolveFields(d, f.Throws, "the exceptions of "+f.Name)
		for _, e := range f.Throws {
			if t := e.Type.Resolve(); t.Kind != Named || t.Struct == nil || t.Struct.Kind != KindException {
				if t.Kind != Named || t.Struct != nil || t.Enum != nil {
					r.errorf(e.Type.Pos, "%s throws %q, which is not an exception", f.Name, e.Type.Name)
				}
			}
		}
	}
}

// Service returns the service named name in the root file ("prefix.Name"
// for one in an included file), or nil.
func (prog *Program) Service(name string) *Service {
	for _, s := range prog.Root.Services {
		if s.Name == name {
			return s
		}
	}
	prefix, rest, ok := strings.Cut(name, ".")
	if !ok {
		return nil
	}
	for _, inc := range prog.Root.Includes {
		if inc.Prefix == prefix {
			for _, s := range inc.Doc.Services {
				if s.Name == rest {
					return s
				}
			}
		}
	}
	return nil
}
