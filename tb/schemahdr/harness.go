package schemahdr

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"arcalis/golden/schemagold"
	"arcalis/tb/schemacase"
	"arcalis/thriftidl/schema"
)

// RemMax is rem_i's saturated value, a big message's.
const RemMax = 1<<24 - 1

// Harness drives messages through a DUT and compares its results with
// schemagold.CheckHeader's.
type Harness struct {
	DUT   DUT
	Table *schema.Table
	Seed  uint64 // of the stall and window pattern: rand.NewPCG(Seed, message number)

	big      []byte // a big message's bytes, allocated for the first
	bigDirty int    // big's bytes [0, bigDirty) may be other than zero
	win      []byte
	in       Inputs
}

// NewHarness returns a harness for d with table t.
func NewHarness(d DUT, t *schema.Table, seed uint64) *Harness {
	return &Harness{DUT: d, Table: t, Seed: seed, win: make([]byte, d.Width())}
}

// Outcome is what one message gave.
type Outcome struct {
	Ref    schemagold.Result // CheckHeader's
	Got    schemagold.Result // the module's code, offset, message type, method and seqid
	Cycles int               // from start_i to done_o
	Taken  int               // message bytes the module took
	Err    error             // how the module differed from the reference or broke the protocol
}

// Mismatch is a difference from the reference or a protocol violation
// (schemacase's: one type for the units' harnesses).
type Mismatch = schemacase.Mismatch

// IsMismatch reports whether err is the module's fault rather than the
// simulator's.
func IsMismatch(err error) bool { return schemacase.IsMismatch(err) }

func mismatchf(format string, args ...any) error { return schemacase.Mismatchf(format, args...) }

// Full is m's bytes: Msg, or for a big message BigLen bytes starting
// with Msg (valid until the next Full).
func (h *Harness) Full(m Message) []byte {
	if !m.Big {
		return m.Msg
	}
	if h.big == nil {
		h.big = make([]byte, BigLen)
	}
	clear(h.big[:h.bigDirty])
	h.bigDirty = copy(h.big, m.Msg)
	return h.big
}

// Check runs one message. An error in Outcome.Err that is not a
// *Mismatch is the simulator's.
func (h *Harness) Check(m Message) Outcome {
	var o Outcome
	msg := h.Full(m)
	o.Ref = schemagold.CheckHeader(h.Table, msg)
	o.Got, o.Cycles, o.Taken, o.Err = h.run(m, msg)
	switch {
	case o.Err != nil:
	case ResultDiff(o.Got, o.Ref) != "":
		o.Err = mismatchf("cycle %d (done_o): %s", o.Cycles, ResultDiff(o.Got, o.Ref))
	case o.Ref.Code == schemagold.CodeOK && o.Taken != int(o.Ref.Offset):
		// The args are recv_schema's to take.
		o.Err = mismatchf("cycle %d (done_o): took %d bytes, want exactly the header's %d (12 + name length)", o.Cycles, o.Taken, o.Ref.Offset)
	}
	return o
}

