package tb

import (
	"testing"
	"time"
)

// TestGovernor runs the governor's windows against made-up speeds: it must
// settle on the faster way, go the other way every probeEvery-th window
// only, in a window probeEvery times shorter, and follow the speeds when
// they swap.
func TestGovernor(t *testing.T) {
	var g governor
	now, cycle := time.Unix(0, 0), uint64(0)
	run := func(windows int, pipe, one float64) (piped int) {
		for i := 0; i < windows; i++ {
			rate := one
			if g.on {
				rate, piped = pipe, piped+1
			}
			n := g.until - g.from // the window's length, as piped ends it
			cycle += n
			now = now.Add(time.Duration(float64(n) / rate * float64(time.Second)))
			g.next(cycle, now)
			if want := uint64(windowCycles); g.probe && g.until-g.from != want/probeEvery || !g.probe && g.until-g.from != want {
				t.Fatalf("window %d (a probe: %v) is %d cycles long", g.n, g.probe, g.until-g.from)
			}
		}
		return piped
	}
	g.next(cycle, now) // the first call
	run(8, 3e6, 2e6)   // each way measured
	if n := run(64, 3e6, 2e6); n != 64-64/probeEvery {
		t.Errorf("pipe faster: %d of 64 windows through the pipe, want %d", n, 64-64/probeEvery)
	}
	run(16, 0.2e6, 2.8e6) // the cores drift apart: noticed at the next probe or two
	if n := run(64, 0.2e6, 2.8e6); n != 64/probeEvery {
		t.Errorf("pipe slower: %d of 64 windows through the pipe, want %d", n, 64/probeEvery)
	}
	run(16, 3e6, 2e6)
	if n := run(64, 3e6, 2e6); n != 64-64/probeEvery {
		t.Errorf("pipe faster again: %d of 64 windows through the pipe, want %d", n, 64-64/probeEvery)
	}
}
