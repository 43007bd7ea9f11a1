package schemarx

import (
	"testing"

	"arcalis/golden/schemagold"
)

// probe records what the window showed at each cycle since start_i.
type probe struct {
	RecvDUT
	cyc   int
	first int // the first cycle with bytes in the window, -1 none yet
	seen  int // the furthest message offset the window has shown
	over  string
	lat   int
}

func (p *probe) Cycle(in *RecvInputs) (*RecvOutputs, error) {
	if in.Start {
		p.cyc, p.first, p.seen = 0, -1, 0
	} else {
		p.cyc++
	}
	if in.Avail > 0 && p.first < 0 {
		p.first = p.cyc
	}
	p.seen = max(p.seen, int(in.Pos)+in.Avail)
	// By cycle c, at most c-lat+1 deliveries of Width bytes.
	if most := max(0, p.cyc-p.lat+1) * p.Width(); p.seen > most && p.over == "" {
		p.over = "the window showed bytes before they could have arrived"
	}
	return p.RecvDUT.Cycle(in)
}

// TestRecvStreamFake receives messages with the stand-in of schema_rx
// (check_test.go) behind RecvStream: the window shows nothing before
// cycle Latency and no more than Width bytes a cycle after it, the
// receives still agree with the reference, a later arrival never makes a
// receive shorter, and at Latency 0 they take exactly DriveRecv's cycles.
func TestRecvStreamFake(t *testing.T) {
	c, _, table, msgs := loadCase(t, "PostStorageService:16")
	f := newFake(table, c.Width)
	hd := &hdrFake{t: table, width: c.Width}
	rx := &rxFake{hd: hd, walk: f}
	rtl, ref := make([]byte, MaxCap), make([]byte, MaxCap)
	walked := 0
	for _, m := range driveSample(msgs, 11) {
		f.msg, hd.msg = m.Msg, m.Msg
		plain := CheckMessage(rx, table, m.Msg, rtl, ref)
		if plain.HeaderOnly || plain.Err != nil || plain.Ref.Code != schemagold.CodeOK {
			continue
		}
		prev := 0
		for _, lat := range []int{0, 1, 7, 100} {
			p := &probe{RecvDUT: rx, lat: lat}
			got := CheckMessage(&RecvStream{RecvDUT: p, Latency: lat}, table, m.Msg, rtl, ref)
			switch {
			case got.Err != nil:
				t.Fatalf("message %d (%s), latency %d: %v", m.N, m.Source, lat, got.Err)
			case p.over != "":
				t.Fatalf("message %d, latency %d: %s", m.N, lat, p.over)
			case p.first != lat:
				t.Fatalf("message %d, latency %d: first bytes in the window at cycle %d", m.N, lat, p.first)
			case lat == 0 && (got.Driven.Cycles != plain.Driven.Cycles || got.Header.Cycles != plain.Header.Cycles):
				t.Fatalf("message %d: %d cycles (header %d) at latency 0, DriveRecv's %d (%d)", m.N,
					got.Driven.Cycles, got.Header.Cycles, plain.Driven.Cycles, plain.Header.Cycles)
			case got.Driven.Cycles < prev:
				t.Fatalf("message %d: %d cycles at latency %d, fewer than at a lower latency (%d)", m.N, got.Driven.Cycles, lat, prev)
			case lat == 100 && got.Header.Cycles <= plain.Header.Cycles:
				t.Fatalf("message %d: the header's %d cycles at latency 100, %d at 0", m.N, got.Header.Cycles, plain.Header.Cycles)
			}
			prev = got.Driven.Cycles
		}
		walked++
	}
	if walked < 10 {
		t.Errorf("%d messages received: want at least 10", walked)
	}
}
