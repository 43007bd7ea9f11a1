package schemarx

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"arcalis/thriftidl"
	"arcalis/thriftidl/gen"
	"arcalis/thriftidl/schema"
	"arcalis/vectors"
)

// Service is a service with its committed default vectors.
type Service struct {
	Name    string // the service, as in the IDL
	IDL     string // the IDL file, relative to the repository root
	Vectors string // its default vector file, relative to the repository root; "" none
}

// Services are the services the testbench checks: those of idl/, and
// RequiredService, whose required fields make REQUIRED_MISSING reachable.
var Services = []Service{
	{"MemcachedService", "idl/memcached.thrift", "vectors/default.vec"},
	{"UniqueIdService", "idl/unique_id.thrift", "vectors/default-unique_id.vec"},
	{"UrlShortenService", "idl/url_shorten.thrift", "vectors/default-url_shorten.vec"},
	{"PostStorageService", "idl/post_storage.thrift", "vectors/default-post_storage.vec"},
	{"UserTimelineService", "idl/user_timeline.thrift", "vectors/default-user_timeline.vec"},
	{"RequiredService", "tb/schemarx/testdata/required.thrift", ""},
}

// Widths are the module's Width parameter values (bytes per cycle).
var Widths = []int{8, 16, 32, 64}

// Case is one model: a service's table in a recv_schema of one width.
type Case struct {
	Service
	Width int
}

// ParseCase reads "<service>:<width>", the form of SCHEMARX_CASE.
func ParseCase(s string) (Case, error) {
	name, w, ok := strings.Cut(s, ":")
	if !ok {
		return Case{}, fmt.Errorf("case %q: want <service>:<width>", s)
	}
	width, err := strconv.Atoi(w)
	if err != nil || !validWidth(width) {
		return Case{}, fmt.Errorf("case %q: width %q is not one of %v", s, w, Widths)
	}
	for _, sv := range Services {
		if sv.Name == name {
			return Case{sv, width}, nil
		}
	}
	return Case{}, fmt.Errorf("case %q: no service %q in idl/", s, name)
}

func validWidth(w int) bool {
	for _, v := range Widths {
		if v == w {
			return true
		}
	}
	return false
}

// String is the case's SCHEMARX_CASE form.
func (c Case) String() string { return fmt.Sprintf("%s:%d", c.Name, c.Width) }

// Snake is the directory name of the service's generated package.
func (c Case) Snake() string { return gen.Snake(c.Name) }

// stem is the IDL file's name without ".thrift": make's SERVICE for a
// service of idl/, "" for another IDL.
func (c Case) stem() string {
	if filepath.Dir(c.IDL) != "idl" {
		return ""
	}
	return strings.TrimSuffix(filepath.Base(c.IDL), ".thrift")
}

// OutDir is the model's build directory, relative to the repository root,
// as mk/schema.mk names it: build/schema-<stem> for a service of idl/, else
// build/schemarx/<snake>; with "-w<N>" at a width other than 16.
func (c Case) OutDir() string {
	d := "build/schema-" + c.stem()
	if c.stem() == "" {
		d = filepath.Join("build", "schemarx", c.Snake())
	}
	if c.Width != 16 {
		d += fmt.Sprintf("-w%d", c.Width)
	}
	return d
}

// Table loads the service's IDL and computes its schema table.
func (c Case) Table(root string) (*schema.Table, error) {
	prog, err := thriftidl.Load(filepath.Join(root, c.IDL))
	if err != nil {
		return nil, err
	}
	return schema.Build(prog, c.Name)
}

// Records reads the service's default vectors, if it has any.
func (c Case) Records(root string) ([]vectors.Record, error) {
	if c.Vectors == "" {
		return nil, nil
	}
	return vectors.ReadFile(filepath.Join(root, c.Vectors))
}

// RTLSource is the module under test, and RTLPackage the package it
// imports besides the schema's, relative to the repository root.
const (
	RTLSource  = "rtl/generic/recv_schema.sv"
	RTLPackage = "rtl/arcalis_pkg.sv"
)

// Build builds the model with `make schema-model` (mk/schema.mk generates
// the schema package and runs vpi/build.mk); jobs is VPI_JOBS (0: its
// default). It returns the library's path.
func (c Case) Build(root string, jobs int) (string, error) {
	args := []string{"--no-print-directory", fmt.Sprintf("WIDTH=%d", c.Width)}
	if c.stem() != "" {
		args = append(args, "SERVICE="+c.stem())
	} else {
		args = append(args, "SCHEMA_IDL="+c.IDL, "SCHEMA_NAME="+c.Name,
			"SCHEMA_PKG="+gen.SVPackage(c.Name), "SCHEMA_DIR="+c.OutDir())
	}
	if jobs > 0 {
		args = append(args, fmt.Sprintf("VPI_JOBS=%d", jobs))
	}
	// go test ./... runs the packages that build these models side by side:
	// one make at a time, or two would write the same files.
	unlock, err := lockBuilds(root)
	if err != nil {
		return "", err
	}
	defer unlock()
	cmd := exec.Command("make", append(args, "schema-model")...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("make %s schema-model: %v\n%s", strings.Join(args, " "), err, out)
	}
	return filepath.Join(root, c.OutDir(), "libvmodel.so"), nil
}

// lockBuilds takes the lock every model build of this package holds, a
// file lock so that it holds across processes.
func lockBuilds(root string) (unlock func(), err error) {
	dir := filepath.Join(root, "build")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, ".schema-model.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("schemarx: locking %s: %v", f.Name(), err)
	}
	return func() { f.Close() }, nil // closing the file releases the lock
}
