package thriftidl_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"arcalis/thriftidl"
)

// typeText renders a resolved type: base types by keyword, containers with
// their element types, named types as "enum E", "struct S", "exception X".
func typeText(t *thriftidl.Type) string {
	r := t.Resolve()
	switch r.Kind {
	case thriftidl.List:
		return "list<" + typeText(r.Elem) + ">"
	case thriftidl.Set:
		return "set<" + typeText(r.Elem) + ">"
	case thriftidl.Map:
		return "map<" + typeText(r.Key) + "," + typeText(r.Elem) + ">"
	case thriftidl.Named:
		if r.Enum != nil {
			return "enum " + r.Enum.Name
		}
		return r.Struct.Kind.String() + " " + r.Struct.Name
	}
	return r.Name
}

// field is a field as the spec tables give it: "1 req_id i64".
type field struct {
	id   int
	name string
	typ  string
}

func fieldsText(fs []*thriftidl.Field) []field {
	var out []field
	for _, f := range fs {
		out = append(out, field{f.ID, f.Name, typeText(f.Type)})
	}
	return out
}

func checkFields(t *testing.T, what string, got []*thriftidl.Field, want []field) {
	t.Helper()
	g := fieldsText(got)
	if len(g) != len(want) {
		t.Errorf("%s: %d fields %v, want %d %v", what, len(g), g, len(want), want)
		return
	}
	for i := range want {
		if g[i] != want[i] {
			t.Errorf("%s field %d: got %v, want %v", what, i, g[i], want[i])
		}
	}
}

// The tables of the DeathStarBench spec, written out by hand.
const carrier = "map<string,string>"

var se = []field{{1, "se", "exception ServiceException"}}

var specStructs = []struct {
	kind, name string
	fields     []field
}{
	{"struct", "Creator", []field{{1, "user_id", "i64"}, {2, "username", "string"}}},
	{"struct", "Media", []field{{1, "media_id", "i64"}, {2, "media_type", "string"}}},
	{"struct", "Url", []field{{1, "shortened_url", "string"}, {2, "expanded_url", "string"}}},
	{"struct", "UserMention", []field{{1, "user_id", "i64"}, {2, "username", "string"}}},
	{"struct", "Post", []field{
		{1, "post_id", "i64"}, {2, "creator", "struct Creator"}, {3, "req_id", "i64"}, {4, "text", "string"},
		{5, "user_mentions", "list<struct UserMention>"}, {6, "media", "list<struct Media>"},
		{7, "urls", "list<struct Url>"}, {8, "timestamp", "i64"}, {9, "post_type", "enum PostType"},
	}},
	{"exception", "ServiceException", []field{{1, "errorCode", "enum ErrorCode"}, {2, "message", "string"}}},
}

type method struct {
	name    string
	args    []field
	returns string // "" for void
	throws  []field
}

var specServices = []struct {
	file, service string
	includes      bool // includes social_network_common.thrift
	methods       []method
}{
	{"unique_id.thrift", "UniqueIdService", true, []method{
		{"ComposeUniqueId", []field{{1, "req_id", "i64"}, {2, "post_type", "enum PostType"}, {3, "carrier", carrier}}, "i64", se},
	}},
	{"url_shorten.thrift", "UrlShortenService", true, []method{
		{"ComposeUrls", []field{{1, "req_id", "i64"}, {2, "urls", "list<string>"}, {3, "carrier", carrier}}, "list<struct Url>", se},
		{"GetExtendedUrls", []field{{1, "req_id", "i64"}, {2, "shortened_urls", "list<string>"}, {3, "carrier", carrier}}, "list<string>", se},
	}},
	{"post_storage.thrift", "PostStorageService", true, []method{
		{"StorePost", []field{{1, "req_id", "i64"}, {2, "post", "struct Post"}, {3, "carrier", carrier}}, "", se},
		{"ReadPost", []field{{1, "req_id", "i64"}, {2, "post_id", "i64"}, {3, "carrier", carrier}}, "struct Post", se},
		{"ReadPosts", []field{{1, "req_id", "i64"}, {2, "post_ids", "list<i64>"}, {3, "carrier", carrier}}, "list<struct Post>", se},
	}},
	{"user_timeline.thrift", "UserTimelineService", true, []method{
		{"WriteUserTimeline", []field{{1, "req_id", "i64"}, {2, "post_id", "i64"}, {3, "user_id", "i64"}, {4, "timestamp", "i64"}, {5, "carrier", carrier}}, "", se},
		{"ReadUserTimeline", []field{{1, "req_id", "i64"}, {2, "user_id", "i64"}, {3, "start", "i32"}, {4, "stop", "i32"}, {5, "carrier", carrier}}, "list<struct Post>", se},
	}},
	{"memcached.thrift", "MemcachedService", false, []method{
		{"Set", []field{{1, "req_id", "i64"}, {2, "key", "binary"}, {3, "value", "binary"}, {4, "flags", "i32"}, {5, "exptime", "i32"}}, "", nil},
		{"Get", []field{{1, "req_id", "i64"}, {2, "key", "binary"}}, "binary", nil},
	}},
}

