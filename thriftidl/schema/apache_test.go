package schema_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"arcalis/thriftidl/schema"
)

func writeFile(t *testing.T, path, src string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// apacheField is a field as Apache's generated Go code writes it.
type apacheField struct {
	ID       int
	Name     string
	Wire     uint8
	Elems    []uint8 // element, key and value types of WriteListBegin/SetBegin/MapBegin, in the order written
	Required bool
}

var thriftConst = map[string]uint8{"BOOL": schema.Bool, "BYTE": schema.Byte, "I08": schema.Byte, "DOUBLE": schema.Double,
	"I16": schema.I16, "I32": schema.I32, "I64": schema.I64, "STRING": schema.String, "STRUCT": schema.Struct,
	"MAP": schema.Map, "SET": schema.Set, "LIST": schema.List, "UUID": schema.UUID}

// thriftType reads "thrift.I64" as its type id.
func thriftType(t *testing.T, e ast.Expr) uint8 {
	t.Helper()
	sel, ok := e.(*ast.SelectorExpr)
	if x, isIdent := sel.X.(*ast.Ident); !ok || !isIdent || x.Name != "thrift" {
		t.Fatalf("expected thrift.TYPE, found %T", e)
	}
	w, ok := thriftConst[sel.Sel.Name]
	if !ok {
		t.Fatalf("unknown thrift type constant %s", sel.Sel.Name)
	}
	return w
}

// apacheStructs reads the Go files thrift --gen go wrote under dir: every
// struct type's fields from its `thrift:"name,id[,required]"` tags, and
// their wire types from its writeFieldN methods.
func apacheStructs(t *testing.T, dir string) map[string]map[int]*apacheField {
	t.Helper()
	out := map[string]map[int]*apacheField{}
	fset := token.NewFileSet()
	var files []*ast.File
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasSuffix(p, "-remote") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			f, err := parser.ParseFile(fset, p, nil, 0)
			if err != nil {
				return err
			}
			files = append(files, f)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range g.Specs {
				ts, ok := spec.(*ast.TypeSpec)
				if !ok {
					continue
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, fl := range st.Fields.List {
					if fl.Tag == nil {
						continue
					}
					tag, _ := strconv.Unquote(fl.Tag.Value)
					th, ok := reflect.StructTag(tag).Lookup("thrift")
					if !ok {
						continue
					}
					parts := strings.Split(th, ",")
					id, err := strconv.Atoi(parts[1])
					if err != nil {
						t.Fatalf("%s: tag %q", ts.Name.Name, th)
					}
					key := normName(ts.Name.Name)
					if out[key] == nil {
						out[key] = map[int]*apacheField{}
					}
					out[key][id] = &apacheField{ID: id, Name: parts[0], Required: len(parts) > 2 && parts[2] == "required"}
				}
			}
		}
	}
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || !strings.HasPrefix(fn.Name.Name, "writeField") {
				continue
			}
			star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
			if !ok {
				continue
			}
			typeName := normName(star.X.(*ast.Ident).Name)
			var fld *apacheField
			var elems []uint8
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				switch sel.Sel.Name {
				case "WriteFieldBegin": // (ctx, name, type, id)
					name, _ := strconv.Unquote(call.Args[1].(*ast.BasicLit).Value)
					id, _ := strconv.Atoi(call.Args[3].(*ast.BasicLit).Value)
					fld = out[typeName][id]
					if fld == nil || fld.Name != name {
						t.Fatalf("%s.%s writes field %d %q, which its tags do not declare", typeName, fn.Name.Name, id, name)
					}
					fld.Wire = thriftType(t, call.Args[2])
				case "WriteListBegin", "WriteSetBegin": // (ctx, elem, n)
					elems = append(elems, thriftType(t, call.Args[1]))
				case "WriteMapBegin": // (ctx, key, value, n)
					elems = append(elems, thriftType(t, call.Args[1]), thriftType(t, call.Args[2]))
				}
				return true
			})
			if fld == nil {
				t.Fatalf("%s.%s writes no field header", typeName, fn.Name.Name)
			}
			fld.Elems = elems
		}
	}
	return out
}

