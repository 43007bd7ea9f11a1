package schemarx

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"arcalis/golden/schemagold"
	"arcalis/tb/schemacase"
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
	inputs := []string{RTLSource, RTLPackage, "mk/schema.mk", "vpi/build.mk", "vpi/lib.mk", "vpi/shim.cpp", "vpi/shim.h"}
	for _, c := range cases {
		if c.Vectors != "" {
			inputs = append(inputs, c.Vectors)
		}
	}
	children := schemacase.Children{One: "TestRecvSchemaOne", EnvCase: envCase, EnvOne: envMsg, EnvJobs: envJobs, Parallel: parallel}
	children.Run(t, schemacase.TestRoot(t), cases, inputs)
}

// loadCase parses sel ("<service>:<width>") and loads the case's table and
// messages; root is the repository's root.
func loadCase(t *testing.T, sel string) (c Case, root string, table *schema.Table, msgs []Message) {
	t.Helper()
	c, err := ParseCase(sel)
	if err != nil {
		t.Fatal(err)
	}
	root = schemacase.TestRoot(t)
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
	only := schemacase.Only(t, envMsg, "a message number", len(msgs))
	model, built := schemacase.OpenChildModel(t, c, root, envLib, envJobs, OpenModel)
	h := NewHarness(model, table, stallSeed)
	dir := filepath.Join(root, c.OutDir())

	t1 := time.Now()
	var st stats
	failures := schemacase.Items[Message, Outcome]{
		Kind:     "message",
		Ext:      "msg",
		Item:     func(m Message) (int, string, []byte) { return m.N, m.Source, m.Msg },
		Check:    h.Check,
		DUT:      h.DUT,
		Err:      func(o Outcome) error { return o.Err },
		Mismatch: IsMismatch,
		Count:    func(_ Message, o Outcome) { st.count(o) },
		Report:   func(m Message, o Outcome, files string) string { return report(c, m, o, files) },
		MaxFail:  maxFailures,
	}.Run(t, c, dir, only, msgs)
	t.Logf("%s: model built in %v; %d messages in %v: %s", c, built.Round(time.Millisecond), st.messages, time.Since(t1).Round(time.Millisecond), st)
	if only >= 0 || failures > 0 {
		return
	}
	if st.ok == 0 || st.compared == st.ok {
		t.Errorf("%s: %d messages compared, %d OK: want at least one OK and one other code", c, st.compared, st.ok)
	}
}

// report describes a failure: case, message, difference, and how to see it
// again; files is the path of its message and trace files without their
// extensions.
func report(c Case, m Message, o Outcome, files string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (Width %d): message %d, %s: %d bytes, capacity %d:\n", c.Name, c.Width, m.N, m.Source, len(m.Msg), m.Cap)
	writeDiff(&b, m, o)
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
