package schemarx

import (
	"fmt"
	"math/rand/v2"

	"arcalis/golden/schemagold"
)

// Request is one message for Drive: the header has been checked by the
// caller (the module walks the args only), which says where the args begin
// and what the header held.
type Request struct {
	Msg     []byte // the whole message, header included, without a frame length
	Start   int    // the message offset of the args struct
	Method  int    // the method's index in the tables' methods
	SeqID   int32  // from the header, for the header line
	MsgType uint8  // from the header, for the header line
	// Budget is the most cycles from start_i to done_o; 0 is the harness's
	// budget for the message and capacity.
	Budget int
	// Stall, if not nil, stalls the module on about StallPercent of the
	// cycles, at random from it. nil: no stall.
	Stall        *rand.Rand
	StallPercent int
}

// Driven is what the module did with one Request.
type Driven struct {
	// Result is the header line: the module's result registers, with the
	// seqid, message type and method of the Request. It is also written to
	// the image's first 64 bytes.
	Result schemagold.Result
	Cycles int // cycles from start_i to done_o
	Head   int // the message offset after the bytes the module took
	Stored int // image bytes the module stored
}

// Drive runs r's args through d into img, whose length is the App.Recv
// capacity (schemagold.CheckCapacity), and returns the module's result.
// The image holds the header line and what the module stored; area bytes
// it did not store are left as they were. Nothing is compared: that is
// Harness's job. An error is the simulator's, or the module breaking the
// protocol (a *Mismatch: a hang, a take past the window, a store outside
// [64, capacity) or the cycle after a stall); the module is then in an unknown
// state and should be reset.
//
// The window shows the message from the module's position, Width bytes a
// cycle or up to its end: with no slow arrivals, a window never loses
// bytes it showed.
func Drive(d DUT, img []byte, r Request) (Driven, error) {
	var dr Driven
	if err := schemagold.CheckCapacity(len(img)); err != nil {
		return dr, err
	}
	n, w := len(r.Msg), d.Width()
	if r.Start < 0 || r.Start > n {
		return dr, fmt.Errorf("schemarx: args start %d outside the %d-byte message", r.Start, n)
	}
	if r.Method < 0 || r.Method >= schemagold.MaxMethods {
		return dr, fmt.Errorf("schemarx: method index %d outside [0, %d)", r.Method, schemagold.MaxMethods)
	}
	budget := r.Budget
	if budget <= 0 {
		budget = 1000 + 16*n + 8*len(img)/w // as Harness.walk
	}
	clear(img[:schemagold.HeaderSize])
	// result() takes the header's fields from a reference Result.
	hdr := schemagold.Result{SeqID: r.SeqID, MsgType: r.MsgType, Method: uint8(r.Method + 1)}
	win := make([]byte, w)
	in := &Inputs{Method: uint8(r.Method), Cap: uint32(len(img)), Win: win}
	pos := r.Start
	dr.Head = pos
	stalled := false // stall_i last cycle: no action now
	for cyc := 0; ; cyc++ {
		if cyc == budget {
			return dr, mismatchf("hang: done_o not set after %d cycles (at message byte %d of %d)", cyc, pos, n)
		}
		in.Start = cyc == 0
		in.Stall = cyc > 0 && r.Stall != nil && r.Stall.IntN(100) < r.StallPercent
		avail := min(w, n-pos)
		copy(win, r.Msg[pos:pos+avail])
		clear(win[avail:])
		in.Avail, in.Rem, in.Pos = avail, uint32(n-pos), uint32(pos)
		out, err := d.Cycle(in)
		if err != nil {
			return dr, err
		}
		// At the start edge done_o still shows the previous message's result.
		if cyc > 0 && out.Done {
			if out.Take != 0 || out.StValid {
				return dr, mismatchf("cycle %d: done_o is 1 but take_o is %d and st_valid_o %v (at message byte %d)", cyc, out.Take, out.StValid, pos)
			}
			dr.Result, dr.Cycles = result(out, hdr), cyc
			dr.Result.PutHeader(img)
			return dr, nil
		}
		switch {
		case out.Take > avail:
			return dr, mismatchf("cycle %d: take_o %d with avail_i %d (at message byte %d)", cyc, out.Take, avail, pos)
		case stalled && (out.Take != 0 || out.StValid):
			return dr, mismatchf("cycle %d: stall_i was 1 last cycle but take_o is %d and st_valid_o %v (at message byte %d)", cyc, out.Take, out.StValid, pos)
		}
		stalled = in.Stall
		if out.StValid {
			k, err := storeInto(img, w, out)
			if err != nil {
				return dr, mismatchf("cycle %d (at message byte %d): %v", cyc, pos, err)
			}
			dr.Stored += k
		}
		pos += out.Take
		dr.Head = pos
	}
}

// storeInto applies one store of the module to img and returns the bytes
// it wrote; a store at an unaligned address or touching a byte outside the
// area [AreaStart, len(img)) is refused whole.
func storeInto(img []byte, width int, out *Outputs) (int, error) {
	addr := int(out.StAddr)
	if addr%schemagold.SlotSize != 0 {
		return 0, fmt.Errorf("store at %#x, not a multiple of 8 (mask %#x)", addr, out.StMask)
	}
	k := 0
	for i := range width {
		if out.StMask>>i&1 == 0 {
			continue
		}
		if a := addr + i; a < schemagold.AreaStart || a >= len(img) {
			return 0, fmt.Errorf("store at %#x mask %#x touches byte %#x, outside the area [%#x, %#x)",
				addr, out.StMask, a, schemagold.AreaStart, len(img))
		}
		k++
	}
	for i := range width {
		if out.StMask>>i&1 != 0 {
			img[addr+i] = out.StData[i]
		}
	}
	return k, nil
}