// run pulses start_i with the window at byte 0 and feeds the message
// until done_o, checking the protocol. It returns the module's result,
// the cycle of done_o and the bytes taken.
func (h *Harness) run(m Message, msg []byte) (got schemagold.Result, cyc, pos int, err error) {
	rng := rand.New(rand.NewPCG(h.Seed, uint64(m.N)))
	// A third of the messages run undisturbed, the others with a stall or
	// slow arrivals on about a tenth or a third of their cycles.
	disturb := []int{0, 10, 33}[rng.IntN(3)]
	n := len(msg)
	budget := Budget(h.Table, n)
	in := &h.in
	*in = Inputs{Win: h.win}
	arrived := 0     // message bytes in the window's buffer: a window never loses bytes it showed
	stalled := false // stall_i last cycle: no take now
	for cyc = 0; ; cyc++ {
		if cyc == budget {
			return got, cyc, pos, mismatchf("cycle %d: hang: done_o not set (%d bytes taken of %d)", cyc, pos, n)
		}
		h.feed(rng, in, msg, m.Big, cyc, pos, disturb, &arrived)
		out, err := h.DUT.Cycle(in)
		if err != nil {
			return got, cyc, pos, err
		}
		if cyc > 0 && out.Done { // at the start edge done_o may show the previous message's result
			if out.Take != 0 {
				return got, cyc, pos, mismatchf("cycle %d: done_o is 1 but take_o is %d", cyc, out.Take)
			}
			got = out.Result()
			// One more cycle: the result holds until the next start_i.
			h.feed(rng, in, msg, m.Big, cyc+1, pos, disturb, &arrived)
			out, err := h.DUT.Cycle(in)
			switch {
			case err != nil:
				return got, cyc, pos, err
			case !out.Done || out.Take != 0:
				return got, cyc, pos, mismatchf("cycle %d, after done_o: done_o %v, take_o %d; want 1, 0", cyc+1, out.Done, out.Take)
			case out.Result() != got:
				return got, cyc, pos, mismatchf("cycle %d, after done_o: the result changed: %s", cyc+1, ResultDiff(out.Result(), got))
			}
			return got, cyc, pos, nil
		}
		switch {
		case out.Take > in.Avail:
			return got, cyc, pos, mismatchf("cycle %d: take_o %d with avail_i %d (at message byte %d)", cyc, out.Take, in.Avail, pos)
		case stalled && out.Take != 0:
			return got, cyc, pos, mismatchf("cycle %d: stall_i was 1 last cycle but take_o is %d (at message byte %d)", cyc, out.Take, pos)
		}
		stalled = in.Stall
		pos += out.Take
	}
}

// feed sets the inputs of cycle cyc with the head at pos: start_i at
// cycle 0 (big_i with it; after it big_i is don't-care, so random), a
// stall now and then, the window with what has arrived and random bytes
// past it.
func (h *Harness) feed(rng *rand.Rand, in *Inputs, msg []byte, big bool, cyc, pos, disturb int, arrived *int) {
	w, n := len(h.win), len(msg)
	in.Start = cyc == 0
	in.Big = big
	if cyc > 0 {
		in.Big = rng.IntN(2) == 0
	}
	in.Stall = cyc > 0 && rng.IntN(200) < disturb // half as often as slow arrivals
	if rng.IntN(100) < disturb {
		*arrived = max(*arrived, min(n, pos+rng.IntN(w+1)))
	} else {
		*arrived = max(*arrived, min(n, pos+w))
	}
	in.Avail = min(w, *arrived-pos)
	copy(h.win, msg[pos:pos+in.Avail])
	for k := in.Avail; k < w; k++ {
		h.win[k] = byte(rng.Uint32())
	}
	in.Rem = uint32(min(n-pos, RemMax))
	if big {
		in.Rem = RemMax
	}
}

// maxName is the longest method name's length.
func maxName(t *schema.Table) int {
	l := 0
	for _, m := range t.Methods {
		l = max(l, len(m.Name))
	}
	return l
}

// Result is the module's result registers as a Result.
func (o *Outputs) Result() schemagold.Result {
	return schemagold.Result{Code: schemagold.Code(o.Code), Offset: o.Offset, MsgType: o.MsgType, Method: o.Method, SeqID: int32(o.SeqID)}
}

// Budget is the most cycles a check of an n-byte message of t's service
// may take from start_i to done_o before it is a hang.
func Budget(t *schema.Table, n int) int { return 200 + 16*min(n, 12+maxName(t)+8) }

// ResultDiff names every result port that differs, "" if none does.
func ResultDiff(got, want schemagold.Result) string {
	var d []string
	f := func(port string, g, w any) {
		if g != w {
			d = append(d, fmt.Sprintf("%s %v, want %v", port, g, w))
		}
	}
	f("code_o", got.Code, want.Code)
	f("offset_o", got.Offset, want.Offset)
	f("msg_type_o", got.MsgType, want.MsgType)
	f("method_o", got.Method, want.Method)
	f("seqid_o", got.SeqID, want.SeqID)
	return strings.Join(d, "; ")
}
