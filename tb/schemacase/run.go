package schemacase

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Children runs a test, One, in a child process per case (VPI holds one
// model per process), Parallel at a time, and forwards a child's output
// when it fails or under -v. Each child gets EnvCase=<service>:<width> and
// EnvJobs=1, and not the parent's EnvOne (the one item to re-run traced).
type Children struct {
	One      string // the test each child runs, e.g. "TestRecvSchemaOne"
	EnvCase  string // names the child's case
	EnvOne   string // selects one item of a case; the children do not inherit it
	EnvJobs  string // VPI_JOBS for the child's build
	Parallel int    // children at once
}

// Run runs a child per case. It skips the test in a child (EnvCase set).
// The children read inputs (paths relative to root) and the cases' IDLs,
// not this process: Run loads each table and stats each input first, so
// that go test's cache does not answer for a changed module or table.
func (r Children) Run(t *testing.T, root string, cases []Case, inputs []string) {
	t.Helper()
	if os.Getenv(r.EnvCase) != "" {
		t.Skipf("%s is set: %s runs that case in this process", r.EnvCase, r.One)
	}
	ctx := t.Context()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-10*time.Second))
		t.Cleanup(cancel) // after the parallel subtests, unlike a defer
	}
	for _, c := range cases {
		if _, err := c.Table(root); err != nil { // opens the IDL and what it includes
			t.Fatalf("%s: %v", c, err)
		}
	}
	for _, f := range inputs {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Fatal(err)
		}
	}
	sem := make(chan struct{}, r.Parallel)
	for _, c := range cases {
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			sem <- struct{}{}
			defer func() { <-sem }()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+r.One+"$", "-test.v", "-test.count=1", "-test.timeout=0")
			cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
				return strings.HasPrefix(kv, r.EnvCase+"=") || strings.HasPrefix(kv, r.EnvOne+"=")
			}), r.EnvCase+"="+c.String(), r.EnvJobs+"=1")
			t0 := time.Now()
			out, err := cmd.CombinedOutput()
			switch {
			case err != nil:
				t.Errorf("%s failed after %v (%v):\n%s", c, time.Since(t0).Round(time.Second), err, out)
			case !bytes.Contains(out, []byte("--- PASS: "+r.One)):
				t.Errorf("%s: the child did not pass %s:\n%s", c, r.One, out)
			case testing.Verbose():
				t.Logf("%s in %v:\n%s", c, time.Since(t0).Round(time.Second), out)
			}
		})
	}
}

// TestRoot is the repository's root, from the directory of a package two
// levels below it (go test runs a package's tests there).
func TestRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// ModelLib is the model library of the case a child checks: $envLib if
// set, else c built with VPI_JOBS $envJobs (see Build); built is how long
// that took.
func (c Case) ModelLib(root, envLib, envJobs string) (lib string, built time.Duration, err error) {
	jobs, _ := strconv.Atoi(os.Getenv(envJobs))
	t0 := time.Now()
	if lib = os.Getenv(envLib); lib == "" {
		lib, err = c.Build(root, jobs)
	}
	return lib, time.Since(t0), err
}

// FindRoot is the repository's root: the working directory or the nearest
// directory above it that holds go.mod. If there is none, the error says
// notFound.
func FindRoot(notFound string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New(notFound)
		}
		dir = up
	}
}

// Items is how a child's test checks its case's items (messages, images)
// one by one, I an item and O its outcome.
type Items[I, O any] struct {
	Kind, Ext string // what an item is called ("message") and its files' extension ("msg")
	Item      func(I) (n int, source string, data []byte)
	Check     func(I) O                           // runs an item on DUT
	DUT       Tracer                              // the model Check runs on, for traces
	Err       func(O) error                       // the outcome's error: a mismatch (IsMismatch) or the simulator's
	Mismatch  func(error) bool                    // whether the error is a mismatch, not the simulator's
	Count     func(I, O)                          // counts an outcome
	Report    func(i I, o O, files string) string // describes a failure, files its files' path without extension
	MaxFail   int                                 // failures that end the case early
}

