package schematx

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"

	"arcalis/golden/schemagold"
	"arcalis/tb/schemacase"
	"arcalis/thriftidl/schema"
)

// Harness drives images through a DUT and compares what it writes and
// reports with schemagold.Serialize.
type Harness struct {
	DUT   DUT
	Table *schema.Table
	Seed  uint64 // of the latency and stall pattern: rand.NewPCG(Seed, image number)
	in    Inputs
}

// NewHarness returns a harness for d with table t.
func NewHarness(d DUT, t *schema.Table, seed uint64) *Harness {
	return &Harness{DUT: d, Table: t, Seed: seed}
}

// Outcome is what one image gave.
type Outcome struct {
	HeaderOnly bool            // the header line (the testbench's) failed: nothing for the module
	Code       schemagold.Code // the reference's
	Offset     int             // the reference's: the fault's image offset, or the result's bytes on RESP_OK
	Want       []byte          // on RESP_OK: the reply after its message header
	Got        []byte          // the module's bytes
	GotCode    schemagold.Code
	GotOffset  int
	Cycles     int // from start_i to done_o
	Reads      int
	Err        error // how the module differed from the reference or broke the protocol
}

// Mismatch is a difference from the reference or a protocol violation
// (schemacase's: one type for the units' harnesses).
type Mismatch = schemacase.Mismatch

// IsMismatch reports whether err is the module's fault rather than the
// simulator's.
func IsMismatch(err error) bool { return schemacase.IsMismatch(err) }

func mismatchf(format string, args ...any) error { return schemacase.Mismatchf(format, args...) }

// headerOnly are the codes of Serialize's header step, which the
// testbench does in place of the module.
func headerOnly(c schemagold.Code) bool {
	switch c {
	case schemagold.CodeNone, schemagold.CodeUnknownMethod, schemagold.CodeBadMsgType, schemagold.CodeRespBadImage:
		return true
	}
	return false
}

// read is a read request on its way: its address and the cycle its
// answer may come.
type read struct {
	addr, ready int
}

// Check runs one image. An error in Outcome.Err that is not a *Mismatch
// is the simulator's.
func (h *Harness) Check(im Image) Outcome {
	var o Outcome
	reply, code, off := schemagold.Serialize(h.Table, im.Img, im.Method, im.SeqID)
	o.Code, o.Offset = code, off
	if headerOnly(code) {
		o.HeaderOnly = true
		return o
	}
	head := schemagold.ReplyHeaderLen(h.Table, im.Method)
	if code == schemagold.CodeRespOK {
		o.Want = reply[head:]
		o.Offset = len(reply) - head
	}
	o.Err = h.run(im, &o)
	if o.Err != nil {
		return o
	}
	switch {
	case o.GotCode != o.Code:
		o.Err = mismatchf("code %v at offset %d, want %v at offset %d", o.GotCode, o.GotOffset, o.Code, o.Offset)
	case o.GotOffset != o.Offset:
		o.Err = mismatchf("offset %d, want %d (code %v)", o.GotOffset, o.Offset, o.Code)
	case code == schemagold.CodeRespOK && !bytes.Equal(o.Got, o.Want):
		i := 0
		for i < len(o.Got) && i < len(o.Want) && o.Got[i] == o.Want[i] {
			i++
		}
		o.Err = mismatchf("reply differs at byte %d (of the result struct): got %d bytes, want %d; got % x..., want % x...",
			i, len(o.Got), len(o.Want), o.Got[i:min(len(o.Got), i+16)], o.Want[i:min(len(o.Want), i+16)])
	}
	return o
}

// run pulses start_i, answers the module's reads with random latency,
// stalls its output at random, collects its bytes until done_o and checks
// the protocol on the way.
func (h *Harness) run(im Image, o *Outcome) error {
	rng := rand.New(rand.NewPCG(h.Seed, uint64(im.N)))
	// Read latency: always 1, 1 to 3, or 1 to 9 cycles; stalls on none,
	// a tenth or two fifths of the cycles.
	maxLat := []int{1, 3, 9}[rng.IntN(3)]
	stallPct := []int{0, 10, 40}[rng.IntN(3)]
	end := int(binary.LittleEndian.Uint32(im.Img[8:]))
	w := h.DUT.Width()
	budget := 4000 + 64*end + 32*len(o.Want)
	in := &h.in
	*in = Inputs{Method: uint8(im.Method), AreaEnd: uint32(end)}
	var queue []read
	lastReady := 0
	stalled := false
	o.Got = o.Got[:0]
	for cyc := 0; ; cyc++ {
		if cyc == budget {
			return mismatchf("hang: done_o not set after %d cycles (%d bytes out, %d reads)", cyc, len(o.Got), o.Reads)
		}
		in.Start = cyc == 0
		in.Stall = cyc > 0 && rng.IntN(100) < stallPct
		in.RdValid = len(queue) > 0 && queue[0].ready <= cyc
		if in.RdValid {
			in.RdData = binary.LittleEndian.Uint64(im.Img[queue[0].addr:])
			queue = queue[1:]
		} else {
			in.RdData = rng.Uint64() // don't-care
		}
		out, err := h.DUT.Cycle(in)
		if err != nil {
			return err
		}
		if cyc == 0 {
			stalled = in.Stall
			continue // the outputs still show the previous image's end
		}
		if stalled && out.OutValid {
			return mismatchf("cycle %d: out_stall_i was 1 last cycle but out_valid_o is 1", cyc)
		}
		stalled = in.Stall
		if out.RdReq {
			a := int(out.RdAddr)
			if a%schemagold.SlotSize != 0 || a < schemagold.AreaStart || a+schemagold.SlotSize > end {
				return mismatchf("cycle %d: read at %#x, outside the area [%#x, %#x) or unaligned", cyc, a, schemagold.AreaStart, end)
			}
			lastReady = max(cyc+1+rng.IntN(maxLat), lastReady+1)
			queue = append(queue, read{a, lastReady})
			o.Reads++
		}
		if out.OutValid {
			if out.OutLen < 1 || out.OutLen > w {
				return mismatchf("cycle %d: out_len_o %d, not in [1, %d]", cyc, out.OutLen, w)
			}
			o.Got = append(o.Got, out.OutData[:out.OutLen]...)
		}
		if !out.Done {
			continue
		}
		o.Cycles = cyc
		o.GotCode, o.GotOffset = schemagold.Code(out.Code), int(out.Offset)
		switch {
		case out.OutValid || out.RdReq:
			return mismatchf("cycle %d: done_o with out_valid_o %v, rd_req_o %v", cyc, out.OutValid, out.RdReq)
		case len(queue) != 0:
			return mismatchf("cycle %d: done_o with %d reads unanswered", cyc, len(queue))
		}
		// One more cycle: the result holds until the next start_i.
		in.Start, in.Stall, in.RdValid = false, rng.IntN(2) == 0, false
		out, err = h.DUT.Cycle(in)
		switch {
		case err != nil:
			return err
		case !out.Done || out.OutValid || out.RdReq:
			return mismatchf("cycle %d, after done_o: done_o %v, out_valid_o %v, rd_req_o %v; want 1, 0, 0", cyc+1, out.Done, out.OutValid, out.RdReq)
		case schemagold.Code(out.Code) != o.GotCode || int(out.Offset) != o.GotOffset:
			return mismatchf("cycle %d, after done_o: the result changed to %v at %d", cyc+1, schemagold.Code(out.Code), out.Offset)
		}
		return nil
	}
}
