package schemarx

import (
	"testing"

	"arcalis/golden/schemagold"
)

// probe records what the window showed at each cycle since start_i.
type probe struct {
	DUT
	cyc   int
	first int // the first cycle with bytes in the window, -1 none yet
	seen  int // the furthest message offset the window has shown
	start int // pos_i at start_i
	over  string
	lat   int
}

func (p *probe) Cycle(in *Inputs) (*Outputs, error) {
	if in.Start {
		p.cyc, p.first, p.start, p.seen = 0, -1, int(in.Pos), int(in.Pos)
	} else {
		p.cyc++
	}
	if in.Avail > 0 && p.first < 0 {
		p.first = p.cyc
	}
	p.seen = max(p.seen, int(in.Pos)+in.Avail)
	// By cycle c, at most c-lat+1 deliveries of Width bytes.
	if most := p.start + max(0, p.cyc-p.lat+1)*p.Width(); p.seen > most && p.over == "" {
		p.over = "the window showed bytes before they could have arrived"
	}
	return p.DUT.Cycle(in)
}

// TestStreamFake drives messages through the stand-in of fake_test.go
// behind Stream: the window shows nothing before cycle Latency and no more
// than Width bytes a cycle after it, the walks still agree with the
// reference, a later arrival never makes a walk shorter, and at Latency 0
// the walks take exactly Drive's cycles. With Ahead (at Latency 100): a
// stream that ran long enough before start_i for every byte to arrive
// walks in Drive's cycles; one that ran 30 cycles walks in 30 fewer than a
// fresh stream, or in Drive's.
func TestStreamFake(t *testing.T) {
	c, _, table, msgs := loadCase(t, "PostStorageService:16")
	f := newFake(table, c.Width)
	rtl, ref := make([]byte, MaxCap), make([]byte, MaxCap)
	walked := 0
	for _, m := range driveSample(msgs, 11) {
		f.msg = m.Msg
		plain := CheckDrive(f, table, m.Msg, rtl, ref)
		if plain.HeaderOnly || plain.Err != nil || plain.Ref.Code != schemagold.CodeOK {
			continue
		}
		start, _ := argsStart(m.Msg)
		prev := 0
		for _, lat := range []int{0, 1, 7, 100} {
			p := &probe{DUT: f, lat: lat}
			got := CheckDrive(&Stream{DUT: p, Latency: lat}, table, m.Msg, rtl, ref)
			switch {
			case got.Err != nil:
				t.Fatalf("message %d (%s), latency %d: %v", m.N, m.Source, lat, got.Err)
			case p.over != "":
				t.Fatalf("message %d, latency %d: %s", m.N, lat, p.over)
			case start < len(m.Msg) && p.first != lat:
				t.Fatalf("message %d, latency %d: first bytes in the window at cycle %d", m.N, lat, p.first)
			case lat == 0 && got.Driven.Cycles != plain.Driven.Cycles:
				t.Fatalf("message %d: %d cycles at latency 0, Drive's %d", m.N, got.Driven.Cycles, plain.Driven.Cycles)
			case got.Driven.Cycles < prev:
				t.Fatalf("message %d: %d cycles at latency %d, fewer than at a lower latency (%d)", m.N, got.Driven.Cycles, lat, prev)
			}
			prev = got.Driven.Cycles
		}
		const lat = 100
		fresh := prev                       // the latency loop's last
		all := lat + len(m.Msg)/c.Width + 1 // every byte arrived by then
		warm := CheckDrive(&Stream{DUT: f, Latency: lat, Ahead: 30}, table, m.Msg, rtl, ref)
		done := CheckDrive(&Stream{DUT: f, Latency: lat, Ahead: all}, table, m.Msg, rtl, ref)
		switch {
		case warm.Err != nil || done.Err != nil:
			t.Fatalf("message %d: %v, %v", m.N, warm.Err, done.Err)
		case done.Driven.Cycles != plain.Driven.Cycles:
			t.Fatalf("message %d: %d cycles with every byte arrived, Drive's %d", m.N, done.Driven.Cycles, plain.Driven.Cycles)
		case warm.Driven.Cycles != fresh-30 && warm.Driven.Cycles != plain.Driven.Cycles:
			t.Fatalf("message %d: %d cycles 30 cycles into the latency, fresh %d, Drive's %d", m.N, warm.Driven.Cycles, fresh, plain.Driven.Cycles)
		}
		walked++
	}
	if walked < 10 {
		t.Errorf("%d messages walked: want at least 10", walked)
	}
}
