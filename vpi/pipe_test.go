package vpi

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// TestPipeMatchesModel streams random frames through the pipe, up to a
// random window ahead of the samples read, with random condition masks,
// and checks every sample against the Go model, the halts, the frames
// dropped after them, and the ports and held inputs afterwards. Now and
// then the test pauses before a push, around the time the pipe thread
// stops spinning and sleeps, so that pushes race with its sleeps.
func TestPipeMatchesModel(t *testing.T) {
	s := openCounter(t)
	p := registerPorts(t, s)
	var m model
	p.apply(stimulus{})
	m.cycle(stimulus{})
	if err := s.Cycle(1); err != nil {
		t.Fatal(err)
	}
	conds := []Cond{{Port: p.hit, Mask: 1, Value: 1}, {Port: p.count, Mask: 3, Value: 2}}
	pp, err := s.StartPipe(16, conds)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(9, 10))
	for round := 0; round < 400; round++ {
		k := 1 + r.IntN(40)
		window := 1 + r.IntN(16)
		ins := make([]stimulus, k)
		masks := make([]uint32, k)
		first := pp.Pushed()
		cycles := s.Cycles()
		push := func(i int) {
			ins[i] = randomStimulus(r)
			masks[i] = uint32(r.IntN(4))
			if r.IntN(3) != 0 {
				masks[i] = 0 // long runs
			}
			p.apply(ins[i])
			ins[i] = padded(ins[i])
			if r.IntN(40) == 0 {
				time.Sleep(time.Duration(100+r.IntN(200)) * time.Microsecond)
			}
			pp.Push(masks[i])
		}
		pushed := 0
		for ; pushed < min(window, k); pushed++ {
			push(pushed)
		}
		n := 0 // frames read
		var last sample
		for ; n < k; n++ {
			smp, ran, matched, err := pp.Wait(first + uint64(n))
			if err != nil || !ran {
				t.Fatalf("round %d: Wait(frame %d): ran %v, %v", round, n, ran, err)
			}
			want := m.cycle(ins[n])
			last = want
			if got := uint32(p.count.U64In(smp)); got != want.count || p.hit.BitIn(smp) != want.hit ||
				!bytes.Equal(p.lineOut.BytesIn(smp), want.line) || p.cycles.U64In(smp) != want.cycles {
				t.Fatalf("round %d frame %d: count_o %d hit_o %v, want %d %v", round, n, got, p.hit.BitIn(smp), want.count, want.hit)
			}
			wantMatch := masks[n]&1 != 0 && want.hit || masks[n]&2 != 0 && want.count&3 == 2
			if matched != wantMatch {
				t.Fatalf("round %d frame %d (mask %d): matched %v, want %v", round, n, masks[n], matched, wantMatch)
			}
			if matched {
				n++
				break
			}
			if pushed < k {
				push(pushed)
				pushed++
			}
		}
		if n < pushed { // halted: the next frame does not run
			if _, ran, _, err := pp.Wait(first + uint64(n)); ran || err != nil {
				t.Fatalf("round %d: frame %d after the halt: ran %v, %v", round, n, ran, err)
			}
		}
		pp.Drop()
		if got := s.Cycles() - cycles; got != uint64(n) {
			t.Fatalf("round %d: Cycles() advanced by %d, want %d", round, got, n)
		}
		if pp.Pushed() != first+uint64(n) {
			t.Fatalf("round %d: %d frames pushed after Drop, want %d", round, pp.Pushed(), first+uint64(n))
		}
		// Settled, the ports read the last frame run, and a Cycle holds
		// its inputs.
		pp.Settle(first + uint64(n) - 1)
		p.check(t, round, last)
		if err := s.Cycle(1); err != nil {
			t.Fatal(err)
		}
		p.check(t, round, m.cycle(ins[n-1]))
	}
	if err := pp.Stop(); err != nil {
		t.Fatal(err)
	}
}

