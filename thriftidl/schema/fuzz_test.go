package schema_test

import (
	"os"
	"path/filepath"
	"testing"

	"arcalis/thriftidl"
	"arcalis/thriftidl/schema"
)

// FuzzIdlBuild: every service of any IDL that loads gets its tables or an
// error, and the tables are consistent: indices in range, fields in
// ascending id order, slots numbered 0, 1, ... within each area.
func FuzzIdlBuild(f *testing.F) {
	for _, p := range []string{idl("post_storage.thrift"), idl("memcached.thrift"), filepath.Join("..", "testdata", "features.thrift")} {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte("struct N { 1: map<N, i32> m }\nservice S { N f(1: N n) }\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		path := filepath.Join(t.TempDir(), "in.thrift")
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		prog, err := thriftidl.Load(path)
		if err != nil {
			return
		}
		for _, s := range prog.Root.Services {
			tab, err := schema.Build(prog, s.Name)
			if err != nil {
				continue
			}
			for i, st := range tab.Structs {
				fixed, vars := 0, 0
				for k, fl := range tab.StructFields(i) {
					if k > 0 && tab.StructFields(i)[k-1].ID >= fl.ID {
						t.Fatalf("%s: fields not in ascending id order", st.Name)
					}
					if fl.Type < 0 || fl.Type >= len(tab.Types) || fl.Struct >= len(tab.Structs) {
						t.Fatalf("%s.%s: index out of range", st.Name, fl.Name)
					}
					n := &fixed
					if fl.Var {
						n = &vars
					}
					if fl.Slot != *n {
						t.Fatalf("%s.%s: slot %d, want %d", st.Name, fl.Name, fl.Slot, *n)
					}
					*n++
				}
				if fixed != st.FixedSlots || vars != st.VarSlots || st.Depth < 1 {
					t.Fatalf("%s: %d/%d slots, depth %d; fields give %d/%d", st.Name, st.FixedSlots, st.VarSlots, st.Depth, fixed, vars)
				}
			}
		}
	})
}
