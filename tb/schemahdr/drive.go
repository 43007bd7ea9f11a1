package schemahdr

import (
	"arcalis/golden/schemagold"
	"arcalis/thriftidl/schema"
)

// Driven is what the module did with one message under Drive.
type Driven struct {
	Result schemagold.Result // code_o, offset_o, msg_type_o, method_o, seqid_o at done_o
	Cycles int               // from start_i to done_o
	Taken  int               // message bytes the module took
}

// Drive checks msg's header with d, a module of t's service: start_i with
// the window at byte 0, then the message from the module's position, a
// window a cycle (or up to its end), never stalled, until done_o; big_i
// if msg is longer than MaxMessage. Nothing is compared (Check compares).
// An error is the simulator's, or the module breaking the protocol (a
// *Mismatch: a hang, a take past the window or with done_o); reset the
// module then.
func Drive(d DUT, t *schema.Table, msg []byte) (Driven, error) {
	var dr Driven
	n, w := len(msg), d.Width()
	big := n > schemagold.MaxMessage
	budget := Budget(t, n)
	win := make([]byte, w)
	in := &Inputs{Big: big, Win: win}
	for cyc := 0; ; cyc++ {
		if cyc == budget {
			return dr, mismatchf("cycle %d: hang: done_o not set (%d bytes taken of %d)", cyc, dr.Taken, n)
		}
		in.Start = cyc == 0
		in.Avail = min(w, n-dr.Taken)
		copy(win, msg[dr.Taken:dr.Taken+in.Avail])
		clear(win[in.Avail:])
		in.Rem = uint32(n - dr.Taken)
		if big {
			in.Rem = RemMax // as Harness feeds it
		}
		out, err := d.Cycle(in)
		if err != nil {
			return dr, err
		}
		switch {
		case cyc > 0 && out.Done: // at the start edge done_o may show the previous message's result
			if out.Take != 0 {
				return dr, mismatchf("cycle %d: done_o is 1 but take_o is %d", cyc, out.Take)
			}
			dr.Result, dr.Cycles = out.Result(), cyc
			return dr, nil
		case out.Take > in.Avail:
			return dr, mismatchf("cycle %d: take_o %d with avail_i %d (at message byte %d)", cyc, out.Take, in.Avail, dr.Taken)
		}
		dr.Taken += out.Take
	}
}

// Check is Drive with the result compared: it must be
// schemagold.CheckHeader's and, on OK, the module must have taken exactly
// the header. A difference is a *Mismatch, "recv_header: " and the ports
// that differ (ResultDiff); Driven.Cycles is then not 0, unlike after
// Drive's errors.
func Check(d DUT, t *schema.Table, msg []byte) (Driven, error) {
	dr, err := Drive(d, t, msg)
	if err != nil {
		return dr, err
	}
	return dr, Compare(dr, t, msg)
}

// Compare is Check's comparison of what the module did with msg, dr, with
// schemagold.CheckHeader's result.
func Compare(dr Driven, t *schema.Table, msg []byte) error {
	want := schemagold.CheckHeader(t, msg)
	if diff := ResultDiff(dr.Result, want); diff != "" {
		return mismatchf("recv_header: %s", diff)
	}
	if want.Code == schemagold.CodeOK && dr.Taken != int(want.Offset) {
		return mismatchf("recv_header took %d bytes, want exactly the header's %d", dr.Taken, want.Offset)
	}
	return nil
}
