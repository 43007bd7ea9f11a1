package thriftidl_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"arcalis/thriftidl"
)

var errorLine = regexp.MustCompile(`^in\.thrift:[0-9]+:[0-9]+: \S`)

// FuzzIdlParse: any input parses or fails with one *Error whose text is
// "in.thrift:line:col: message", the position inside the input; one that
// parses also loads (resolution, includes) or fails with IDL errors,
// without panicking.
func FuzzIdlParse(f *testing.F) {
	for _, p := range []string{"../idl/post_storage.thrift", "../idl/social_network_common.thrift", "../idl/memcached.thrift", "testdata/features.thrift"} {
		src, err := os.ReadFile(filepath.FromSlash(p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte("struct A { 1: i32 x /* open"))
	f.Fuzz(func(t *testing.T, src []byte) {
		_, err := thriftidl.Parse("in.thrift", src)
		if err == nil {
			path := filepath.Join(t.TempDir(), "in.thrift")
			if err := os.WriteFile(path, src, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := thriftidl.Load(path)
			var e *thriftidl.Error
			var l thriftidl.ErrorList
			if err != nil && !errors.As(err, &e) && !errors.As(err, &l) {
				t.Fatalf("Load: %v is neither an *Error nor an ErrorList", err)
			}
			return
		}
		var e *thriftidl.Error
		if !errors.As(err, &e) || !errorLine.MatchString(err.Error()) {
			t.Fatalf("error %q is not an *Error at file:line:col", err)
		}
		lines := 1
		for _, c := range src {
			if c == '\n' {
				lines++
			}
		}
		if e.Pos.Line < 1 || e.Pos.Line > lines || e.Pos.Col < 1 {
			t.Fatalf("error %q: position outside the input (%d lines)", err, lines)
		}
	})
}