// elems is the types a writer of type i names, in the order Apache's code
// writes them: a container's element (or key and value), then theirs.
func elems(tab *schema.Table, i int) []uint8 {
	ty := tab.Types[i]
	switch ty.Wire {
	case schema.List, schema.Set:
		return append([]uint8{tab.Types[ty.Elem].Wire}, elems(tab, ty.Elem)...)
	case schema.Map:
		out := []uint8{tab.Types[ty.Key].Wire, tab.Types[ty.Elem].Wire}
		return append(append(out, elems(tab, ty.Key)...), elems(tab, ty.Elem)...)
	}
	return nil
}

// normName is a name in lower case without underscores: Apache's Go type
// names differ from the IDL's in case ("Url" is URL) and underscores.
func normName(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }

// apacheName is the (normalized) Go type Apache generates for struct i of
// the table: "<Service><Method>Args", "...Result", or the struct's name.
func apacheName(tab *schema.Table, i int) string {
	s := tab.Structs[i]
	for _, m := range tab.Methods {
		switch i {
		case m.Args:
			return normName(m.Service + m.Name + "Args")
		case m.Result:
			return normName(m.Service + m.Name + "Result")
		}
	}
	return normName(s.Name[strings.LastIndex(s.Name, ".")+1:])
}

// TestApacheCrossCheck generates Go code from each IDL with Apache's
// compiler and checks that every struct of the tables has exactly the
// field ids, names, wire types (with element, key and value types) and
// required flags of Apache's struct, and that Apache has no args or result
// struct the tables lack.
func TestIdlApacheCrossCheck(t *testing.T) {
	bin, err := exec.LookPath("thrift")
	if err != nil {
		t.Fatal("thrift not found: install Apache's compiler 0.17.0 (apt-get install -y thrift-compiler)")
	}
	if v, err := exec.Command(bin, "--version").Output(); err != nil || !strings.Contains(string(v), "0.17.0") {
		t.Fatalf("thrift --version: %q, %v; want 0.17.0, the version of the Go library in go.mod", v, err)
	}
	cases := []struct{ path, service string }{
		{idl("unique_id.thrift"), "UniqueIdService"},
		{idl("url_shorten.thrift"), "UrlShortenService"},
		{idl("post_storage.thrift"), "PostStorageService"},
		{idl("user_timeline.thrift"), "UserTimelineService"},
		{idl("memcached.thrift"), "MemcachedService"},
		{filepath.Join("..", "testdata", "features.thrift"), "Store"},
	}
	for _, c := range cases {
		t.Run(c.service, func(t *testing.T) {
			out := t.TempDir()
			cmd := exec.Command(bin, "-r", "--gen", "go", "-out", out, c.path)
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%v: %v\n%s", cmd.Args, err, msg)
			}
			apache := apacheStructs(t, out)
			tab := build(t, c.path, c.service)
			checked := map[string]bool{}
			for i, s := range tab.Structs {
				name := apacheName(tab, i)
				checked[name] = true
				want := apache[name]
				if want == nil && s.Count > 0 {
					t.Errorf("struct %s: Apache generated no %s", s.Name, name)
					continue
				}
				if len(want) != s.Count {
					t.Errorf("struct %s: %d fields, Apache's %s %d", s.Name, s.Count, name, len(want))
				}
				for _, f := range tab.StructFields(i) {
					a := want[int(f.ID)]
					got := apacheField{ID: int(f.ID), Name: f.Name, Wire: f.Wire, Elems: elems(tab, f.Type), Required: f.Req == 1}
					if a == nil || !reflect.DeepEqual(got, *a) {
						t.Errorf("struct %s field %d: tables %+v, Apache %+v", s.Name, f.ID, got, a)
					}
				}
			}
			var missing []string
			for name := range apache {
				if (strings.HasSuffix(name, "args") || strings.HasSuffix(name, "result")) && !checked[name] {
					missing = append(missing, name)
				}
			}
			sort.Strings(missing)
			if len(missing) > 0 {
				t.Errorf("Apache generated %v, which the tables lack", missing)
			}
			if len(checked) < 3 {
				t.Errorf("only %d structs checked", len(checked))
			}
		})
	}
}
