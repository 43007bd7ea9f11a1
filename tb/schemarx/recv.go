package schemarx

import (
	"arcalis/golden/schemagold"
	"arcalis/tb/schemacase"
	"arcalis/tb/schemahdr"
	"arcalis/thriftidl/schema"
	"arcalis/vpi"
)

// The receive in hardware, rtl/generic/schema_rx.sv: recv_header checks
// the header, then recv_schema walks the args of the method it named, on
// one window, from one start_i.

// RecvInputs are schema_rx's inputs for one cycle.
type RecvInputs struct {
	Start bool
	Big   bool // meaningful with Start only
	Stall bool
	Cap   uint32
	Win   []byte // Width bytes; those at or above Avail are don't-care
	Avail int
	Rem   uint32
	Pos   uint32
}

// RecvOutputs are what schema_rx shows at one rising edge: the walk's
// outputs (Take is recv_schema's take_o, Done the receive's done_o) and
// recv_header's (Header.Take its take, Header.Done its done_o). The bytes
// consumed at the edge are Take + Header.Take.
type RecvOutputs struct {
	Outputs
	Header schemahdr.Outputs
}

// Taken is the bytes consumed at the edge: either unit's.
func (o *RecvOutputs) Taken() int { return o.Take + o.Header.Take }

// RecvDUT is schema_rx as the harness drives it: the Verilated model, or
// a stand-in for the harness's own tests.
type RecvDUT = schemacase.DUT[RecvInputs, RecvOutputs]

// RecvModel is the Verilated schema_rx through package vpi.
type RecvModel struct {
	schemacase.Sim // Close, Width, TraceOn, TraceOff
	out            RecvOutputs

	rst, big *vpi.Port
	inPorts
	outPorts                    // recv_schema's take, the stores, done_o and the walk's results
	hd       schemahdr.OutPorts // recv_header's take and results
}

// OnSimRecv is the schema_rx inside the model sim, whose ports are named
// top+prefix+their name (rst_ni: top's): schema_pair's, schemacase.PairTop
// and PairRx, where another unit's Model may share sim (stepping either
// steps both; a receive that has ended gets idle inputs until its next
// Cycle). The Model belongs to the OS thread that opened sim.
func OnSimRecv(sim schemacase.Sim, top, prefix string) (*RecvModel, error) {
	m := &RecvModel{Sim: sim}
	w := sim.Width()
	ports := append(m.inPorts.list(w), schemacase.In("big_i", 1, &m.big))
	ports = append(ports, m.outPorts.list(w)...)
	// recv_header's outputs are hd_ and their names.
	for _, p := range m.hd.List() {
		p.Name = "hd_" + p.Name
		ports = append(ports, p)
	}
	if err := sim.BindUnit(top, prefix, &m.rst, ports); err != nil {
		return nil, err
	}
	return m, nil
}

// Reset holds rst_ni low for two cycles, then high for one, every input
// of the model idle (a shared model's other unit's too).
func (m *RecvModel) Reset() error { return m.ResetAll(m.rst) }

// Cycle sets the inputs, runs one cycle and reads the edge's sample.
func (m *RecvModel) Cycle(in *RecvInputs) (*RecvOutputs, error) {
	m.set(in.Start, in.Stall, in.Cap, in.Win, in.Avail, in.Rem, in.Pos)
	m.big.Set(schemacase.B2U(in.Big))
	if err := m.Step(); err != nil {
		return nil, err
	}
	o := &m.out
	m.read(&o.Outputs)
	m.hd.Read(&o.Header)
	if o.Done {
		// Until the next Cycle sets them again, another unit's cycles
		// step this one: inputs idle.
		m.idle()
		schemacase.Idle(m.big)
	}
	return o, nil
}

