package schematx

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"arcalis/golden/schemagold"
	"arcalis/tb/schemacase"
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
	children := schemacase.Children{One: "TestRespSchemaOne", EnvCase: envCase, EnvOne: envImg, EnvJobs: envJobs, Parallel: parallel}
	children.Run(t, schemacase.TestRoot(t), cases, []string{RTLSource, RTLPackage, "mk/schema.mk", "vpi/build.mk", "vpi/shim.cpp", "vpi/shim.h"})
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
	root := schemacase.TestRoot(t)
	table, err := c.Table(root)
	if err != nil {
		t.Fatal(err)
	}
	imgs := Images(table, imgSeed, numValid, numCorrupt)
	only := schemacase.Only(t, envImg, "an image number", len(imgs))
	model, built := schemacase.OpenChildModel(t, c, root, envLib, envJobs, OpenModel)
	h := NewHarness(model, table, stallSeed)
	dir := filepath.Join(root, c.OutDir())

	t1 := time.Now()
	var st stats
	failures := schemacase.Items[Image, Outcome]{
		Kind:     "image",
		Ext:      "img",
		Item:     func(im Image) (int, string, []byte) { return im.N, im.Source, im.Img },
		Check:    h.Check,
		DUT:      h.DUT,
		Err:      func(o Outcome) error { return o.Err },
		Mismatch: IsMismatch,
		Count:    st.count,
		Report:   func(im Image, o Outcome, files string) string { return report(c, im, o, files) },
		MaxFail:  maxFail,
	}.Run(t, c, dir, only, imgs)
	t.Logf("%s: model built in %v; %d images in %v: %s", c, built.Round(time.Millisecond), st.images, time.Since(t1).Round(time.Millisecond), st)
	if only >= 0 || failures > 0 {
		return
	}
	// The generators must reach the module's success and its faults.
	if st.ok < numValid/2 || st.compared-st.ok < numCorrupt/4 {
		t.Errorf("%s: %d images compared, %d RESP_OK: want at least %d RESP_OK and %d faults", c, st.compared, st.ok, numValid/2, numCorrupt/4)
	}
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
