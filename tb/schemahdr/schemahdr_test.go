package schemahdr

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
	envCase = "SCHEMAHDR_CASE"  // <service>:<width>: run TestRecvHeaderOne on that model
	envMsg  = "SCHEMAHDR_MSG"   // a message number: run only it, traced
	envJobs = "SCHEMAHDR_JOBS"  // VPI_JOBS for the build
	envLib  = "SCHEMAHDR_MODEL" // a model of recv_header alone to use instead of building schema_pair's
)

// cases: every service at 16 bytes a window (UserTimelineService's names
// take two chunks). Other widths run on demand, SCHEMAHDR_CASE=
// PostStorageService:8 or :64: each model costs CI a build, and CI is
// near its time budget.
var cases = func() []Case {
	var cs []Case
	for _, s := range Services {
		cs = append(cs, Module.Case(s, 16))
	}
	return cs
}()

const (
	parallel  = 2 // children at once: the machine has two cores
	stallSeed = 0x7374_616c_6c73
	maxFail   = 5
)

// headerCodes are the codes CheckHeader returns: each case must reach
// every one.
var headerCodes = []schemagold.Code{schemagold.CodeOK, schemagold.CodeTruncated, schemagold.CodeBadVersion,
	schemagold.CodeBadMsgType, schemagold.CodeBadLength, schemagold.CodeUnknownMethod, schemagold.CodeMsgTooLarge}

// TestRecvHeader runs each case in a child process (VPI holds one model
// per process), two at a time, and forwards a child's output when it
// fails or under -v.
func TestRecvHeader(t *testing.T) {
	inputs := append([]string{RTLSource, RTLPackage, "mk/schema.mk", "vpi/build.mk", "vpi/lib.mk", "vpi/shim.cpp", "vpi/shim.h"}, pairSources...)
	for _, c := range cases {
		inputs = append(inputs, c.Vectors)
	}
	children := schemacase.Children{One: "TestRecvHeaderOne", EnvCase: envCase, EnvOne: envMsg, EnvJobs: envJobs, Parallel: parallel}
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

// TestRecvHeaderOne checks the case SCHEMAHDR_CASE names: it builds the
// schema_pair model (or opens SCHEMAHDR_MODEL's), runs every message of the case (or the one SCHEMAHDR_MSG names,
// traced) and compares each with schemagold.CheckHeader.
func TestRecvHeaderOne(t *testing.T) {
	sel := os.Getenv(envCase)
	if sel == "" {
		t.Skipf("not selected: TestRecvHeader runs this in a child per case, with %s=<service>:<width>", envCase)
	}
	c, root, table, msgs := loadCase(t, sel)
	only := schemacase.Only(t, envMsg, "a message number", len(msgs))
	open := OpenPair
	if os.Getenv(envLib) != "" {
		open = OpenModel // the unit's model or netlist (make schemahdr-gatesim)
	}
	model, built := schemacase.OpenChildModel(t, c, root, envLib, envJobs, open)
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
		Count:    st.count,
		Report:   func(m Message, o Outcome, files string) string { return report(c, m, o, files) },
		MaxFail:  maxFail,
	}.Run(t, c, dir, only, msgs)
	t.Logf("%s: model built in %v; %d messages in %v: %s", c, built.Round(time.Millisecond), st.messages, time.Since(t1).Round(time.Millisecond), st)
	if only >= 0 || failures > 0 {
		return
	}
	for _, code := range headerCodes {
		if st.codes[code] == 0 {
			t.Errorf("%s: no message ended %v: the generators must reach every code of the header", c, code)
		}
	}
}

// report describes a failure and how to see it again; files is the path
// of its message and trace files without their extensions.
func report(c Case, m Message, o Outcome, files string) string {
	var b strings.Builder
	size := fmt.Sprintf("%d bytes", len(m.Msg))
	if m.Big {
		size = fmt.Sprintf("%d bytes (big_i; the file holds the first %d)", BigLen, len(m.Msg))
	}
	fmt.Fprintf(&b, "%s (Width %d): message %d, %s: %s:\n", c.Name, c.Width, m.N, m.Source, size)
	fmt.Fprintf(&b, "\t%v\n", o.Err)
	fmt.Fprintf(&b, "\treference: %v at offset %d (msg_type %d, method %d, seqid %d); %d bytes taken by the module\n",
		o.Ref.Code, o.Ref.Offset, o.Ref.MsgType, o.Ref.Method, o.Ref.SeqID, o.Taken)
	fmt.Fprintf(&b, "\theader bytes: % x\n", m.Msg[:min(len(m.Msg), 48)])
	fmt.Fprintf(&b, "\tfiles: %s.msg (the message), %s.fst (its trace)\n", files, files)
	fmt.Fprintf(&b, "\treplay: %s=%s %s=%d go test ./tb/schemahdr -run '^TestRecvHeaderOne$' -count=1 -v", envCase, c, envMsg, m.N)
	return b.String()
}

// stats counts a case's outcomes.
type stats struct {
	messages, compared, failed int
	codes                      map[schemagold.Code]int
	cycles, taken              int
	// Faults after which the module had taken bytes past the fault's
	// offset (allowed within the window), and the most such bytes.
	pastFault, mostPast int
}

func (s *stats) count(_ Message, o Outcome) {
	s.messages++
	if o.Err != nil {
		s.failed++
		return
	}
	s.compared++
	s.cycles += o.Cycles
	s.taken += o.Taken
	if s.codes == nil {
		s.codes = map[schemagold.Code]int{}
	}
	s.codes[o.Ref.Code]++
	if past := o.Taken - int(o.Ref.Offset); o.Ref.Code != schemagold.CodeOK && past > 0 {
		s.pastFault++
		s.mostPast = max(s.mostPast, past)
	}
}

func (s stats) String() string {
	codes := make([]string, 0, len(s.codes))
	for _, c := range schemagold.Codes() {
		if n := s.codes[c]; n > 0 {
			codes = append(codes, fmt.Sprintf("%v %d", c, n))
		}
	}
	return fmt.Sprintf("%d compared, %d failed; %d cycles, %d bytes taken (%d faults taken past their offset, by up to %d bytes); codes: %s",
		s.compared, s.failed, s.cycles, s.taken, s.pastFault, s.mostPast, strings.Join(codes, ", "))
}
