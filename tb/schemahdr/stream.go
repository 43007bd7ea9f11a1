package schemahdr

// Stream is a DUT whose window shows the message as a load queue would
// deliver it after a memory latency, as tb/schemarx.Stream does from the
// args: nothing for the first Latency cycles after start_i (cycle 0 is
// the start_i cycle), then Width more bytes every cycle from byte 0, up
// to the message's end. Bytes that arrived stay until taken. With Latency
// 0 the window is Drive's, cycle for cycle. The args' walk goes on with
// the same stream: schemarx.Stream with Ahead = this check's cycles + 1.
type Stream struct {
	DUT
	Latency int

	cyc, arrived, taken int // since start_i: cycles, bytes arrived, bytes taken
}

// Cycle shows the bytes that have arrived by this cycle (avail_i no more
// than the driver's) and checks that the module takes no more than that.
func (s *Stream) Cycle(in *Inputs) (*Outputs, error) {
	if in.Start {
		s.cyc, s.arrived, s.taken = 0, 0, 0
	} else {
		s.cyc++
	}
	if s.cyc >= s.Latency {
		s.arrived += s.Width()
	}
	shown := *in
	shown.Avail = max(0, min(in.Avail, s.arrived-s.taken))
	out, err := s.DUT.Cycle(&shown)
	if err != nil {
		return out, err
	}
	if out.Take > shown.Avail {
		return out, mismatchf("cycle %d after start_i: take_o %d with %d bytes arrived (latency %d, at message byte %d)",
			s.cyc, out.Take, shown.Avail, s.Latency, s.taken)
	}
	s.taken += out.Take
	return out, nil
}