func TestIdlLoadSpecServices(t *testing.T) {
	for _, sv := range specServices {
		t.Run(sv.service, func(t *testing.T) {
			prog, err := thriftidl.Load(filepath.Join("..", "idl", sv.file))
			if err != nil {
				t.Fatal(err)
			}
			if n := len(prog.Root.Services); n != 1 {
				t.Fatalf("%d services, want 1", n)
			}
			s := prog.Service(sv.service)
			if s == nil {
				t.Fatalf("no service %s", sv.service)
			}
			if len(s.Functions) != len(sv.methods) {
				t.Fatalf("%d functions, want %d", len(s.Functions), len(sv.methods))
			}
			for i, m := range sv.methods {
				f := s.Functions[i]
				if f.Name != m.name || f.Oneway {
					t.Errorf("function %d: %q (oneway %t), want %q", i, f.Name, f.Oneway, m.name)
				}
				ret := ""
				if f.Returns != nil {
					ret = typeText(f.Returns)
				}
				if ret != m.returns {
					t.Errorf("%s returns %q, want %q", m.name, ret, m.returns)
				}
				checkFields(t, m.name+" arguments", f.Args, m.args)
				checkFields(t, m.name+" throws", f.Throws, m.throws)
			}
			wantDocs := 1
			if sv.includes {
				wantDocs = 2
				if len(prog.Root.Includes) != 1 || prog.Root.Includes[0].Prefix != "social_network_common" {
					t.Fatalf("includes %v, want social_network_common.thrift", prog.Root.Includes)
				}
				if got, want := prog.Docs[0].File, filepath.Join("..", "idl", "social_network_common.thrift"); got != want {
					t.Errorf("included file opened as %s, want %s (relative to the including file)", got, want)
				}
			}
			if len(prog.Docs) != wantDocs || prog.Docs[len(prog.Docs)-1] != prog.Root {
				t.Errorf("%d documents, root last: want %d", len(prog.Docs), wantDocs)
			}
		})
	}
}

