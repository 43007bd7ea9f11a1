// Package schemacase is the case plumbing tb/schemarx, tb/schemahdr and
// tb/schematx share: a service in a module of one width, its tables, and
// the build of its Verilated model with mk/schema.mk.
package schemacase

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

// Widths are the modules' Width parameter values (bytes a beat).
var Widths = []int{8, 16, 32, 64}

// Module is one module's make plumbing in mk/schema.mk.
type Module struct {
	Target  string // make <Target>-model builds the model into build/<Target>-<stem>
	Vars    string // <Vars>_IDL, _NAME, _PKG and _DIR: make's settings for an IDL outside idl/
	TestDir string // an IDL outside idl/ builds into build/<TestDir>/<snake>
}

// Pair is schema_pair's make plumbing in mk/schema.mk: schema_rx (the
// header's check, then the args' walk) and resp_schema of a service in one
// model (rtl/generic/schema_pair.sv), for `arcalis run --service` and
// `serve --service` (VPI: one model per process). PairTop is its
// hierarchical name, the clock's and rst_ni's scope; PairRx and PairTx are
// its units' port prefixes (schemarx.OnSimRecv, schematx.OnSim), PairHd
// that of schema_rx's recv_header results (schemahdr.OpenPair).
var Pair = Module{Target: "schema-pair", Vars: "SCHEMAPAIR", TestDir: "schema-pair"}

const (
	PairTop = "schema_pair."
	PairRx  = "rx_"
	PairHd  = PairRx + "hd_" // schema_rx names recv_header's outputs hd_<name>
	PairTx  = "tx_"
)

// Case is one model: a service's table in a module of one width.
type Case struct {
	Module
	Service
	Width int
}

// Case is service s in the module at the given width.
func (m Module) Case(s Service, width int) Case { return Case{m, s, width} }

// ParseCase reads "<service>:<width>", with the service one of services.
func (m Module) ParseCase(s string, services []Service) (Case, error) {
	name, w, ok := strings.Cut(s, ":")
	if !ok {
		return Case{}, fmt.Errorf("case %q: want <service>:<width>", s)
	}
	width, err := strconv.Atoi(w)
	if err != nil || !validWidth(width) {
		return Case{}, fmt.Errorf("case %q: width %q is not one of %v", s, w, Widths)
	}
	for _, sv := range services {
		if sv.Name == name {
			return m.Case(sv, width), nil
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

// String is the case's "<service>:<width>" form.
func (c Case) String() string { return fmt.Sprintf("%s:%d", c.Name, c.Width) }

// Snake is the directory name of the service's generated package.
func (c Case) Snake() string { return gen.Snake(c.Name) }

// Stem is the IDL file's name without ".thrift": make's SERVICE for a
// service of idl/, "" for another IDL.
func (c Case) Stem() string {
	if filepath.Dir(c.IDL) != "idl" {
		return ""
	}
	return strings.TrimSuffix(filepath.Base(c.IDL), ".thrift")
}

// OutDir is the model's build directory, relative to the repository root,
// as mk/schema.mk names it: build/<Target>-<stem> for a service of idl/,
// else build/<TestDir>/<snake>; with "-w<N>" at a width other than 16.
func (c Case) OutDir() string {
	d := "build/" + c.Target + "-" + c.Stem()
	if c.Stem() == "" {
		d = filepath.Join("build", c.TestDir, c.Snake())
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

// Build builds the model with `make <Target>-model` (mk/schema.mk
// generates the schema package and runs vpi/build.mk); jobs is VPI_JOBS
// (0: its default). It returns the library's path.
func (c Case) Build(root string, jobs int) (string, error) {
	args := []string{"--no-print-directory", fmt.Sprintf("WIDTH=%d", c.Width)}
	if c.Stem() != "" {
		args = append(args, "SERVICE="+c.Stem())
	} else {
		args = append(args, c.Vars+"_IDL="+c.IDL, c.Vars+"_NAME="+c.Name,
			c.Vars+"_PKG="+gen.SVPackage(c.Name), c.Vars+"_DIR="+c.OutDir())
	}
	if jobs > 0 {
		args = append(args, fmt.Sprintf("VPI_JOBS=%d", jobs))
	}
	// go test ./... runs the packages that build these models side by side:
	// one make per model at a time, or two would write the same files.
	unlock, err := c.LockModel(root)
	if err != nil {
		return "", err
	}
	defer unlock()
	target := c.Target + "-model"
	cmd := exec.Command("make", append(args, target)...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("make %s %s: %v\n%s", strings.Join(args, " "), target, err, out)
	}
	return filepath.Join(root, c.OutDir(), "libvmodel.so"), nil
}

// LockModel takes the lock every build of c's model holds, a file lock
// beside its directory so that it holds across processes (models of other
// cases build meanwhile): a caller that runs the model holds it so that no
// build replaces the model under it (not while calling Build, which takes
// it too).
func (c Case) LockModel(root string) (unlock func(), err error) {
	dir := filepath.Join(root, c.OutDir())
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("schemacase: locking %s: %v", f.Name(), err)
	}
	return func() { f.Close() }, nil // closing the file releases the lock
}
