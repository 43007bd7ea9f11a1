package vpi

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

func randomStimulus(r *rand.Rand) stimulus {
	return stimulus{
		rst:   r.IntN(300) != 0,
		en:    r.IntN(4) != 0,
		load:  r.IntN(6) == 0,
		step:  r.Uint32() >> (16 + r.IntN(16)),
		limit: r.Uint32() >> (8 + r.IntN(24)),
		line:  randomLine(r)[:r.IntN(65)],
		tag:   uint16(r.IntN(1 << 12)),
	}
}

// padded is in as the design sees it: line_i zero-extended to 64 bytes.
func padded(in stimulus) stimulus {
	in.line = append(bytes.Clone(in.line), make([]byte, 64-len(in.line))...)
	return in
}

// TestFramesMatchModel stages random input frames and runs them through
// every call that runs cycles, with fewer, as many and more cycles than
// frames and with stop conditions, and checks each kept sample, the
// outputs and the held inputs afterwards against the Go model.
func TestFramesMatchModel(t *testing.T) {
	s := openCounter(t)
	p := registerPorts(t, s)
	r := rand.New(rand.NewPCG(7, 8))
	var m model
	p.apply(stimulus{})
	m.cycle(stimulus{})
	if err := s.Cycle(1); err != nil {
		t.Fatal(err)
	}
	hitOrTwo := []Cond{{Port: p.hit, Mask: 1, Value: 1}, {Port: p.count, Mask: 3, Value: 2}}
	for round := 0; round < 600; round++ {
		k := 1 + r.IntN(24)
		ins := make([]stimulus, k)
		for i := range ins {
			ins[i] = randomStimulus(r)
			p.apply(ins[i])
			ins[i] = padded(ins[i])
			if n := s.Stage(); n != i+1 {
				t.Fatalf("round %d: Stage() = %d, want %d", round, n, i+1)
			}
		}
		// What the call should do, from the model.
		kind := r.IntN(5)
		max := k
		switch kind {
		case 1:
			max = 1 + r.IntN(k) // frames left over
		case 2, 3, 4:
			max = k + r.IntN(6) // cycles past the frames hold the last one
		}
		stop := func(int, sample) bool { return false }
		// The second condition of kind 3 may be checked on the first
		// cycles only.
		checkUntil := 0
		if r.IntN(2) == 0 {
			checkUntil = r.IntN(k + 1)
		}
		hitOrTwo[1].Before = checkUntil
		switch kind {
		case 3:
			stop = func(i int, o sample) bool { return o.hit || (checkUntil == 0 || i < checkUntil) && o.count&3 == 2 }
		case 4:
			stop = func(_ int, o sample) bool { return o.hit }
		}
		var want []sample
		wantOK := false
		for i := 0; i < max; i++ {
			o := m.cycle(ins[min(i, k-1)])
			want = append(want, o)
			if stop(i, o) {
				wantOK = true
				break
			}
		}

		before, calls := s.Cycles(), s.Calls()
		var n int
		var ok bool
		var err error
		switch kind {
		case 0, 1, 2:
			n, err = max, s.Cycle(max)
		case 3:
			n, ok, err = s.RunUntilAny(hitOrTwo, max)
		case 4:
			n, ok, err = s.RunUntil(p.hit, 1, 1, max)
		}
		if err != nil || n != len(want) || ok != wantOK {
			t.Fatalf("round %d (call %d, %d frames, max %d, Before %d): ran %d, %v, %v; want %d, %v", round, kind, k, max, checkUntil, n, ok, err, len(want), wantOK)
		}
		if got := s.Cycles() - before; got != uint64(n) {
			t.Fatalf("round %d: Cycles() advanced by %d, want %d", round, got, n)
		}
		if got := s.Calls() - calls; got != 1 {
			t.Fatalf("round %d: %d calls into the shim, want 1", round, got)
		}
		if s.Staged() != 0 || s.Samples() != min(n, k) {
			t.Fatalf("round %d: after the call %d staged and %d samples, want 0 and %d", round, s.Staged(), s.Samples(), min(n, k))
		}
		// The outputs hold the last cycle's sample, each kept sample its own.
		p.check(t, round*1000+n-1, want[n-1])
		for i := 0; i < s.Samples(); i++ {
			j := r.IntN(s.Samples())
			// Read in place, then through the ports.
			smp := s.Sample(j)
			if got := uint32(p.count.U64In(smp)); got != want[j].count || p.hit.BitIn(smp) != want[j].hit ||
				!bytes.Equal(p.lineOut.BytesIn(smp), want[j].line) {
				t.Fatalf("round %d: Sample(%d): count_o %d, hit_o %v, want %d, %v", round, j, got, p.hit.BitIn(smp), want[j].count, want[j].hit)
			}
			s.UseSample(j)
			p.check(t, round*1000+j, want[j])
		}
		// The inputs hold the last cycle's, for the next unstaged cycle.
		if err := s.Cycle(1); err != nil {
			t.Fatal(err)
		}
		p.check(t, round*1000+n, m.cycle(ins[min(n, k)-1]))
	}
}

func TestFramesDropped(t *testing.T) {
	s := openCounter(t)
	p := registerPorts(t, s)
	if err := s.Cycle(1); err != nil { // rst_ni low: reset
		t.Fatal(err)
	}
	p.apply(stimulus{rst: true, en: true, step: 1})
	s.Stage()
	s.Stage()
	if _, err := s.Output("counter.u_acc.acc_o"); err != nil {
		t.Fatal(err)
	}
	if s.Staged() != 0 {
		t.Errorf("registering a port left %d frames staged", s.Staged())
	}
	// Frames with a bad layout never reach the shim; a Cycle runs held inputs.
	if err := s.Cycle(3); err != nil {
		t.Fatal(err)
	}
	if s.Samples() != 0 || p.count.U64() != 2 {
		t.Errorf("after Cycle(3) without frames: %d samples, count_o %d; want 0 and 2", s.Samples(), p.count.U64())
	}
	defer func() {
		if recover() == nil {
			t.Error("UseSample(0) with no samples kept did not panic")
		}
	}()
	s.UseSample(0)
}

// TestFramesFinish: a $finish in the middle of the frames ends the call
// after the cycle that ran it, keeping the samples of the cycles run.
func TestFramesFinish(t *testing.T) {
	s := openCounter(t)
	p := registerPorts(t, s)
	halt, err := s.Input("counter.halt_i")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Cycle(1); err != nil { // rst_ni low: reset
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		p.apply(stimulus{rst: true, en: true, step: 1, limit: 1 << 30})
		halt.Set(b2u(i == 2))
		s.Stage()
	}
	err = s.Cycle(6)
	if !errors.Is(err, ErrFinished) {
		t.Fatalf("Cycle over a $finish frame: got %v, want ErrFinished", err)
	}
	if s.Cycles() != 1+3 || s.Samples() != 3 {
		t.Errorf("after $finish at the third frame: %d cycles, %d samples; want 4 and 3", s.Cycles(), s.Samples())
	}
	for i := 0; i < 3; i++ {
		s.UseSample(i)
		if got := p.count.U64(); got != uint64(i) {
			t.Errorf("sample %d: count_o %d, want %d", i, got, i)
		}
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
