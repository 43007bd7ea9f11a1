package schemarx

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"

	"arcalis/golden/schemagold"
	"arcalis/tb/schemacase"
	"arcalis/thriftidl/schema"
)

// garbage fills the RTL's image before each message, so that an area byte
// the module should have zeroed and did not shows.
const garbage = 0xA5

// Harness drives messages through a DUT and compares what it reports and
// writes with schemagold.Deserialize.
type Harness struct {
	DUT   DUT
	Table *schema.Table
	Seed  uint64 // of the stall and window pattern: rand.NewPCG(Seed, message number)

	rtl, ref []byte // images of MaxCap bytes
	dirty    int    // rtl bytes [AreaStart, dirty) may hold other than garbage
	stored   int    // bytes stored by the message so far
	head     int    // the message offset after the bytes taken so far
	win      []byte
	in       Inputs
}

// NewHarness returns a harness for d with table t.
func NewHarness(d DUT, t *schema.Table, seed uint64) *Harness {
	h := &Harness{DUT: d, Table: t, Seed: seed, rtl: make([]byte, MaxCap), ref: make([]byte, MaxCap), win: make([]byte, d.Width())}
	h.dirty = len(h.rtl)
	return h
}

// Outcome is what one message gave.
type Outcome struct {
	HeaderOnly bool              // the header failed: the module has nothing to walk
	Ref, Got   schemagold.Result // the reference's header line and the module's
	Cycles     int               // cycles from start_i to done_o
	Stored     int               // image bytes the module stored
	Head       int               // the message offset after the bytes the module took
	Err        error             // how the module differed from the reference, or broke the protocol
}

// Mismatch is a difference from the reference or a protocol violation
// (schemacase's: one type for the units' harnesses).
type Mismatch = schemacase.Mismatch

// IsMismatch reports whether err is the module's fault rather than the
// simulator's or the harness's.
func IsMismatch(err error) bool { return schemacase.IsMismatch(err) }

func mismatchf(format string, args ...any) error { return schemacase.Mismatchf(format, args...) }

// Check runs one message. An error that is not a *Mismatch in Outcome.Err
// is the simulator's.
func (h *Harness) Check(m Message) Outcome {
	var o Outcome
	o.Ref = schemagold.Deserialize(h.Table, m.Msg, h.ref[:m.Cap])
	start, ok := argsStart(m.Msg)
	if o.Ref.Method == 0 || !ok {
		o.HeaderOnly = true
		return o
	}
	if err := schemagold.CheckCapacity(m.Cap); err != nil {
		o.Err = err
		return o
	}
	h.stored, h.head = 0, start
	o.Got, o.Cycles, o.Err = h.walk(m, start, o.Ref)
	o.Stored, o.Head = h.stored, h.head
	if o.Err != nil {
		return o
	}
	o.Err = h.compare(m, o.Ref, o.Got)
	if o.Err == nil && o.Ref.Code == schemagold.CodeOK && o.Head != int(o.Ref.Offset) {
		// The bytes after the args' STOP are not the module's to take.
		o.Err = mismatchf("took the message up to byte %d, want up to the args' end %d", o.Head, o.Ref.Offset)
	}
	return o
}

