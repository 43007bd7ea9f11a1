package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeTableCurrent checks that README.md's services table is the one
// the committed reports give: a report regenerated without the README
// (make readme-services) fails here.
func TestReadmeTableCurrent(t *testing.T) {
	root := filepath.Join("..", "..")
	table, err := readmeTable(root)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := replaceReadme(string(b), table)
	if err != nil {
		t.Fatal(err)
	}
	if want != string(b) {
		t.Errorf("README.md's services table is not the reports' (make readme-services rewrites it); want:\n%s", table)
	}
	if n, want := strings.Count(table, "\n"), 2+len(services()); n != want {
		t.Errorf("the table has %d lines, want %d: a header, a rule and a line per service of idl/", n, want)
	}
}