// Run checks items, or with only >= 0 the item numbered only, traced into
// <dir>/<ext>-<n>.fst. A failure writes the item to <dir>/fail-<n>.<ext>
// with its trace beside it (<dir>/<ext>-<n>.<ext> with only) and reports
// it; a simulator's error ends the test. It returns the failures.
func (r Items[I, O]) Run(t *testing.T, c Case, dir string, only int, items []I) (failures int) {
	t.Helper()
	for _, it := range items {
		n, source, data := r.Item(it)
		if only >= 0 && n != only {
			continue
		}
		var o O
		if only >= 0 {
			o = r.traced(t, it, filepath.Join(dir, fmt.Sprintf("%s-%d.fst", r.Ext, n)))
		} else {
			o = r.Check(it)
		}
		if err := r.Err(o); err != nil && !r.Mismatch(err) {
			t.Fatalf("%s: %s %d (%s): %v", c, r.Kind, n, source, err)
		}
		r.Count(it, o)
		if r.Err(o) == nil {
			continue
		}
		failures++
		name := fmt.Sprintf("fail-%d", n)
		if only < 0 {
			r.traced(t, it, filepath.Join(dir, name+".fst"))
		} else {
			name = fmt.Sprintf("%s-%d", r.Ext, n) // traced already
		}
		if err := os.WriteFile(filepath.Join(dir, name+"."+r.Ext), data, 0o644); err != nil {
			t.Error(err)
		}
		t.Errorf("%s", r.Report(it, o, filepath.Join(dir, name)))
		if failures == r.MaxFail {
			t.Errorf("%s: stopping after %d failures", c, failures)
			break
		}
	}
	return failures
}

// Tracer is what a trace needs of a model.
type Tracer interface {
	Reset() error
	TraceOn(path string) error
	TraceOff() error
}

// traced re-runs it from reset with an FST trace into path.
func (r Items[I, O]) traced(t *testing.T, it I, path string) O {
	t.Helper()
	if err := r.DUT.Reset(); err != nil {
		t.Fatal(err)
	}
	if err := r.DUT.TraceOn(path); err != nil {
		t.Fatal(err)
	}
	if err := r.DUT.Reset(); err != nil { // in the trace too
		t.Fatal(err)
	}
	o := r.Check(it)
	if err := r.DUT.TraceOff(); err != nil {
		t.Fatal(err)
	}
	return o
}

// Only is the number of the one item $env selects, -1 if it is unset;
// what names an item number ("a message number"), n is how many there are.
func Only(t testing.TB, env, what string, n int) int {
	t.Helper()
	s := os.Getenv(env)
	if s == "" {
		return -1
	}
	only, err := strconv.Atoi(s)
	if err != nil || only < 0 || only >= n {
		t.Fatalf("%s=%q: want %s in [0, %d)", env, s, what, n)
	}
	return only
}

// Model is what OpenChildModel needs of a model.
type Model interface {
	Close() error
	Reset() error
}

// OpenChildModel opens, for a child's test, the model of c (see ModelLib)
// with open, Closes it when the test ends, and resets it. built is how
// long the build took.
func OpenChildModel[M Model](t *testing.T, c Case, root, envLib, envJobs string, open func(lib string, width int) (M, error)) (model M, built time.Duration) {
	t.Helper()
	lib, built, err := c.ModelLib(root, envLib, envJobs)
	if err != nil {
		t.Fatalf("%s: building the model: %v", c, err)
	}
	model, err = open(lib, c.Width)
	if err != nil {
		t.Fatalf("%s: %v", c, err)
	}
	t.Cleanup(func() {
		if err := model.Close(); err != nil {
			t.Error(err)
		}
	})
	if err := model.Reset(); err != nil {
		t.Fatal(err)
	}
	return model, built
}