// walk pulses start_i with the window at the args and feeds the message
// until done_o, applying the module's stores to h.rtl. It returns the
// module's header line.
func (h *Harness) walk(m Message, start int, ref schemagold.Result) (schemagold.Result, int, error) {
	clear(h.rtl[:schemagold.HeaderSize])
	fill(h.rtl[schemagold.AreaStart:h.dirty], garbage)
	h.dirty = schemagold.AreaStart

	rng := rand.New(rand.NewPCG(h.Seed, uint64(m.N)))
	// A third of the messages run undisturbed, the others with a stall or
	// slow arrivals on about a tenth or a third of their cycles.
	disturb := []int{0, 10, 33}[rng.IntN(3)]
	w := h.DUT.Width()
	msg, n := m.Msg, len(m.Msg)
	budget := 1000 + 16*n + 8*m.Cap/w
	in := &h.in
	*in = Inputs{Method: ref.Method - 1, Cap: uint32(m.Cap), Win: h.win}
	pos := start
	arrived := start // message bytes in the window's buffer: a window never loses bytes it showed
	stalled := false // stall_i last cycle: no action now
	for cyc := 0; ; cyc++ {
		if cyc == budget {
			return schemagold.Result{}, cyc, mismatchf("hang: done_o not set after %d cycles (at message byte %d of %d)", cyc, pos, n)
		}
		in.Start = cyc == 0
		in.Stall = cyc > 0 && rng.IntN(200) < disturb // half as often as slow arrivals
		if rng.IntN(100) < disturb {
			arrived = max(arrived, min(n, pos+rng.IntN(w+1)))
		} else {
			arrived = max(arrived, min(n, pos+w))
		}
		avail := min(w, arrived-pos)
		copy(h.win, msg[pos:pos+avail])
		for k := avail; k < w; k++ { // don't-care bytes: anything
			h.win[k] = byte(rng.Uint32())
		}
		in.Avail, in.Rem, in.Pos = avail, uint32(n-pos), uint32(pos)
		out, err := h.DUT.Cycle(in)
		if err != nil {
			return schemagold.Result{}, cyc, err
		}
		if cyc > 0 && out.Done { // done_o still holds the previous message's result at the start edge
			if out.Take != 0 || out.StValid {
				return schemagold.Result{}, cyc, mismatchf("cycle %d: done_o is 1 but take_o is %d and st_valid_o %v", cyc, out.Take, out.StValid)
			}
			r := result(out, ref)
			// One more cycle: the result holds until the next start_i.
			in.Start, in.Stall = false, rng.IntN(2) == 0
			out, err := h.DUT.Cycle(in)
			switch {
			case err != nil:
				return r, cyc, err
			case !out.Done || out.Take != 0 || out.StValid:
				return r, cyc, mismatchf("cycle %d, after done_o: done_o %v, take_o %d, st_valid_o %v; want 1, 0, 0", cyc+1, out.Done, out.Take, out.StValid)
			case result(out, ref) != r:
				return r, cyc, mismatchf("cycle %d, after done_o: the result changed: %s", cyc+1, resultDiff(result(out, ref), r))
			}
			return r, cyc, nil
		}
		switch {
		case out.Take > avail:
			return schemagold.Result{}, cyc, mismatchf("cycle %d: take_o %d with avail_i %d (at message byte %d)", cyc, out.Take, avail, pos)
		case stalled && (out.Take != 0 || out.StValid):
			return schemagold.Result{}, cyc, mismatchf("cycle %d: stall_i was 1 last cycle but take_o is %d and st_valid_o %v", cyc, out.Take, out.StValid)
		}
		stalled = in.Stall
		if out.StValid {
			if err := h.store(cyc, out, m.Cap); err != nil {
				return schemagold.Result{}, cyc, err
			}
		}
		pos += out.Take
		h.head = pos
	}
}

// store applies one store of the module to h.rtl, refusing one outside
// the area [AreaStart, capacity) or at an unaligned address.
func (h *Harness) store(cyc int, out *Outputs, capacity int) error {
	addr := int(out.StAddr)
	if addr%schemagold.SlotSize != 0 {
		return mismatchf("cycle %d: store at %#x, not a multiple of 8 (mask %#x)", cyc, addr, out.StMask)
	}
	for k := range h.DUT.Width() {
		if out.StMask>>k&1 == 0 {
			continue
		}
		a := addr + k
		if a < schemagold.AreaStart || a >= capacity {
			return mismatchf("cycle %d: writes outside its buffer: store at %#x mask %#x touches byte %#x, outside the area [%#x, %#x)",
				cyc, addr, out.StMask, a, schemagold.AreaStart, capacity)
		}
		h.rtl[a] = out.StData[k]
		h.stored++
		h.dirty = max(h.dirty, a+1)
	}
	return nil
}

// result is the module's header line: its result registers, and what the
// header step (the testbench's) found.
func result(out *Outputs, ref schemagold.Result) schemagold.Result {
	r := schemagold.Result{
		ArgsSize: out.ArgsSize,
		AreaEnd:  out.AreaEnd,
		Struct:   out.MissStruct,
		FieldID:  int16(out.MissID),
		Depth:    out.Depth,
		SeqID:    ref.SeqID,
		Code:     schemagold.Code(out.Code),
		MsgType:  ref.MsgType,
		Method:   ref.Method,
		Offset:   out.Offset,
	}
	if r.ArgsSize != 0 {
		r.ArgsOffset = schemagold.AreaStart
	}
	return r
}

// compare checks the module's header line against the reference's and, on
// OK, its area and what ReadBack finds in it.
func (h *Harness) compare(m Message, ref, got schemagold.Result) error {
	return Compare(h.Table, ref, got, h.ref[:m.Cap], h.rtl[:m.Cap])
}

