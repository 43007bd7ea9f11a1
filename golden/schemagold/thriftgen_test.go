package schemagold_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSchemagoldApacheCodeCurrent regenerates Apache's Go code for every
// service in idl/ with thrift 0.17.0, as make thrift-gen does (thrift -r
// --gen go:package_prefix=arcalis/internal/,skip_remote, then gofmt), and
// checks that internal/ holds exactly those files: the cross-checks run the
// code Apache's compiler writes for the IDL as it is.
func TestSchemagoldApacheCodeCurrent(t *testing.T) {
	bin, err := exec.LookPath("thrift")
	if err != nil {
		t.Fatal("thrift not found: install Apache's compiler 0.17.0 (scripts/setup.sh; apt-get install -y thrift-compiler)")
	}
	if v, err := exec.Command(bin, "--version").Output(); err != nil || !strings.Contains(string(v), "0.17.0") {
		t.Fatalf("thrift --version: %q, %v; want 0.17.0, the version of the Go library in go.mod", v, err)
	}
	out := t.TempDir()
	for _, svc := range services {
		cmd := exec.Command(bin, "-r", "--gen", "go:package_prefix=arcalis/internal/,skip_remote", "-out", out, filepath.Join("..", "..", "idl", svc.file))
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", cmd.Args, err, msg)
		}
	}
	if msg, err := exec.Command("gofmt", "-w", out).CombinedOutput(); err != nil {
		t.Fatalf("gofmt: %v\n%s", err, msg)
	}
	n := 0
	err = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		want, _ := os.ReadFile(p)
		got, err := os.ReadFile(filepath.Join("..", "..", "internal", rel))
		if err != nil {
			t.Errorf("internal/%s: %v (regenerate with make thrift-gen)", rel, err)
		} else if !bytes.Equal(got, want) {
			t.Errorf("internal/%s differs from what thrift 0.17.0 generates (regenerate with make thrift-gen)", rel)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 18 {
		t.Errorf("thrift generated %d files, want 3 for each of 6 packages", n)
	}
}
