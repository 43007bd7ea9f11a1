package schemarx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"arcalis/golden/schemagold"
	"arcalis/serve/conn"
	"arcalis/tb/schemacase"
	"arcalis/thriftidl/schema"
)

// FuzzWidth is the Width of the model the fuzz targets drive: the width
// every service is checked at by TestRecvSchema.
const FuzzWidth = 16

// envFuzzTrace, when set, makes a fuzz target re-run a failing input from
// reset with an FST trace into the case's build directory, fuzz-fail.fst.
const envFuzzTrace = "SCHEMAFUZZ_TRACE"

// Seeds bigger than this stay out of the fuzz corpus: each execution would
// cost thousands of cycles, and the mutator works on the whole input.
const maxSeedArgs = 4096

// fuzzStallSeed seeds the harness's stall and window pattern, with the
// input's stall seed as the message number.
const fuzzStallSeed = 0x6675_7a7a_7374

// FuzzCapacity maps a fuzz input's capacity byte to an App.Recv capacity:
// below 0x80, MinCapacity plus that many 64-byte lines (small areas, where
// AREA_OVERFLOW is reachable); below 0xC0, 65536; else MaxCap.
func FuzzCapacity(b uint8) int {
	switch {
	case b < 0x80:
		return schemagold.MinCapacity + 64*int(b)
	case b < 0xC0:
		return 65536
	}
	return MaxCap
}

// fuzzCapByte is a capacity byte FuzzCapacity maps to c or to the next
// capacity it has above c.
func fuzzCapByte(c int) uint8 {
	switch {
	case c <= FuzzCapacity(0x7F):
		return uint8(max(0, (c-schemagold.MinCapacity+63)/64))
	case c <= 65536:
		return 0x80
	}
	return 0xC0
}

// Fuzz is the body of FuzzRecvSchema<Service>, the fuzz target of service
// (a service of idl/, as in Services) against schemagold.Deserialize. An
// input is the args bytes of a CALL, the method (its index modulo the
// service's methods), the capacity (FuzzCapacity) and a stall seed: the
// target prepends a strict CALL header of that method, runs the message
// through the Verilated recv_schema at FuzzWidth with Harness.Check (the
// stall and window pattern of message number seed) and fails on any
// mismatch it reports. The seeds are the args of the service's default
// vectors, args generated from its table and the crafted messages of
// TestRecvSchema up to maxSeedArgs bytes (nesting at and past the stack's
// depth, element counts at the limit), and containers of hundreds of
// elements per method (an unknown one, and the args' first container
// field).
//
// The model is built (make schema-model; SCHEMARX_MODEL=<library> uses
// that one instead) before the inputs, and opened once per process at the
// first input, on a goroutine that keeps it: VPI holds one model per
// process, used from the OS thread that opened it, while go test calls the
// fuzz function from goroutines of its own. A process can therefore fuzz
// one service only: each target is in a package of its own. go test
// restarts its fuzzing worker now and then (after a minimization that ran
// out of time): the new process opens the model again.
func Fuzz(f *testing.F, service string) {
	c, err := ParseCase(fmt.Sprintf("%s:%d", service, FuzzWidth))
	if err != nil {
		f.Fatal(err)
	}
	root, err := schemacase.FindRoot("schemarx: no go.mod in the working directory or above")
	if err != nil {
		f.Fatal(err)
	}
	table, err := c.Table(root)
	if err != nil {
		f.Fatal(err)
	}
	// make reads these, not this process: stat them, so that go test's
	// cache does not answer for a changed module, table or vector.
	for _, p := range []string{RTLSource, RTLPackage, "mk/schema.mk", "vpi/build.mk", "vpi/shim.cpp", c.Vectors} {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			f.Fatal(err)
		}
	}
	seeds, err := fuzzSeeds(c, root, table)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range seeds {
		f.Add(s.args, s.method, s.capByte, s.stall)
	}
	// Built here rather than at the first input: a build that fails (the
	// module in the middle of an edit) fails the target, not an input the
	// fuzzer would keep as a crasher.
	lib := os.Getenv("SCHEMARX_MODEL") // as for TestRecvSchemaOne: the netlist of make schema-gatesim
	if lib == "" {
		if lib, err = c.Build(root, 0); err != nil {
			f.Fatal(err)
		}
	}
	pkg, _ := os.Getwd()
	if rel, err := filepath.Rel(root, pkg); err == nil {
		pkg = "./" + filepath.ToSlash(rel)
	}
	target := f.Name()
	f.Fuzz(func(t *testing.T, args []byte, method, capByte uint8, stall uint32) {
		fm, err := openFuzzModel(c, lib, filepath.Join(root, c.OutDir()), table)
		if err != nil {
			t.Fatal(err)
		}
		mi := int(method) % len(table.Methods)
		m := Message{
			N:      int(stall),
			Source: fmt.Sprintf("fuzz input of %s (method byte %d, capacity byte %#02x, stall seed %d)", target, method, capByte, stall),
			Msg:    callHeader(table.Methods[mi].Name, stall).u8(args...),
			Cap:    FuzzCapacity(capByte),
		}
		o, trace, err := fm.run(m)
		if err != nil { // the simulator's: the model is lost for the inputs after this one
			t.Fatalf("%s: simulator: %v", c, err)
		}
		if o.HeaderOnly { // the header is the target's own: it must always be good
			t.Fatalf("%s: the reference refused the header the target wrote (%v at %d)", c, o.Ref.Code, o.Ref.Offset)
		}
		if o.Err != nil {
			t.Fatal(fuzzReport(c, pkg, t.Name(), m, o, trace))
		}
	})
}

