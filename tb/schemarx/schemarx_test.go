package schemarx

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"arcalis/golden/schemagold"
	"arcalis/thriftidl/schema"
)

// Environment variables: the parent sets envCase (and envJobs) for each
// child; envMsg, with envCase, re-runs one message traced.
const (
	envCase = "SCHEMARX_CASE"  // <service>:<width>: run TestRecvSchemaOne on that model
	envMsg  = "SCHEMARX_MSG"   // a message number: run only it, traced
	envJobs = "SCHEMARX_JOBS"  // VPI_JOBS for the build (the parent builds two models at once)
	envLib  = "SCHEMARX_MODEL" // a model library to use instead of building one (make schema-gatesim's netlist)
)

// cases are the models TestRecvSchema checks: every service at 16 bytes
// per cycle (RequiredService at 32), and PostStorageService at the narrowest
// and widest too.
var cases = func() []Case {
	var cs []Case
	for _, s := range Services {
		w := 16
		if s.Name == "RequiredService" { // the one width PostStorageService's cases leave out
			w = 32
		}
		cs = append(cs, Module.Case(s, w))
	}
	for _, s := range Services {
		if s.Name == "PostStorageService" {
			cs = append(cs, Module.Case(s, 8), Module.Case(s, 64))
		}
	}
	return cs
}()

// parallel is how many children run at once: the machine has two cores.
const parallel = 2

// stallSeed seeds the stall and window pattern (with the message number).
const stallSeed = 0x7374_616c_6c73

// maxFailures ends a case early.
const maxFailures = 5

// TestRecvSchema runs each case in a child process (VPI holds one model
// per process), two at a time, and forwards a child's output when it fails
// or under -v.
func TestRecvSchema(t *testing.T) {
	if os.Getenv(envCase) != "" {
		t.Skipf("%s is set: TestRecvSchemaOne runs that case in this process", envCase)
	}
	ctx := t.Context()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-10*time.Second))
		t.Cleanup(cancel) // after the parallel subtests, unlike a defer
	}
	// The children read these, not this process: stat them, so that go
	// test's cache does not answer for a changed module, table or vector.
	root := repoRoot(t)
	inputs := []string{RTLSource, RTLPackage, "mk/schema.mk", "vpi/build.mk", "vpi/lib.mk", "vpi/shim.cpp", "vpi/shim.h"}
	for _, c := range cases {
		if _, err := c.Table(root); err != nil { // opens the IDL and what it includes
			t.Fatalf("%s: %v", c, err)
		}
		if c.Vectors != "" {
			inputs = append(inputs, c.Vectors)
		}
	}
	for _, f := range inputs {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			t.Fatal(err)
		}
	}
	sem := make(chan struct{}, parallel)
	for _, c := range cases {
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			sem <- struct{}{}
			defer func() { <-sem }()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestRecvSchemaOne$", "-test.v", "-test.count=1", "-test.timeout=0")
			cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
				return strings.HasPrefix(kv, envCase+"=") || strings.HasPrefix(kv, envMsg+"=")
			}), envCase+"="+c.String(), envJobs+"=1")
			t0 := time.Now()
			out, err := cmd.CombinedOutput()
			switch {
			case err != nil:
				t.Errorf("%s failed after %v (%v):\n%s", c, time.Since(t0).Round(time.Second), err, out)
			case !bytes.Contains(out, []byte("--- PASS: TestRecvSchemaOne")):
				t.Errorf("%s: the child did not pass TestRecvSchemaOne:\n%s", c, out)
			case testing.Verbose():
				t.Logf("%s in %v:\n%s", c, time.Since(t0).Round(time.Second), out)
			}
		})
	}
}

// repoRoot is the repository's root, from the package directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// loadCase parses sel ("<service>:<width>") and loads the case's table and
// messages; root is the repository's root.
func loadCase(t *testing.T, sel string) (c Case, root string, table *schema.Table, msgs []Message) {
	t.Helper()
	c, err := ParseCase(sel)
	if err != nil {
		t.Fatal(err)
	}
	root = repoRoot(t)
	if table, err = c.Table(root); err != nil {
		t.Fatal(err)
	}
	recs, err := c.Records(root)
	if err != nil {
		t.Fatal(err)
	}
	return c, root, table, Messages(c.Vectors, table, recs)
}