// Compare checks a module's header line got against the reference's ref
// and, on OK, its image rtl against the reference's image refImg (both of
// the message's capacity) over the area the reference wrote, and what
// ReadBack finds in each. It writes got's header line into rtl. A
// difference is a *Mismatch; another error is the reference's.
func Compare(t *schema.Table, ref, got schemagold.Result, refImg, rtl []byte) error {
	if d := resultDiff(got, ref); d != "" {
		return mismatchf("header line differs: %s", d)
	}
	if ref.Code != schemagold.CodeOK {
		return nil
	}
	end := int(ref.AreaEnd)
	if i := firstDiff(rtl[schemagold.AreaStart:end], refImg[schemagold.AreaStart:end]); i >= 0 {
		a := schemagold.AreaStart + i
		line := a &^ 7
		return mismatchf("image byte %#x (area [%#x, %#x)) is %#02x, want %#02x; slot %#x: got % x, want % x",
			a, schemagold.AreaStart, end, rtl[a], refImg[a], line, rtl[line:line+8], refImg[line:line+8])
	}
	got.PutHeader(rtl)
	gm, gerr := schemagold.ReadBack(t, rtl)
	rm, rerr := schemagold.ReadBack(t, refImg)
	switch {
	case rerr != nil:
		return fmt.Errorf("the reference's image does not read back: %v", rerr)
	case gerr != nil:
		return mismatchf("the image does not read back: %v", gerr)
	case !reflect.DeepEqual(gm, rm):
		return mismatchf("read back differs: %s", valueDiff("args", gm.Args, rm.Args))
	}
	return nil
}

// resultDiff names every field of the header line that differs.
func resultDiff(got, want schemagold.Result) string {
	var d []string
	f := func(name string, g, w any) {
		if g != w {
			d = append(d, fmt.Sprintf("%s %v, want %v", name, g, w))
		}
	}
	f("Code", got.Code, want.Code)
	f("Offset", got.Offset, want.Offset)
	f("AreaEnd", got.AreaEnd, want.AreaEnd)
	f("ArgsOffset", got.ArgsOffset, want.ArgsOffset)
	f("ArgsSize", got.ArgsSize, want.ArgsSize)
	f("Depth", got.Depth, want.Depth)
	f("Struct", got.Struct, want.Struct)
	f("FieldID", got.FieldID, want.FieldID)
	f("SeqID", got.SeqID, want.SeqID)
	f("MsgType", got.MsgType, want.MsgType)
	f("Method", got.Method, want.Method)
	return strings.Join(d, "; ")
}

// firstDiff is the index of the first byte where a and b (of one length)
// differ, or -1.
func firstDiff(a, b []byte) int {
	if bytes.Equal(a, b) {
		return -1
	}
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// valueDiff describes the first difference between two values ReadBack
// returned, at path.
func valueDiff(path string, got, want any) string {
	switch w := want.(type) {
	case *schemagold.Struct:
		g, ok := got.(*schemagold.Struct)
		if !ok || g == nil || w == nil {
			return fmt.Sprintf("%s: %T, want %T", path, got, want)
		}
		for i := range max(len(g.Fields), len(w.Fields)) {
			switch {
			case i >= len(g.Fields):
				return fmt.Sprintf("%s: field %d (%s) missing", path, w.Fields[i].ID, w.Fields[i].Name)
			case i >= len(w.Fields):
				return fmt.Sprintf("%s: field %d (%s) present, want absent", path, g.Fields[i].ID, g.Fields[i].Name)
			case g.Fields[i].ID != w.Fields[i].ID:
				return fmt.Sprintf("%s: field %d present where %d was expected", path, g.Fields[i].ID, w.Fields[i].ID)
			}
			if d := valueDiff(path+"."+w.Fields[i].Name, g.Fields[i].Value, w.Fields[i].Value); d != "" {
				return d
			}
		}
		return ""
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: %d elements, want %d", path, len(g), len(w))
		}
		for i := range w {
			if d := valueDiff(fmt.Sprintf("%s[%d]", path, i), g[i], w[i]); d != "" {
				return d
			}
		}
		return ""
	case []schemagold.MapEntry:
		g, ok := got.([]schemagold.MapEntry)
		if !ok || len(g) != len(w) {
			return fmt.Sprintf("%s: %d entries, want %d", path, len(g), len(w))
		}
		for i := range w {
			if d := valueDiff(fmt.Sprintf("%s[%d].key", path, i), g[i].Key, w[i].Key); d != "" {
				return d
			}
			if d := valueDiff(fmt.Sprintf("%s[%d].value", path, i), g[i].Value, w[i].Value); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("%s: %#v, want %#v", path, got, want)
	}
	return ""
}

func fill(b []byte, v byte) {
	for i := range b {
		b[i] = v
	}
}

// Hex is msg as hex, for reports.
func Hex(msg []byte) string { return fmt.Sprintf("%x", msg) }
