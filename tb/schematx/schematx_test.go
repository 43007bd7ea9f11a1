package schematx

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
)

// Environment variables: the parent sets envCase (and envJobs) for each
// child; envImg, with envCase, re-runs one image traced.
const (
	envCase = "SCHEMATX_CASE"  // <service>:<width>: run TestRespSchemaOne on that model
	envImg  = "SCHEMATX_IMG"   // an image number: run only it, traced
	envJobs = "SCHEMATX_JOBS"  // VPI_JOBS for the build
	envLib  = "SCHEMATX_MODEL" // a model library to use instead of building one
)

// cases: every service at 16 bytes a beat, PostStorageService at 8 and 64 too.
var cases = func() []Case {
	var cs []Case
	for _, s := range Services {
		cs = append(cs, Module.Case(s, 16))
	}
	for _, s := range Services {
		if s.Name == "PostStorageService" {
			cs = append(cs, Module.Case(s, 8), Module.Case(s, 64))
		}
	}
	return cs
}()

const (
	parallel   = 2 // children at once: the machine has two cores
	imgSeed    = 0x7265_7370_696d_67
	stallSeed  = 0x7374_616c_6c73
	numValid   = 300 // per case, spread over the methods with a reply
	numCorrupt = 300
	maxFail    = 5
)