// TestRecvSchemaOne checks the case SCHEMARX_CASE names: it builds the
// model, runs every message of the case (or the one SCHEMARX_MSG names,
// traced) and compares each with schemagold.
func TestRecvSchemaOne(t *testing.T) {
	sel := os.Getenv(envCase)
	if sel == "" {
		t.Skipf("not selected: TestRecvSchema runs this in a child per case, with %s=<service>:<width>", envCase)
	}
	c, root, table, msgs := loadCase(t, sel)
	var err error
	only := -1
	if s := os.Getenv(envMsg); s != "" {
		if only, err = strconv.Atoi(s); err != nil || only < 0 || only >= len(msgs) {
			t.Fatalf("%s=%q: want a message number in [0, %d)", envMsg, s, len(msgs))
		}
	}
	jobs, _ := strconv.Atoi(os.Getenv(envJobs))

	t0 := time.Now()
	lib := os.Getenv(envLib)
	if lib == "" {
		if lib, err = c.Build(root, jobs); err != nil {
			t.Fatalf("%s: building the model: %v", c, err)
		}
	}
	built := time.Since(t0)
	model, err := OpenModel(lib, c.Width)
	if err != nil {
		t.Fatalf("%s: %v", c, err)
	}
	defer func() {
		if err := model.Close(); err != nil {
			t.Error(err)
		}
	}()
	if err := model.Reset(); err != nil {
		t.Fatal(err)
	}
	h := NewHarness(model, table, stallSeed)
	dir := filepath.Join(root, c.OutDir())

	t1 := time.Now()
	var st stats
	failures := 0
	for _, m := range msgs {
		if only >= 0 && m.N != only {
			continue
		}
		var o Outcome
		if only >= 0 {
			o = traced(t, h, m, filepath.Join(dir, fmt.Sprintf("msg-%d.fst", m.N)))
		} else {
			o = h.Check(m)
		}
		if o.Err != nil && !IsMismatch(o.Err) {
			t.Fatalf("%s: message %d (%s): %v", c, m.N, m.Source, o.Err)
		}
		st.count(o)
		if o.Err == nil {
			continue
		}
		failures++
		name := fmt.Sprintf("fail-%d", m.N)
		if only < 0 {
			traced(t, h, m, filepath.Join(dir, name+".fst"))
		} else {
			name = fmt.Sprintf("msg-%d", m.N) // traced already
		}
		if err := os.WriteFile(filepath.Join(dir, name+".msg"), m.Msg, 0o644); err != nil {
			t.Error(err)
		}
		t.Errorf("%s", report(c, m, o, filepath.Join(dir, name)))
		if failures == maxFailures {
			t.Errorf("%s: stopping after %d failures", c, failures)
			break
		}
	}
	t.Logf("%s: model built in %v; %d messages in %v: %s", c, built.Round(time.Millisecond), st.messages, time.Since(t1).Round(time.Millisecond), st)
	if only >= 0 || failures > 0 {
		return
	}
	if st.ok == 0 || st.compared == st.ok {
		t.Errorf("%s: %d messages compared, %d OK: want at least one OK and one other code", c, st.compared, st.ok)
	}
}

// traced re-runs one message from reset with an FST trace into path.
func traced(t *testing.T, h *Harness, m Message, path string) Outcome {
	t.Helper()
	if err := h.DUT.Reset(); err != nil {
		t.Fatal(err)
	}
	if err := h.DUT.TraceOn(path); err != nil {
		t.Fatal(err)
	}
	if err := h.DUT.Reset(); err != nil { // in the trace too
		t.Fatal(err)
	}
	o := h.Check(m)
	if err := h.DUT.TraceOff(); err != nil {
		t.Fatal(err)
	}
	return o
}

// report describes a failure: case, message, difference, and how to see it
// again; files is the path of its message and trace files without their
// extensions.
func report(c Case, m Message, o Outcome, files string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (Width %d): message %d, %s: %d bytes, capacity %d:\n", c.Name, c.Width, m.N, m.Source, len(m.Msg), m.Cap)
	fmt.Fprintf(&b, "\t%v\n", o.Err)
	fmt.Fprintf(&b, "\treference: %s at offset %d, area end %d, depth %d\n", o.Ref.Code, o.Ref.Offset, o.Ref.AreaEnd, o.Ref.Depth)
	if len(m.Msg) <= 512 {
		fmt.Fprintf(&b, "\tmessage: %s\n", Hex(m.Msg))
	} else {
		fmt.Fprintf(&b, "\tmessage (first 256 bytes): %s...\n", Hex(m.Msg[:256]))
	}
	fmt.Fprintf(&b, "\tfiles: %s.msg (the message), %s.fst (its trace)\n", files, files)
	fmt.Fprintf(&b, "\treplay: %s=%s %s=%d go test ./tb/schemarx -run '^TestRecvSchemaOne$' -count=1 -v", envCase, c, envMsg, m.N)
	return b.String()
}

// stats counts a case's outcomes.
type stats struct {
	messages, headerOnly, compared, ok, failed int
	codes                                      map[schemagold.Code]int
	cycles, stored                             int
}

func (s *stats) count(o Outcome) {
	s.messages++
	switch {
	case o.HeaderOnly:
		s.headerOnly++
		return
	case o.Err != nil:
		s.failed++
		return
	}
	s.compared++
	s.cycles += o.Cycles
	s.stored += o.Stored
	if s.codes == nil {
		s.codes = map[schemagold.Code]int{}
	}
	s.codes[o.Ref.Code]++
	if o.Ref.Code == schemagold.CodeOK {
		s.ok++
	}
}

func (s stats) String() string {
	codes := make([]string, 0, len(s.codes))
	for _, c := range schemagold.Codes() {
		if n := s.codes[c]; n > 0 {
			codes = append(codes, fmt.Sprintf("%v %d", c, n))
		}
	}
	return fmt.Sprintf("%d compared (%d OK), %d failed, %d header-only; %d cycles, %d bytes stored; codes: %s",
		s.compared, s.ok, s.failed, s.headerOnly, s.cycles, s.stored, strings.Join(codes, ", "))
}
