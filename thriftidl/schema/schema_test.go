package schema_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"arcalis/thriftidl"
	"arcalis/thriftidl/schema"
)

func build(t *testing.T, path, service string) *schema.Table {
	t.Helper()
	prog, err := thriftidl.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := schema.Build(prog, service)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func idl(name string) string { return filepath.Join("..", "..", "idl", name) }

// typeText renders a table type: "I64", "map<STRING,STRING>", "list<Post>".
func typeText(t *schema.Table, i int) string {
	ty := t.Types[i]
	switch ty.Wire {
	case schema.Struct:
		return t.Structs[ty.Struct].Name
	case schema.List, schema.Set:
		return strings.ToLower(schema.WireName(ty.Wire)) + "<" + typeText(t, ty.Elem) + ">"
	case schema.Map:
		return "map<" + typeText(t, ty.Key) + "," + typeText(t, ty.Elem) + ">"
	}
	return schema.WireName(ty.Wire)
}

// fieldText is a field as "id name type req slot": "3 carrier map<STRING,STRING> default var0".
func fieldText(t *schema.Table, f schema.Field) string {
	slot := fmt.Sprintf("fixed%d", f.Slot)
	if f.Var {
		slot = fmt.Sprintf("var%d", f.Slot)
	}
	req := [...]string{"default", "required", "optional"}[f.Req]
	return fmt.Sprintf("%d %s %s %s %s", f.ID, f.Name, typeText(t, f.Type), req, slot)
}

// structText is "Name kind fixed/var depth: field; field; ...".
func structText(t *schema.Table, i int) string {
	s := t.Structs[i]
	var fs []string
	for _, f := range t.StructFields(i) {
		if f.Wire != t.Types[f.Type].Wire || (f.Wire == schema.Struct) != (f.Struct >= 0) || f.Wire == schema.Struct && f.Struct != t.Types[f.Type].Struct {
			fs = append(fs, "INCONSISTENT "+f.Name)
		}
		fs = append(fs, fieldText(t, f))
	}
	kind := [...]string{"struct", "union", "exception", "args", "result"}[s.Kind]
	return fmt.Sprintf("%s %s %d/%d depth %d: %s", s.Name, kind, s.FixedSlots, s.VarSlots, s.Depth, strings.Join(fs, "; "))
}

func checkStructs(t *testing.T, tab *schema.Table, want []string) {
	t.Helper()
	if len(tab.Structs) != len(want) {
		var got []string
		for i := range tab.Structs {
			got = append(got, structText(tab, i))
		}
		t.Fatalf("%d structs, want %d:\n%s", len(tab.Structs), len(want), strings.Join(got, "\n"))
	}
	next := 0
	for i, w := range want {
		if s := tab.Structs[i]; s.First != next {
			t.Errorf("struct %d (%s) starts at field %d, want %d", i, s.Name, s.First, next)
		}
		next += tab.Structs[i].Count
		if got := structText(tab, i); got != w {
			t.Errorf("struct %d:\n got %s\nwant %s", i, got, w)
		}
	}
	if next != len(tab.Fields) {
		t.Errorf("structs hold %d fields, the table %d", next, len(tab.Fields))
	}
}

// The expected tables, written from the spec's tables and the slot rule:
// fixed-size fields take fixed slots, others variable entries, each in id
// order; results have success (id 0) unless void, then se (id 1), both optional.
const (
	seStruct = "ServiceException exception 1/1 depth 1: 1 errorCode I32 default fixed0; 2 message STRING default var0"
	post     = "Post struct 4/5 depth 3: 1 post_id I64 default fixed0; 2 creator Creator default var0; " +
		"3 req_id I64 default fixed1; 4 text STRING default var1; 5 user_mentions list<UserMention> default var2; " +
		"6 media list<Media> default var3; 7 urls list<Url> default var4; 8 timestamp I64 default fixed2; " +
		"9 post_type I32 default fixed3"
	carrierVar = "map<STRING,STRING> default var"
)

func TestIdlBuildUniqueId(t *testing.T) {
	tab := build(t, idl("unique_id.thrift"), "UniqueIdService")
	checkStructs(t, tab, []string{
		"ComposeUniqueId_args args 2/1 depth 2: 1 req_id I64 default fixed0; 2 post_type I32 default fixed1; 3 carrier " + carrierVar + "0",
		"ComposeUniqueId_result result 1/1 depth 2: 0 success I64 optional fixed0; 1 se ServiceException optional var0",
		seStruct,
	})
	want := schema.Method{Name: "ComposeUniqueId", Service: "UniqueIdService", Args: 0, Result: 1, ArgsDepth: 2, ResultDepth: 2}
	if len(tab.Methods) != 1 || tab.Methods[0] != want {
		t.Errorf("methods %+v, want [%+v]", tab.Methods, want)
	}
}

func TestIdlBuildPostStorage(t *testing.T) {
	tab := build(t, idl("post_storage.thrift"), "PostStorageService")
	checkStructs(t, tab, []string{
		"StorePost_args args 1/2 depth 4: 1 req_id I64 default fixed0; 2 post Post default var0; 3 carrier " + carrierVar + "1",
		"StorePost_result result 0/1 depth 2: 1 se ServiceException optional var0",
		"ReadPost_args args 2/1 depth 2: 1 req_id I64 default fixed0; 2 post_id I64 default fixed1; 3 carrier " + carrierVar + "0",
		"ReadPost_result result 0/2 depth 4: 0 success Post optional var0; 1 se ServiceException optional var1",
		"ReadPosts_args args 1/2 depth 2: 1 req_id I64 default fixed0; 2 post_ids list<I64> default var0; 3 carrier " + carrierVar + "1",
		"ReadPosts_result result 0/2 depth 5: 0 success list<Post> optional var0; 1 se ServiceException optional var1",
		post,
		seStruct,
		"Creator struct 1/1 depth 1: 1 user_id I64 default fixed0; 2 username STRING default var0",
		"UserMention struct 1/1 depth 1: 1 user_id I64 default fixed0; 2 username STRING default var0",
		"Media struct 1/1 depth 1: 1 media_id I64 default fixed0; 2 media_type STRING default var0",
		"Url struct 0/2 depth 1: 1 shortened_url STRING default var0; 2 expanded_url STRING default var1",
	})
}

func TestIdlBuildMemcached(t *testing.T) {
	tab := build(t, idl("memcached.thrift"), "MemcachedService")
	checkStructs(t, tab, []string{
		"Set_args args 3/2 depth 1: 1 req_id I64 default fixed0; 2 key STRING default var0; 3 value STRING default var1; 4 flags I32 default fixed1; 5 exptime I32 default fixed2",
		"Set_result result 0/0 depth 1: ",
		"Get_args args 1/1 depth 1: 1 req_id I64 default fixed0; 2 key STRING default var0",
		"Get_result result 0/1 depth 1: 0 success STRING optional var0",
	})
}

// TestDepths checks every method's depths against the spec's nesting table.
// Depth counts struct, list, set and map levels from the args or result
// struct (level 1); scalars add nothing.
func TestIdlDepths(t *testing.T) {
	type d struct{ args, result int }
	want := map[string]map[string]d{
		"unique_id.thrift": {
			"ComposeUniqueId": {2, 2}, // args > carrier map; result > ServiceException
		},
		"url_shorten.thrift": {
			"ComposeUrls":     {2, 3}, // args > list<string> or map; result > list<Url> > Url
			"GetExtendedUrls": {2, 2}, // result > list<string>, or result > ServiceException
		},
		"post_storage.thrift": {
			"StorePost": {4, 2}, // args > Post > list > UserMention; a void result holds only se
			"ReadPost":  {2, 4}, // result > Post > list > UserMention (the spec's "element")
			"ReadPosts": {2, 5}, // result > list<Post> > Post > list > UserMention
		},
		"user_timeline.thrift": {
			"WriteUserTimeline": {2, 2},
			"ReadUserTimeline":  {2, 5}, // result > list<Post> > Post > list > UserMention
		},
		"memcached.thrift": {
			"Set": {1, 1}, // scalars and binaries only; the void result is an empty struct
			"Get": {1, 1},
		},
	}
	services := map[string]string{"unique_id.thrift": "UniqueIdService", "url_shorten.thrift": "UrlShortenService",
		"post_storage.thrift": "PostStorageService", "user_timeline.thrift": "UserTimelineService", "memcached.thrift": "MemcachedService"}
	for file, methods := range want {
		tab := build(t, idl(file), services[file])
		if len(tab.Methods) != len(methods) {
			t.Errorf("%s: %d methods, want %d", file, len(tab.Methods), len(methods))
		}
		for _, m := range tab.Methods {
			if got := (d{m.ArgsDepth, m.ResultDepth}); got != methods[m.Name] {
				t.Errorf("%s %s: depths %+v, want %+v", file, m.Name, got, methods[m.Name])
			}
		}
	}
}

// TestBuildFeatures: inherited methods first, oneway without a result,
// unions and exceptions, typedefs and enums resolved, nested containers.
func TestIdlBuildFeatures(t *testing.T) {
	tab := build(t, filepath.Join("..", "testdata", "features.thrift"), "Store")
	var ms []string
	for _, m := range tab.Methods {
		ms = append(ms, fmt.Sprintf("%s.%s %d %d %t %d %d", m.Service, m.Name, m.Args, m.Result, m.Oneway, m.ArgsDepth, m.ResultDepth))
	}
	wantMethods := []string{
		"Base.Ping 0 1 false 1 1",
		"Base.Now 2 3 false 1 2",  // result > Stamp
		"Store.Get 4 5 false 1 5", // result > Item > Deep map > list > set
		"Store.Forget 6 -1 true 2 0",
		"Store.Many 7 8 false 2 6", // result > map<string,Item> > Item > map > list > set
	}
	if strings.Join(ms, "\n") != strings.Join(wantMethods, "\n") {
		t.Errorf("methods:\n%s\nwant:\n%s", strings.Join(ms, "\n"), strings.Join(wantMethods, "\n"))
	}
	var names []string
	for _, s := range tab.Structs {
		names = append(names, s.Name)
	}
	if got, want := strings.Join(names, " "), "Ping_args Ping_result Now_args Now_result Get_args Get_result Forget_args Many_args Many_result Stamp Item Failure Choice Item2"; got != want {
		t.Errorf("structs %s\nwant    %s", got, want)
	}
	item := -1
	for i, s := range tab.Structs {
		if s.Name == "Item" {
			item = i
		}
	}
	want := "Item struct 3/10 depth 4: 1 owner I64 required fixed0; 2 label STRING optional var0; 3 colour I32 default fixed1; " +
		"4 blob STRING default var1; 5 deep map<STRING,list<set<I16>>> default var2; " +
		"6 nested map<I32,map<STRING,list<DOUBLE>>> default var3; 7 grid list<list<I32>> default var4; " +
		"8 tags set<STRING> default var5; 9 choice Choice default var6; 10 stamp Stamp default var7; " +
		"11 small I16 default fixed2; 12 followers list<I64> default var8; 20 later list<Item2> default var9"
	if got := structText(tab, item); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	if got, want := structText(tab, 12), "Choice union 4/0 depth 1: 1 flag BOOL default fixed0; 2 small BYTE default fixed1; 3 tiny BYTE default fixed2; 4 real DOUBLE default fixed3"; got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	// Interned types: each distinct type once, key and element before it.
	seen := map[schema.Type]bool{}
	for i, ty := range tab.Types {
		if seen[ty] {
			t.Errorf("type %d (%s) appears twice", i, typeText(tab, i))
		}
		seen[ty] = true
		if ty.Key >= i || ty.Elem >= i {
			t.Errorf("type %d (%s) refers to a later type", i, typeText(tab, i))
		}
	}
}

func TestIdlBuildUUID(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "u.thrift")
	writeFile(t, path, "service U { uuid Next(1: uuid after, 2: list<uuid> seen) }\n")
	tab := build(t, path, "U")
	checkStructs(t, tab, []string{
		"Next_args args 1/1 depth 2: 1 after UUID default fixed0; 2 seen list<UUID> default var0",
		"Next_result result 1/0 depth 1: 0 success UUID optional fixed0",
	})
}

func TestIdlBuildErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, src, service, want string }{
		{"recursive struct", "struct Node { 1: i32 v, 2: list<Node> kids }\nservice S { Node Tree() }\n", "S",
			"struct Node contains itself (Node > Node): its nesting depth has no bound"},
		{"no such service", "service S { void f() }\n", "T", "FILE has no service \"T\" (it has S)"},
		{"no service", "struct A {}\n", "S", "FILE defines no service"},
		{"method defined twice", "service A { void f() }\nservice B extends A { void f() }\n", "B",
			"FILE:2:23: function f of B is also defined by A at FILE:1:13"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".thrift")
			writeFile(t, path, tc.src)
			prog, err := thriftidl.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = schema.Build(prog, tc.service)
			if want := strings.ReplaceAll(tc.want, "FILE", path); err == nil || err.Error() != want {
				t.Fatalf("error %v\nwant  %s", err, want)
			}
			if noSuch := strings.Contains(tc.name, "service"); errors.Is(err, schema.ErrNoService) != noSuch {
				t.Errorf("errors.Is(err, ErrNoService) = %t, want %t", !noSuch, noSuch)
			}
		})
	}
}