// TestRespSchema runs each case in a child process (VPI holds one model
// per process), two at a time.
func TestRespSchema(t *testing.T) {
	if os.Getenv(envCase) != "" {
		t.Skipf("%s is set: TestRespSchemaOne runs that case in this process", envCase)
	}
	ctx := t.Context()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-10*time.Second))
		t.Cleanup(cancel)
	}
	// The children read these, not this process: stat them, so that go
	// test's cache does not answer for a changed module or table.
	root := repoRoot(t)
	inputs := []string{RTLSource, RTLPackage, "mk/schema.mk", "vpi/build.mk", "vpi/shim.cpp", "vpi/shim.h"}
	for _, c := range cases {
		if _, err := c.Table(root); err != nil {
			t.Fatalf("%s: %v", c, err)
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
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestRespSchemaOne$", "-test.v", "-test.count=1", "-test.timeout=0")
			cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool {
				return strings.HasPrefix(kv, envCase+"=") || strings.HasPrefix(kv, envImg+"=")
			}), envCase+"="+c.String(), envJobs+"=1")
			t0 := time.Now()
			out, err := cmd.CombinedOutput()
			switch {
			case err != nil:
				t.Errorf("%s failed after %v (%v):\n%s", c, time.Since(t0).Round(time.Second), err, out)
			case !bytes.Contains(out, []byte("--- PASS: TestRespSchemaOne")):
				t.Errorf("%s: the child did not pass TestRespSchemaOne:\n%s", c, out)
			case testing.Verbose():
				t.Logf("%s in %v:\n%s", c, time.Since(t0).Round(time.Second), out)
			}
		})
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestRespSchemaOne checks the case SCHEMATX_CASE names: it builds the
// model, runs every image of the case (or the one SCHEMATX_IMG names,
// traced) and compares each with schemagold.Serialize.
func TestRespSchemaOne(t *testing.T) {
	sel := os.Getenv(envCase)
	if sel == "" {
		t.Skipf("not selected: TestRespSchema runs this in a child per case, with %s=<service>:<width>", envCase)
	}
	c, err := ParseCase(sel)
	if err != nil {
		t.Fatal(err)
	}
	root := repoRoot(t)
	table, err := c.Table(root)
	if err != nil {
		t.Fatal(err)
	}
	imgs := Images(table, imgSeed, numValid, numCorrupt)
	only := -1
	if s := os.Getenv(envImg); s != "" {
		if only, err = strconv.Atoi(s); err != nil || only < 0 || only >= len(imgs) {
			t.Fatalf("%s=%q: want an image number in [0, %d)", envImg, s, len(imgs))
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
	for _, im := range imgs {
		if only >= 0 && im.N != only {
			continue
		}
		var o Outcome
		if only >= 0 {
			o = traced(t, h, im, filepath.Join(dir, fmt.Sprintf("img-%d.fst", im.N)))
		} else {
			o = h.Check(im)
		}
		if o.Err != nil && !IsMismatch(o.Err) {
			t.Fatalf("%s: image %d (%s): %v", c, im.N, im.Source, o.Err)
		}
		st.count(im, o)
		if o.Err == nil {
			continue
		}
		failures++
		name := fmt.Sprintf("fail-%d", im.N)
		if only < 0 {
			traced(t, h, im, filepath.Join(dir, name+".fst"))
		} else {
			name = fmt.Sprintf("img-%d", im.N)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".img"), im.Img, 0o644); err != nil {
			t.Error(err)
		}
		t.Errorf("%s", report(c, im, o, filepath.Join(dir, name)))
		if failures == maxFail {
			t.Errorf("%s: stopping after %d failures", c, failures)
			break
		}
	}
	t.Logf("%s: model built in %v; %d images in %v: %s", c, built.Round(time.Millisecond), st.images, time.Since(t1).Round(time.Millisecond), st)
	if only >= 0 || failures > 0 {
		return
	}
	// The generators must reach the module's success and its faults.
	if st.ok < numValid/2 || st.compared-st.ok < numCorrupt/4 {
		t.Errorf("%s: %d images compared, %d RESP_OK: want at least %d RESP_OK and %d faults", c, st.compared, st.ok, numValid/2, numCorrupt/4)
	}
}

// traced re-runs one image from reset with an FST trace into path.
func traced(t *testing.T, h *Harness, im Image, path string) Outcome {
	t.Helper()
	if err := h.DUT.Reset(); err != nil {
		t.Fatal(err)
	}
	if err := h.DUT.TraceOn(path); err != nil {
		t.Fatal(err)
	}
	if err := h.DUT.Reset(); err != nil {
		t.Fatal(err)
	}
	o := h.Check(im)
	if err := h.DUT.TraceOff(); err != nil {
		t.Fatal(err)
	}
	return o
}

// report describes a failure and how to see it again.
func report(c Case, im Image, o Outcome, files string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (Width %d): image %d, %s: %d bytes, area end %d:\n", c.Name, c.Width, im.N, im.Source, len(im.Img), areaEnd(im.Img))
	fmt.Fprintf(&b, "\t%v\n", o.Err)
	fmt.Fprintf(&b, "\treference: %v at offset %d; module: %v at offset %d, %d bytes out, %d reads\n", o.Code, o.Offset, o.GotCode, o.GotOffset, len(o.Got), o.Reads)
	fmt.Fprintf(&b, "\tfiles: %s.img (the image), %s.fst (its trace)\n", files, files)
	fmt.Fprintf(&b, "\treplay: %s=%s %s=%d go test ./tb/schematx -run '^TestRespSchemaOne$' -count=1 -v", envCase, c, envImg, im.N)
	return b.String()
}

func areaEnd(img []byte) int {
	h, _ := schemagold.ParseRespHeader(img)
	return int(h.AreaEnd)
}

// stats counts a case's outcomes.
type stats struct {
	images, headerOnly, compared, ok, failed int
	codes                                    map[schemagold.Code]int
	cycles, bytes, reads                     int
}

func (s *stats) count(im Image, o Outcome) {
	s.images++
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
	s.bytes += len(o.Got)
	s.reads += o.Reads
	if s.codes == nil {
		s.codes = map[schemagold.Code]int{}
	}
	s.codes[o.Code]++
	if o.Code == schemagold.CodeRespOK {
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
	return fmt.Sprintf("%d compared (%d RESP_OK), %d failed, %d header-only; %d cycles, %d bytes out, %d reads; codes: %s",
		s.compared, s.ok, s.failed, s.headerOnly, s.cycles, s.bytes, s.reads, strings.Join(codes, ", "))
}
