package tb

import (
	"errors"
	"fmt"
	"time"

	"arcalis/vpi"
)

// The model on a thread of its own: vpi.Pipe, fed a frame per cycle.

// framesPiped is frames through the pipe (UsePipe), with stop looked for
// from cycle from on: the model runs each cycle on the pipe's thread as
// soon as its frame is pushed, while this one takes the edges of the
// cycles run and fixes the frames of those Memory.lookahead cycles later
// (Memory.beginStream), up to max cycles or the cycle that meets stop. The
// result is cycle for cycle what Step would do, and no cycle waits for a
// cgo call. overlap, if not nil, runs once the first frames are pushed,
// before any edge is taken (see commandsThenPoll).
func (a *Accel) framesPiped(max int, on stopOn, from int, next, after func(i int), overlap func()) (int, error) {
	m, p, first := a.Mem, a.pipe, a.cycle+1
	base := p.Pushed() // the frame number of cycle first
	mask := uint32(0)
	if on != stopNone {
		mask = 1 << (on - 1) // UsePipe's table
	}
	m.beginStream()
	staged := 0
	push := func() {
		if staged > 0 && next != nil {
			next(staged)
		}
		ld, ack, _, _, _ := m.frame(first + uint64(staged)) // streamable: always fixed, both ports ready
		a.ldReady, a.stReady = true, true
		a.drive(ld, ack)
		if staged < from {
			p.Push(0)
		} else {
			p.Push(mask)
		}
		staged++
	}
	for staged < min(max, m.lookahead()) {
		push()
	}
	if overlap != nil { // while the pipe thread runs those
		overlap()
	}
	n := 0
	var err error
	for n < staged {
		smp, ran, matched, werr := p.Wait(base + uint64(n))
		if !ran {
			err = werr
			break
		}
		if a.onEdge != nil { // it reads the ports
			p.Settle(base + uint64(n))
		}
		a.edge(first+uint64(n), true, true, smp)
		if after != nil {
			after(n)
		}
		n++
		if matched {
			break
		}
		if staged < max {
			push()
		}
	}
	if n > 0 {
		p.Settle(base + uint64(n) - 1)
	}
	if !errors.Is(err, vpi.ErrStalled) { // a stalled pipe keeps its frames: nothing runs again
		p.Drop()
	}
	m.end(n)
	if err != nil {
		return n, fmt.Errorf("cycles %d..%d: %w", first, first+uint64(staged)-1, err)
	}
	return n, nil
}

// UsePipe turns on or off running cycles on a thread of their own
// (vpi.Pipe) where the memory allows it (Memory.streamable) and while that
// pays (governor): the testbench then prepares later cycles and takes the
// edges of earlier ones while the model evaluates, on another core. The
// results are the same (batch_test.go).
func (a *Accel) UsePipe(on bool) error {
	if !on {
		if a.pipe == nil {
			return nil
		}
		p := a.pipe
		a.pipe = nil
		return p.Stop()
	}
	if a.pipe != nil {
		return nil
	}
	p, err := a.sim.StartPipe(pipeDepth, append(append([]vpi.Cond(nil), a.stops[stopUC]...), a.stops[stopPoll]...))
	if err != nil {
		return err
	}
	a.pipe = p
	a.gov = governor{on: true, always: a.gov.always}
	return nil
}

// pipeDepth holds any lookahead (at most maxBatch frames ahead).
const pipeDepth = 2 * maxBatch

// governor decides, a window of cycles at a time, whether the pipe pays.
// Its speed follows how fast the two cores hand cache lines to each other,
// which on a virtual machine can change by ten times within minutes: at
// its worst the pipe ran at a twentieth of the speed of one thread. So the
// cycles run in windows, most of them the way that was faster when last
// measured, every probeEvery-th the other way, to measure it again: a
// probe, probeEvery times shorter, so that the slower way costs little
// however much slower it is (since the line memory, the pipe has been
// several times slower).
type governor struct {
	on     bool      // this window runs through the pipe
	always bool      // tests: no windows, the pipe whenever it can be used
	probe  bool      // this window is a probe
	until  uint64    // the cycle that ends the window
	from   uint64    // the cycle it began at
	t0     time.Time // and when
	way    [2]way    // pipe off, on
	n      int       // windows so far
	calls  int       // calls to piped in this window
}

// way is what the governor knows of one way of running cycles.
type way struct {
	seen int     // windows run this way
	rate float64 // cycles per second, smoothed over windows
}

// Windows end after windowCycles cycles or windowTime, whichever comes
// first, so that a window the slow way costs little however slow it is.
const (
	windowCycles = 1 << 14
	windowTime   = 5 * time.Millisecond
	probeEvery   = 8
)

// piped reports whether the cycles about to run go through the pipe.
func (a *Accel) piped() bool {
	if a.pipe == nil || !a.Mem.streamable() {
		return false
	}
	g := &a.gov
	if g.always {
		return true
	}
	if g.calls++; a.cycle < g.until && (g.calls%64 != 0 || time.Since(g.t0) < windowLength(g.probe, windowTime)) {
		return g.on // the clock is read every 64th call only
	}
	g.next(a.cycle, time.Now())
	return g.on
}

// windowLength is a window's length, in cycles or time: full, or for a
// probe a probeEvery-th of it.
func windowLength[T uint64 | time.Duration](probe bool, full T) T {
	if probe {
		return full / probeEvery
	}
	return full
}

// next ends the window at cycle and now, and starts the next one.
func (g *governor) next(cycle uint64, now time.Time) {
	if cycle > g.from {
		w := &g.way[b2u(g.on)]
		// A way's first window pays for caches and pages still cold (and
		// the very first, for the caller's set-up): it does not count.
		if r := float64(cycle-g.from) / now.Sub(g.t0).Seconds(); w.seen > 0 {
			if w.rate == 0 {
				w.rate = r
			}
			w.rate = (w.rate + r) / 2 // windows differ in what they run: smooth
		}
		w.seen++
	}
	g.n++
	off, on := g.way[0].rate, g.way[1].rate
	best := on >= off
	if off == 0 || on == 0 {
		best = on == 0 // measure each way first
	}
	g.probe = g.n%probeEvery == 0
	g.on = best != g.probe
	g.from, g.t0, g.until, g.calls = cycle, now, cycle+windowLength(g.probe, uint64(windowCycles)), 0
}