// TestPipeBusy: while frames wait to run, calls that touch the model fail
// and ports cannot be registered; Drop and Stop free the Sim again.
func TestPipeBusy(t *testing.T) {
	s := openCounter(t)
	p := registerPorts(t, s)
	if err := s.Cycle(1); err != nil { // rst_ni low: reset
		t.Fatal(err)
	}
	pp, err := s.StartPipe(8, []Cond{{Port: p.count, Mask: ^uint64(0), Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.StartPipe(8, nil); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("a second StartPipe: got %v", err)
	}
	p.apply(stimulus{rst: true, en: true, step: 1, limit: 1 << 30})
	for i := 0; i < 4; i++ {
		pp.Push(1) // halts after the frame whose count_o is 1: the second
	}
	if _, ran, matched, err := pp.Wait(1); !ran || !matched || err != nil {
		t.Fatalf("Wait(1): ran %v, matched %v, %v; want the halt", ran, matched, err)
	}
	if err := s.Cycle(1); err == nil || !strings.Contains(err.Error(), "the pipe has frames to run") {
		t.Errorf("Cycle with frames waiting: got %v", err)
	}
	if _, err := s.Output("counter.tag_o"); err == nil {
		t.Error("registering a port while the pipe runs succeeded")
	}
	pp.Drop()
	if err := s.Cycle(1); err != nil {
		t.Fatalf("Cycle after Drop: %v", err)
	}
	if got, want := s.Cycles(), uint64(1+2+1); got != want {
		t.Errorf("Cycles() = %d, want %d", got, want)
	}
	if err := pp.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Output("counter.tag_o"); err != nil {
		t.Errorf("registering a port after Stop: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("Push after Stop did not panic")
		}
	}()
	pp.Push(0)
}

// TestPipeSleeps: a pipe left without frames goes to sleep and wakes for
// the next one.
func TestPipeSleeps(t *testing.T) {
	s := openCounter(t)
	p := registerPorts(t, s)
	pp, err := s.StartPipe(4, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.apply(stimulus{rst: true, en: true, step: 3, limit: 1 << 30})
	for i := 0; i < 3; i++ {
		time.Sleep(20 * time.Millisecond) // far past the pipe thread's spinning
		pp.Push(0)
		smp, ran, _, err := pp.Wait(uint64(i))
		if !ran || err != nil {
			t.Fatalf("frame %d: ran %v, %v", i, ran, err)
		}
		if got := p.count.U64In(smp); got != uint64(3*i) {
			t.Fatalf("frame %d: count_o %d, want %d", i, got, 3*i)
		}
	}
}

// TestPipeFinish: a $finish stops the pipe after the frame that ran it;
// waiting for a later frame reports it, and closing works.
func TestPipeFinish(t *testing.T) {
	s := openCounter(t)
	p := registerPorts(t, s)
	halt, err := s.Input("counter.halt_i")
	if err != nil {
		t.Fatal(err)
	}
	pp, err := s.StartPipe(8, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		p.apply(stimulus{rst: true, en: true, step: 1, limit: 1 << 30})
		halt.Set(b2u(i == 2))
		pp.Push(0)
	}
	for i := 0; i < 3; i++ {
		if _, ran, _, err := pp.Wait(uint64(i)); !ran || err != nil {
			t.Fatalf("frame %d before the $finish took effect: ran %v, %v", i, ran, err)
		}
	}
	if _, ran, _, err := pp.Wait(3); ran || !errors.Is(err, ErrFinished) {
		t.Fatalf("frame after $finish: ran %v, %v; want ErrFinished", ran, err)
	}
	if err := s.Close(); err != nil { // with frames not run
		t.Fatal(err)
	}
}

// TestPipeStalled: frames a pipe thread never runs end the wait with
// ErrStalled, not a wait without end.
func TestPipeStalled(t *testing.T) {
	s := openCounter(t)
	p := registerPorts(t, s)
	pp, err := s.StartPipe(4, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func(d time.Duration) { stallLimit = d }(stallLimit)
	stallLimit = 50 * time.Millisecond
	// The pipe thread quits, the Pipe does not know.
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&pp.ctl.quit)), 1)
	pp.kick()
	time.Sleep(10 * time.Millisecond)
	p.apply(stimulus{rst: true})
	pp.Push(0)
	if _, ran, _, err := pp.Wait(0); ran || !errors.Is(err, ErrStalled) {
		t.Fatalf("Wait on a frame no thread runs: ran %v, %v; want ErrStalled", ran, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
