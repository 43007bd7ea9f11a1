package schemarx

// Stream is a DUT whose window shows the message as a load queue would
// deliver it after a memory latency: nothing for the first Latency cycles
// after start_i (cycle 0 is the start_i cycle), then Width more bytes
// every cycle from the head's position at start_i, up to the message's
// end. Bytes that arrived stay until taken (the load queue is never held
// back). It wraps the DUT Drive or CheckDrive runs, which otherwise shows
// the whole message at once: with Latency 0 the window is the same as
// theirs, cycle for cycle. Stall is left as the driver sets it (nil: stores
// are accepted at once).
//
// Ahead is the cycles the message's stream had run from byte 0 before
// start_i (recv_header's check, a schemahdr.Stream of the same Latency,
// and the cycle after its done_o): the bytes that arrived meanwhile are
// there at start_i, and the latency counts from the stream's start.
type Stream struct {
	DUT
	Latency int
	Ahead   int

	cyc     int // cycles since the stream's start
	arrived int // message offset up to which bytes have arrived
}

// Cycle shows the bytes that have arrived by this cycle (avail_i no more
// than the driver's) and checks that the module takes no more than that.
func (s *Stream) Cycle(in *Inputs) (*Outputs, error) {
	if in.Start {
		// By the cycle before, max(0, Ahead-Latency) deliveries from byte 0.
		s.cyc, s.arrived = s.Ahead, max(int(in.Pos), max(0, s.Ahead-s.Latency)*s.Width())
	} else {
		s.cyc++
	}
	if s.cyc >= s.Latency {
		s.arrived += s.Width()
	}
	pos := int(in.Pos)
	s.arrived = min(s.arrived, pos+int(in.Rem))
	shown := *in
	shown.Avail = max(0, min(in.Avail, s.arrived-pos))
	out, err := s.DUT.Cycle(&shown)
	if err == nil && out.Take > shown.Avail {
		return out, mismatchf("cycle %d after start_i: take_o %d with %d bytes arrived (latency %d, at message byte %d)",
			s.cyc-s.Ahead, out.Take, shown.Avail, s.Latency, pos)
	}
	return out, err
}