func TestIdlLoadSpecCommon(t *testing.T) {
	prog, err := thriftidl.Load(filepath.Join("..", "idl", "social_network_common.thrift"))
	if err != nil {
		t.Fatal(err)
	}
	d := prog.Root
	if len(d.Structs) != len(specStructs) {
		t.Fatalf("%d structs, want %d", len(d.Structs), len(specStructs))
	}
	for i, want := range specStructs {
		s := d.Structs[i]
		if s.Kind.String() != want.kind || s.Name != want.name {
			t.Errorf("struct %d: %s %s, want %s %s", i, s.Kind, s.Name, want.kind, want.name)
		}
		for _, f := range s.Fields {
			if f.Req != thriftidl.Default {
				t.Errorf("%s.%s is %s, want default requiredness", s.Name, f.Name, f.Req)
			}
		}
		checkFields(t, want.name, s.Fields, want.fields)
	}
	enums := map[string][]string{
		"PostType": {"POST=0", "REPOST=1", "REPLY=2", "DM=3"},
		"ErrorCode": {"SE_CONNPOOL_TIMEOUT=0", "SE_THRIFT_CONN_ERROR=1", "SE_UNAUTHORIZED=2", "SE_MEMCACHED_ERROR=3",
			"SE_MONGODB_ERROR=4", "SE_REDIS_ERROR=5", "SE_THRIFT_HANDLER_ERROR=6", "SE_RABBITMQ_CONN_ERROR=7"},
	}
	if len(d.Enums) != len(enums) {
		t.Errorf("%d enums, want %d", len(d.Enums), len(enums))
	}
	for _, e := range d.Enums {
		var got []string
		for _, v := range e.Values {
			got = append(got, v.Name+"="+itoa(v.Value))
		}
		if strings.Join(got, " ") != strings.Join(enums[e.Name], " ") {
			t.Errorf("enum %s: %v, want %v", e.Name, got, enums[e.Name])
		}
	}
	if len(d.Services) != 0 {
		t.Errorf("%d services, want none", len(d.Services))
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// TestLoadFeatures reads every construct of the subset.
func TestIdlLoadFeatures(t *testing.T) {
	prog, err := thriftidl.Load(filepath.Join("testdata", "features.thrift"))
	if err != nil {
		t.Fatal(err)
	}
	d := prog.Root
	if got := len(d.CppIncludes); got != 1 || d.CppIncludes[0] != "<unordered_map>" {
		t.Errorf("cpp_include %v", d.CppIncludes)
	}
	if len(d.Namespaces) != 2 || d.Namespaces[1].Scope != "*" || d.Namespaces[1].Name != "features.all" {
		t.Errorf("namespaces %+v", d.Namespaces)
	}
	// Constants are kept as written.
	consts := map[string]*thriftidl.Const{}
	for _, c := range d.Consts {
		consts[c.Name] = c
	}
	if c := consts["MaxItems"]; c == nil || c.Value.Kind != thriftidl.IntValue || c.Value.Int != 64 {
		t.Errorf("MaxItems = %+v, want 64", c)
	}
	if c := consts["Ratio"]; c == nil || c.Value.Double != 1500 {
		t.Errorf("Ratio = %+v, want 1500", c)
	}
	if c := consts["Names"]; c == nil || len(c.Value.List) != 3 || c.Value.List[1].Text != "b" {
		t.Errorf("Names = %+v, want [a b c]", c)
	}
	if c := consts["Weights"]; c == nil || len(c.Value.Keys) != 2 || c.Value.Keys[1].Text != "y" || c.Value.Values[1].Int != -2 {
		t.Errorf("Weights = %+v, want {x: 1, y: -2}", c)
	}
	if c := consts["Enabled"]; c == nil || c.Value.Kind != thriftidl.IntValue || c.Value.Int != 1 || typeText(c.Type) != "bool" {
		t.Errorf("Enabled = %+v, want true (1)", c)
	}
	if c := consts["Favourite"]; c == nil || c.Value.Kind != thriftidl.IdentValue || c.Value.Text != "Colour.BLUE" || typeText(c.Type) != "enum Colour" {
		t.Errorf("Favourite = %+v, want Colour.BLUE", c)
	}
	// Enum values, explicit and implicit.
	var vals []string
	for _, v := range d.Enums[0].Values {
		vals = append(vals, v.Name+"="+itoa(v.Value))
	}
	if got := strings.Join(vals, " "); got != "RED=0 GREEN=5 BLUE=6 BLACK=16" {
		t.Errorf("Colour: %s", got)
	}
	var item, choice *thriftidl.Struct
	for _, s := range d.Structs {
		switch s.Name {
		case "Item":
			item = s
		case "Choice":
			choice = s
		}
	}
	if choice == nil || choice.Kind != thriftidl.KindUnion {
		t.Fatalf("Choice: %+v, want a union", choice)
	}
	checkFields(t, "Choice", choice.Fields, []field{{1, "flag", "bool"}, {2, "small", "byte"}, {3, "tiny", "i8"}, {4, "real", "double"}})
	checkFields(t, "Item", item.Fields, []field{
		{1, "owner", "i64"}, {2, "label", "string"}, {3, "colour", "enum Colour"}, {4, "blob", "binary"},
		{5, "deep", "map<string,list<set<i16>>>"}, {6, "nested", "map<i32,map<string,list<double>>>"},
		{7, "grid", "list<list<i32>>"}, {8, "tags", "set<string>"}, {9, "choice", "union Choice"},
		{10, "stamp", "struct Stamp"}, {11, "small", "i16"}, {12, "followers", "list<i64>"}, {20, "later", "list<struct Item2>"},
	})
	reqs := []thriftidl.Requiredness{thriftidl.Required, thriftidl.Optional, thriftidl.Default}
	for i, want := range reqs {
		if item.Fields[i].Req != want {
			t.Errorf("Item field %d is %s, want %s", i+1, item.Fields[i].Req, want)
		}
	}
	if dv := item.Fields[1].Default; dv == nil || dv.Text != "none" {
		t.Errorf("label default %+v, want \"none\"", dv)
	}
	if dv := item.Fields[2].Default; dv == nil || dv.Text != "Colour.GREEN" {
		t.Errorf("colour default %+v, want Colour.GREEN", dv)
	}
	if item.Fields[0].Type.Typedef == nil || item.Fields[0].Type.Typedef.Name != "UserId" {
		t.Errorf("owner's type does not name the typedef UserId")
	}
	s := prog.Service("Store")
	if s == nil || s.Parent == nil || s.Parent.Name != "Base" || s.Extends != "features_base.Base" {
		t.Fatalf("Store: %+v, want Store extends features_base.Base", s)
	}
	var names []string
	for _, f := range s.Functions {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "Get Forget Many" {
		t.Errorf("Store's functions: %s", got)
	}
	if f := s.Functions[1]; !f.Oneway || f.Returns != nil {
		t.Errorf("Forget: oneway %t, returns %v; want oneway void", f.Oneway, f.Returns)
	}
	checkFields(t, "Many throws", s.Functions[2].Throws, []field{{5, "fail", "exception Failure"}})
	checkFields(t, "Many arguments", s.Functions[2].Args, []field{{1, "ids", "list<i64>"}, {3, "how", "union Choice"}})
}

func TestIdlLoadUUID(t *testing.T) {
	path := writeIDL(t, t.TempDir(), "u.thrift", "typedef uuid Id\nstruct S { 1: Id id; 2: list<uuid> ids }\n")
	prog, err := thriftidl.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	checkFields(t, "S", prog.Root.Structs[0].Fields, []field{{1, "id", "uuid"}, {2, "ids", "list<uuid>"}})
}

func writeIDL(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadErrors checks each error's exact text: file, line and column
// (1-based, bytes), and what was expected.
func TestIdlLoadErrors(t *testing.T) {
	tests := []struct {
		name  string
		files []string // name, source, name, source...; the first is loaded
		want  string   // with FILE for the directory
	}{
		{"unterminated comment",
			[]string{"x.thrift", "struct A {\n  1: i32 x\n}\n  /* never closed\nstruct B {}\n"},
			"FILE/x.thrift:4:3: unterminated comment: /* has no */ before the end of the file"},
		{"missing } before a definition",
			[]string{"x.thrift", "struct A {\n  1: i32 x,\n  2: string y\n\nservice S {}\n"},
			`FILE/x.thrift:5:1: expected field or "}" closing struct A, found "service"`},
		{"missing } at the end",
			[]string{"x.thrift", "service S {\n  void f()\n"},
			`FILE/x.thrift:3:1: expected function or "}" closing service S, found end of file`},
		{"field without id",
			[]string{"x.thrift", "struct A {\n  1: i32 x,\n  string y\n}\n"},
			`FILE/x.thrift:3:3: expected field id, found "string" (implicit field ids are not supported: number every field, 1 to 32767)`},
		{"negative field id",
			[]string{"x.thrift", "struct A {\n  -1: i32 x\n}\n"},
			"FILE/x.thrift:2:3: field id -1 out of range: ids are 1 to 32767 (0 is the result's success, negative ids are not supported)"},
		{"field id without colon",
			[]string{"x.thrift", "struct A {\n  1 i32 x\n}\n"},
			`FILE/x.thrift:2:5: expected ":", found "i32"`},
		{"duplicate field id",
			[]string{"x.thrift", "struct A {\n  1: i32 x,\n  1: i64 y\n}\n"},
			`FILE/x.thrift:3:3: duplicate field id 1 in struct A: already used by "x" at FILE/x.thrift:2:3`},
		{"duplicate argument id",
			[]string{"x.thrift", "service S {\n  void f(1: i32 a, 1: i32 b)\n}\n"},
			`FILE/x.thrift:2:20: duplicate field id 1 in the arguments of f: already used by "a" at FILE/x.thrift:2:10`},
		{"unknown type",
			[]string{"x.thrift", "struct A {\n  1: list<Foo> x\n}\n"},
			`FILE/x.thrift:2:11: unknown type "Foo"`},
		{"unknown included type",
			[]string{"x.thrift", "include \"y.thrift\"\nstruct A {\n  1: y.Nope x\n}\n", "y.thrift", "struct B {}\n"},
			`FILE/x.thrift:3:6: unknown type "y.Nope"`},
		{"service as a type",
			[]string{"x.thrift", "service S {}\nstruct A {\n  1: S x\n}\n"},
			`FILE/x.thrift:3:6: "S" is a service, not a type`},
		{"duplicate name",
			[]string{"x.thrift", "struct A {}\nenum A { X }\n"},
			`FILE/x.thrift:2:1: duplicate name "A": already defined at FILE/x.thrift:1:1 as struct`},
		{"undefined enum constant",
			[]string{"x.thrift", "enum E { X, Y }\nstruct A {\n  1: E e = E.Z\n}\n"},
			`FILE/x.thrift:3:12: undefined enum constant "E.Z": enum E has no Z`},
		{"include cycle",
			[]string{"a.thrift", "include \"b.thrift\"\n", "b.thrift", "\ninclude \"a.thrift\"\n"},
			"FILE/b.thrift:2:1: include cycle: FILE/a.thrift -> FILE/b.thrift -> FILE/a.thrift"},
		{"include of a missing file",
			[]string{"a.thrift", "namespace go a\ninclude \"nope.thrift\"\n"},
			`FILE/a.thrift:2:1: include "nope.thrift": cannot read FILE/nope.thrift: no such file`},
		{"oneway returning a value",
			[]string{"x.thrift", "service S {\n  oneway i32 f()\n}\n"},
			"FILE/x.thrift:2:14: oneway function f must return void"},
		{"throws a struct",
			[]string{"x.thrift", "struct A {}\nservice S {\n  void f() throws (1: A a)\n}\n"},
			`FILE/x.thrift:3:23: f throws "A", which is not an exception`},
		{"unterminated string",
			[]string{"x.thrift", "include \"y.thrift\n"},
			"FILE/x.thrift:1:9: unterminated string literal (a newline before the closing \")"},
		{"typedef cycle",
			[]string{"x.thrift", "typedef B A\ntypedef A B\n"},
			"FILE/x.thrift:1:1: typedef A stands for itself"},
		{"keyword as a name",
			[]string{"x.thrift", "struct list {}\n"},
			`FILE/x.thrift:1:8: expected struct name, found keyword "list"`},
		{"two errors, in order",
			[]string{"x.thrift", "struct A {\n  1: Foo x,\n  2: Bar y\n}\n"},
			"FILE/x.thrift:2:6: unknown type \"Foo\"\nFILE/x.thrift:3:6: unknown type \"Bar\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var first string
			for i := 0; i+1 < len(tc.files); i += 2 {
				p := writeIDL(t, dir, tc.files[i], tc.files[i+1])
				if first == "" {
					first = p
				}
			}
			_, err := thriftidl.Load(first)
			want := strings.ReplaceAll(tc.want, "FILE", dir)
			if err == nil || err.Error() != want {
				t.Fatalf("error:\n%v\nwant:\n%s", err, want)
			}
		})
	}
}

func TestIdlLoadMissingRoot(t *testing.T) {
	_, err := thriftidl.Load(filepath.Join(t.TempDir(), "none.thrift"))
	if !os.IsNotExist(err) {
		t.Fatalf("error %v, want a not-exist error", err)
	}
}
