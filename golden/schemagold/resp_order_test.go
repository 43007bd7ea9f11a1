package schemagold_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"arcalis/thriftidl"
	"arcalis/thriftidl/schema"
)

// writeOrders parses the Go files under dir and returns, for each type with
// a Write method (by normalized name), the field ids its writeFieldN calls
// name, in the order Write makes them.
func writeOrders(t *testing.T, dir string) map[string][]int16 {
	t.Helper()
	out := map[string][]int16{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "Write" {
				continue
			}
			star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
			if !ok {
				continue
			}
			name := orderName(star.X.(*ast.Ident).Name)
			ids := []int16{}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "writeField") {
					id, err := strconv.Atoi(strings.TrimPrefix(sel.Sel.Name, "writeField"))
					if err != nil {
						t.Fatalf("%s: %s", name, sel.Sel.Name)
					}
					ids = append(ids, int16(id))
				}
				return true
			})
			out[name] = ids
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func orderName(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }

// checkOrder fails unless every struct of tab is written by Apache's
// generated Write in the tables' field order (ascending ids), Serialize's.
func checkOrder(t *testing.T, tab *schema.Table, orders map[string][]int16) int {
	t.Helper()
	checked := 0
	for i, s := range tab.Structs {
		name := orderName(s.Name[strings.LastIndex(s.Name, ".")+1:])
		for _, m := range tab.Methods {
			switch i {
			case m.Args:
				name = orderName(m.Service + m.Name + "Args")
			case m.Result:
				name = orderName(m.Service + m.Name + "Result")
			}
		}
		got, ok := orders[name]
		if !ok {
			t.Errorf("struct %s: Apache generated no %s.Write", s.Name, name)
			continue
		}
		want := []int16{}
		for _, f := range tab.StructFields(i) {
			want = append(want, f.ID)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("struct %s: Apache's Write writes fields %v, the tables' order is %v", s.Name, got, want)
		}
		checked++
	}
	return checked
}

// TestSchemagoldRespFieldOrder: Apache's generated Write methods write a
// struct's fields in ascending id order, whatever the IDL's order, which is
// the tables' order and Serialize's: checked on the code in internal/ for
// every service, and on code the compiler generates now for an IDL that
// declares fields and exceptions out of id order.
func TestSchemagoldRespFieldOrder(t *testing.T) {
	n := 0
	orders := writeOrders(t, filepath.Join("..", "..", "internal"))
	for _, svc := range services {
		n += checkOrder(t, svc.table(t), orders)
	}

	bin, err := exec.LookPath("thrift")
	if err != nil {
		t.Fatal("thrift not found: install Apache's compiler 0.17.0 (apt-get install -y thrift-compiler)")
	}
	dir := t.TempDir()
	idl := filepath.Join(dir, "order.thrift")
	src := `exception E1 { 2: string m, 1: i32 c }
exception E2 { 1: i32 c }
struct Inner { 9: bool z, 3: i64 c, 1: string a }
struct S { 3: i64 c, 1: string a, 2: required i32 b, 5: optional Inner d, 4: list<Inner> l }
service Order { S M(2: i32 y, 1: i32 x) throws (2: E1 e1, 1: E2 e2) }
`
	if err := os.WriteFile(idl, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(bin, "--gen", "go", "-out", dir, idl).CombinedOutput(); err != nil {
		t.Fatalf("thrift: %v\n%s", err, msg)
	}
	prog, err := thriftidl.Load(idl)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := schema.Build(prog, "Order")
	if err != nil {
		t.Fatal(err)
	}
	n += checkOrder(t, tab, writeOrders(t, dir))
	t.Logf("%d structs written in the tables' order", n)
}
