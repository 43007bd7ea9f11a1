package schematx

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"arcalis/thriftidl"
	thriftgen "arcalis/thriftidl/gen"
	"arcalis/thriftidl/schema"
)

// Services are the services of idl/: a file stem (make's SERVICE) and the
// service it declares.
var Services = []Service{
	{"MemcachedService", "memcached"},
	{"UniqueIdService", "unique_id"},
	{"UrlShortenService", "url_shorten"},
	{"PostStorageService", "post_storage"},
	{"UserTimelineService", "user_timeline"},
	{"AllTypesService", ""},
}

// Service is one service of idl/ or, without a Stem, AllTypesService of
// testdata/alltypes.thrift: the wire types, kinds and limits idl/ lacks.
type Service struct {
	Name string // as in the IDL
	Stem string // idl/<Stem>.thrift; "" for the testdata service
}

// testdataIDL is AllTypesService's IDL, relative to the repository root.
const testdataIDL = "tb/schematx/testdata/alltypes.thrift"

// Widths are the module's Width parameter values (output bytes a beat).
var Widths = []int{8, 16, 32, 64}

// Case is one model: a service's tables in a resp_schema of one width.
type Case struct {
	Service
	Width int
}

// ParseCase reads "<service>:<width>", the form of SCHEMATX_CASE.
func ParseCase(s string) (Case, error) {
	name, w, ok := strings.Cut(s, ":")
	if !ok {
		return Case{}, fmt.Errorf("case %q: want <service>:<width>", s)
	}
	width, err := strconv.Atoi(w)
	valid := false
	for _, v := range Widths {
		valid = valid || v == width
	}
	if err != nil || !valid {
		return Case{}, fmt.Errorf("case %q: width %q is not one of %v", s, w, Widths)
	}
	for _, sv := range Services {
		if sv.Name == name {
			return Case{sv, width}, nil
		}
	}
	return Case{}, fmt.Errorf("case %q: no service %q in idl/", s, name)
}

// String is the case's SCHEMATX_CASE form.
func (c Case) String() string { return fmt.Sprintf("%s:%d", c.Name, c.Width) }

// IDL is the service's IDL file, relative to the repository root.
func (c Case) IDL() string {
	if c.Stem == "" {
		return testdataIDL
	}
	return "idl/" + c.Stem + ".thrift"
}

// OutDir is the model's build directory, relative to the repository root,
// as mk/schematx.mk names it (the testdata service's: build/schematx/<snake>).
func (c Case) OutDir() string {
	d := "build/schematx-" + c.Stem
	if c.Stem == "" {
		d = filepath.Join("build", "schematx", thriftgen.Snake(c.Name))
	}
	if c.Width != 16 {
		d += fmt.Sprintf("-w%d", c.Width)
	}
	return d
}

// Table loads the service's IDL and computes its schema table.
func (c Case) Table(root string) (*schema.Table, error) {
	prog, err := thriftidl.Load(filepath.Join(root, c.IDL()))
	if err != nil {
		return nil, err
	}
	return schema.Build(prog, c.Name)
}

// The module under test and the package it imports besides the schema's,
// relative to the repository root.
const (
	RTLSource  = "rtl/generic/resp_schema.sv"
	RTLPackage = "rtl/arcalis_pkg.sv"
)

// Build builds the model with make schematx-model; jobs is VPI_JOBS (0:
// its default). It returns the library's path.
func (c Case) Build(root string, jobs int) (string, error) {
	args := []string{"--no-print-directory", fmt.Sprintf("WIDTH=%d", c.Width)}
	if c.Stem != "" {
		args = append(args, "SERVICE="+c.Stem)
	} else {
		args = append(args, "SCHEMATX_IDL="+c.IDL(), "SCHEMATX_NAME="+c.Name,
			"SCHEMATX_PKG="+thriftgen.SVPackage(c.Name), "SCHEMATX_DIR="+c.OutDir())
	}
	if jobs > 0 {
		args = append(args, fmt.Sprintf("VPI_JOBS=%d", jobs))
	}
	cmd := exec.Command("make", append(args, "schematx-model")...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("make %s schematx-model: %v\n%s", strings.Join(args, " "), err, out)
	}
	return filepath.Join(root, c.OutDir(), "libvmodel.so"), nil
}