// writeDiff writes a failure's error, the reference's result and the
// message (its first 256 bytes if it is long), a line each.
func writeDiff(b *strings.Builder, m Message, o Outcome) {
	fmt.Fprintf(b, "\t%v\n", o.Err)
	fmt.Fprintf(b, "\treference: %s at offset %d, area end %d, depth %d\n", o.Ref.Code, o.Ref.Offset, o.Ref.AreaEnd, o.Ref.Depth)
	if len(m.Msg) <= 512 {
		fmt.Fprintf(b, "\tmessage: %s\n", Hex(m.Msg))
	} else {
		fmt.Fprintf(b, "\tmessage (first 256 bytes): %s...\n", Hex(m.Msg[:256]))
	}
}

// fuzzReport describes a failing fuzz input and how to run it again.
func fuzzReport(c Case, pkg, name string, m Message, o Outcome, trace string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (Width %d): %s: %d bytes, capacity %d:\n", c.Name, c.Width, m.Source, len(m.Msg), m.Cap)
	writeDiff(&b, m, o)
	if trace != "" {
		fmt.Fprintf(&b, "\ttrace: %s\n", trace)
	}
	// While fuzzing, name is the target's: go test then names the corpus
	// file it wrote ("Failing input written to ...", "To re-run: ...").
	target, entry, _ := strings.Cut(name, "/")
	run := "^" + target + "$"
	if entry != "" {
		run += "/^" + entry + "$"
	}
	fmt.Fprintf(&b, "\treplay: %s=1 go test %s -run '%s' -count=1 -v", envFuzzTrace, pkg, run)
	if entry == "" {
		b.WriteString(" (add /<file> of the input go test reports writing to testdata/fuzz)")
	}
	return b.String()
}

// fuzzSeed is one f.Add.
type fuzzSeed struct {
	args            []byte
	method, capByte uint8
	stall           uint32
}

// fuzzSeeds lists the seeds of c's target.
func fuzzSeeds(c Case, root string, t *schema.Table) ([]fuzzSeed, error) {
	var out []fuzzSeed
	img := make([]byte, schemagold.MinCapacity)
	add := func(msg []byte, capacity int) {
		start, ok := argsStart(msg)
		r := schemagold.Deserialize(t, msg, img) // only the method is wanted: the image may be small
		if !ok || r.Method == 0 || len(msg)-start > maxSeedArgs {
			return // a bad header, not the module's: golden's tests have them
		}
		out = append(out, fuzzSeed{msg[start:], r.Method - 1, fuzzCapByte(capacity), uint32(len(out))})
	}
	recs, err := c.Records(root)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		add(r.Msg, 65536)
		if r.Index%4 == 0 { // some at the smallest capacity: AREA_OVERFLOW
			add(r.Msg, schemagold.MinCapacity)
		}
	}
	for _, msg := range generated(t) {
		add(msg, 65536)
	}
	for _, m := range crafted(t) {
		add(m.Msg, m.Cap)
	}
	for _, m := range bigCounts(t) {
		add(m.Msg, m.Cap)
	}
	if len(out) == 0 {
		return nil, errors.New("schemarx: no fuzz seeds")
	}
	return out, nil
}