// DriveRecv receives msg with d, a schema_rx of t's service, into img,
// whose length is the App.Recv capacity: start_i with the window at byte
// 0, then the message from the module's position, a window a cycle (or up
// to its end), never stalled, every store accepted at once, until done_o;
// big_i if msg is longer than MaxMessage. hdr is what recv_header did (its
// result at its done_o, the cycles from start_i to it, the bytes taken by
// then); dr what the walk did, when the header was OK: the header line
// (the walk's results with the header's seqid, type and method) is
// written to img, dr.Cycles run from start_i to done_o (the whole
// receive). Nothing is compared (CheckMessage compares). An error is the
// simulator's, or the module breaking the protocol (a *Mismatch: a hang,
// a take past the window or by both units, a take or store with done_o, a
// store outside the area, done_o before recv_header's); reset the module
// then.
func DriveRecv(d RecvDUT, t *schema.Table, img, msg []byte) (hdr schemahdr.Driven, dr Driven, err error) {
	if err := schemagold.CheckCapacity(len(img)); err != nil {
		return hdr, dr, err
	}
	n, w := len(msg), d.Width()
	big := n > schemagold.MaxMessage
	hdBudget := schemahdr.Budget(t, n)
	budget := hdBudget + 1000 + 16*n + 8*len(img)/w // and Drive's
	clear(img[:schemagold.HeaderSize])
	win := make([]byte, w)
	in := &RecvInputs{Big: big, Cap: uint32(len(img)), Win: win}
	pos := 0
	for cyc := 0; ; cyc++ {
		switch {
		case cyc == hdBudget && hdr.Cycles == 0:
			return hdr, dr, mismatchf("hang: recv_header's done_o not set after %d cycles (at message byte %d of %d)", cyc, pos, n)
		case cyc == budget:
			return hdr, dr, mismatchf("hang: done_o not set after %d cycles (at message byte %d of %d)", cyc, pos, n)
		}
		in.Start = cyc == 0
		avail := min(w, n-pos)
		copy(win, msg[pos:pos+avail])
		clear(win[avail:])
		in.Avail, in.Rem, in.Pos = avail, uint32(n-pos), uint32(pos)
		if big {
			in.Rem = schemahdr.RemMax // saturated, as tb/schemahdr's Harness feeds it
		}
		out, err := d.Cycle(in)
		if err != nil {
			return hdr, dr, err
		}
		// At the start edge done_o may still show the previous message's result.
		if cyc > 0 && out.Header.Done && hdr.Cycles == 0 {
			if out.Header.Take != 0 {
				return hdr, dr, mismatchf("cycle %d: recv_header's done_o is 1 but its take_o is %d", cyc, out.Header.Take)
			}
			hdr.Result, hdr.Cycles, hdr.Taken = out.Header.Result(), cyc, pos
		}
		if cyc > 0 && out.Done {
			switch {
			case out.Taken() != 0 || out.StValid:
				return hdr, dr, mismatchf("cycle %d: done_o is 1 but take_o is %d, recv_header's %d and st_valid_o %v (at message byte %d)", cyc, out.Take, out.Header.Take, out.StValid, pos)
			case hdr.Cycles == 0:
				return hdr, dr, mismatchf("cycle %d: done_o before recv_header's done_o (at message byte %d)", cyc, pos)
			case hdr.Result.Code != schemagold.CodeOK:
				return hdr, dr, nil
			}
			dr.Result, dr.Cycles = result(&out.Outputs, hdr.Result), cyc
			dr.Result.PutHeader(img)
			return hdr, dr, nil
		}
		switch {
		case out.Take != 0 && out.Header.Take != 0:
			return hdr, dr, mismatchf("cycle %d: both units take: recv_header %d, recv_schema %d (at message byte %d)", cyc, out.Header.Take, out.Take, pos)
		case out.Taken() > avail:
			return hdr, dr, mismatchf("cycle %d: take_o %d with avail_i %d (at message byte %d)", cyc, out.Taken(), avail, pos)
		case (out.Take != 0 || out.StValid) && hdr.Cycles == 0:
			return hdr, dr, mismatchf("cycle %d: recv_schema acts (take_o %d, st_valid_o %v) before recv_header's done_o (at message byte %d)", cyc, out.Take, out.StValid, pos)
		}
		if out.StValid {
			k, err := storeInto(img, w, &out.Outputs)
			if err != nil {
				return hdr, dr, mismatchf("cycle %d (at message byte %d): %v", cyc, pos, err)
			}
			dr.Stored += k
		}
		pos += out.Taken()
		dr.Head = pos
	}
}

// RecvStream is a RecvDUT whose window shows the message as the engine's
// load queue would deliver it after a memory latency: nothing for the
// first Latency cycles after start_i (cycle 0 is the start_i cycle), then
// Width more bytes every cycle from byte 0, up to the message's end. Bytes
// that arrived stay until taken (the queue is never held back). With
// Latency 0 the window is DriveRecv's, cycle for cycle.
type RecvStream struct {
	RecvDUT
	Latency int

	cyc, arrived int // since start_i: cycles, the message offset up to which bytes have arrived
}

// Cycle shows the bytes that have arrived by this cycle (avail_i no more
// than the driver's) and checks that the module takes no more than that.
func (s *RecvStream) Cycle(in *RecvInputs) (*RecvOutputs, error) {
	if in.Start {
		s.cyc, s.arrived = 0, 0
	} else {
		s.cyc++
	}
	if s.cyc >= s.Latency {
		s.arrived += s.Width()
	}
	pos := int(in.Pos)
	shown := *in
	shown.Avail = max(0, min(in.Avail, s.arrived-pos))
	out, err := s.RecvDUT.Cycle(&shown)
	if err == nil && out.Taken() > shown.Avail {
		return out, mismatchf("cycle %d after start_i: take_o %d with %d bytes arrived (latency %d, at message byte %d)",
			s.cyc, out.Taken(), shown.Avail, s.Latency, pos)
	}
	return out, err
}