// bigCountElems is the count of bigCounts' containers: an element array
// past the small capacities, and many items to skip.
const bigCountElems = 300

// bigCounts lists, per method, a message whose first container field of
// the args holds bigCountElems zero elements, and one with an unknown
// list<i64> of as many.
func bigCounts(t *schema.Table) []Message {
	var out []Message
	for i, m := range t.Methods {
		c := &crafter{t: t, m: m, fields: t.StructFields(m.Args)}
		msg := callHeader(m.Name, uint32(i)).field(schema.List, unknownIn(c.fields, 100)).u8(schema.I64).u32(bigCountElems)
		msg = msg.u8(make([]byte, 8*bigCountElems)...).u8(schema.Stop)
		out = append(out, Message{Msg: msg, Cap: 65536})
		for _, f := range c.fields {
			ty := t.Types[f.Type]
			if ty.Wire != schema.List && ty.Wire != schema.Set && ty.Wire != schema.Map {
				continue
			}
			msg := callHeader(m.Name, uint32(i)).field(f.Wire, f.ID)
			elem := c.zero(ty.Elem)
			if ty.Wire == schema.Map {
				msg = msg.u8(t.Types[ty.Key].Wire, t.Types[ty.Elem].Wire)
				elem = c.zero(ty.Key).u8(elem...)
			} else {
				msg = msg.u8(t.Types[ty.Elem].Wire)
			}
			msg = msg.u32(bigCountElems)
			for range bigCountElems {
				msg = msg.u8(elem...)
			}
			out = append(out, Message{Msg: msg.u8(schema.Stop), Cap: 65536})
			break
		}
	}
	return out
}

// fuzzModel is the model of a fuzz process, kept by the goroutine of its
// owner (vpi.Open locks it to its thread); run hands it messages. The
// model is never closed: it lives as long as the process.
type fuzzModel struct {
	c     Case
	dir   string
	owner *conn.Owner
	model *Model // the owner's
	h     *Harness
}

var (
	fuzzOnce sync.Once
	fuzzM    *fuzzModel
	fuzzErr  error
)

// openFuzzModel opens c's model, lib, the first time it is called in the
// process (not in go test's fuzzing coordinator, which never calls the fuzz
// function), and returns it then and later; dir is the case's build
// directory, for traces.
func openFuzzModel(c Case, lib, dir string, table *schema.Table) (*fuzzModel, error) {
	fuzzOnce.Do(func() {
		fm := &fuzzModel{c: c, dir: dir}
		fm.owner, fuzzErr = conn.Own(func() (func() error, error) {
			model, err := OpenModel(lib, c.Width)
			if err == nil {
				err = model.Reset()
			}
			if err != nil {
				return nil, err
			}
			fm.model, fm.h = model, NewHarness(model, table, fuzzStallSeed)
			return model.Close, nil
		})
		if fuzzErr == nil {
			fuzzM = fm
		}
	})
	switch {
	case fuzzErr != nil:
		return nil, fuzzErr
	case fuzzM.c != c:
		return nil, fmt.Errorf("schemarx: this process fuzzes %s already: one model per process, one target per package", fuzzM.c)
	}
	return fuzzM, nil
}

// fuzzTrace runs m again from reset with an FST trace into path.
func fuzzTrace(model *Model, h *Harness, m Message, path string) error {
	if err := model.TraceOn(path); err != nil {
		return err
	}
	err := model.Reset()
	if err == nil {
		if o := h.Check(m); o.Err != nil && !IsMismatch(o.Err) {
			err = o.Err
		}
	}
	return errors.Join(err, model.TraceOff())
}

// run checks m on the model's goroutine: it returns m's outcome, the
// failing message's trace if envFuzzTrace asked for one, and the
// simulator's error.
func (fm *fuzzModel) run(m Message) (o Outcome, trace string, err error) {
	fm.owner.Do(func() {
		// From reset, so that an input fails or passes alone, whatever ran
		// before it: the fuzzer re-runs a failure to minimize it.
		if err = fm.model.Reset(); err == nil {
			o = fm.h.Check(m)
			if o.Err != nil && !IsMismatch(o.Err) {
				err, o.Err = o.Err, nil
			}
		}
		if err == nil && o.Err != nil && os.Getenv(envFuzzTrace) != "" {
			trace = filepath.Join(fm.dir, "fuzz-fail.fst")
			err = fuzzTrace(fm.model, fm.h, m, trace)
		}
	})
	return o, trace, err
}
