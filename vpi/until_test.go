package vpi

import (
	"errors"
	"testing"
	"time"
)

// TestRunUntilAny runs the counter (step 3 from 0, limit 100) until any of a
// set of conditions holds. count_o before the k-th edge after reset is
// 3(k-1); hit_o first holds at k = 35.
func TestRunUntilAny(t *testing.T) {
	s := openCounter(t)
	p := registerPorts(t, s)
	eq := func(port *Port, mask, v uint64) Cond { return Cond{Port: port, Mask: mask, Value: v} }
	ne := func(port *Port, mask, v uint64) Cond { return Cond{Port: port, Mask: mask, Value: v, NotEqual: true} }
	before := func(c Cond, n int) Cond { c.Before = n; return c }
	from := func(c Cond, n int) Cond { c.From = n; return c }
	for _, tc := range []struct {
		name   string
		conds  []Cond
		max    int
		cycles int
		ok     bool
		count  uint64 // count_o in the last sample
	}{
		{"one condition", []Cond{eq(p.hit, 1, 1)}, 1000, 35, true, 102},
		{"first of two", []Cond{eq(p.hit, 1, 1), eq(p.count, 0xffff, 9)}, 1000, 4, true, 9},
		{"second of two", []Cond{eq(p.count, 0xffff, 9), eq(p.hit, 1, 1)}, 1000, 4, true, 9},
		{"not equal", []Cond{ne(p.count, 0xffff, 0)}, 1000, 2, true, 3},
		{"mask", []Cond{eq(p.count, 0x3, 0x2)}, 1000, 3, true, 6},
		{"budget runs out", []Cond{eq(p.hit, 1, 1)}, 20, 20, false, 57},
		{"no conditions", nil, 7, 7, false, 18},
		{"no budget", []Cond{ne(p.count, 0, 0)}, 0, 0, false, 0},
		{"before: checked in time", []Cond{before(eq(p.count, 0xffff, 9), 4)}, 1000, 4, true, 9},
		{"before: checked too late", []Cond{before(eq(p.count, 0xffff, 9), 3), eq(p.hit, 1, 1)}, 1000, 35, true, 102},
		{"from: checked from then on", []Cond{from(eq(p.count, 0x3, 0x0), 2)}, 1000, 5, true, 12},
		{"from: not before", []Cond{from(eq(p.count, 0xffff, 0), 1)}, 20, 20, false, 57},
	} {
		// No t.Run: the Sim belongs to this goroutine's thread.
		p.apply(stimulus{rst: false})
		if err := s.Cycle(1); err != nil {
			t.Fatal(err)
		}
		p.apply(stimulus{rst: true, en: true, step: 3, limit: 100})
		before := s.Cycles()
		n, ok, err := s.RunUntilAny(tc.conds, tc.max)
		if err != nil || n != tc.cycles || ok != tc.ok {
			t.Errorf("%s: RunUntilAny = %d, %v, %v; want %d, %v", tc.name, n, ok, err, tc.cycles, tc.ok)
			continue
		}
		if s.Cycles()-before != uint64(n) {
			t.Errorf("%s: Cycles() advanced by %d, want %d", tc.name, s.Cycles()-before, n)
		}
		if tc.cycles > 0 && p.count.U64() != tc.count {
			t.Errorf("%s: count_o in the last sample = %d, want %d", tc.name, p.count.U64(), tc.count)
		}
	}
}

func TestRunUntilAnyErrors(t *testing.T) {
	s := openCounter(t)
	p := registerPorts(t, s)
	for _, tc := range []struct {
		name  string
		conds []Cond
		max   int
	}{
		{"input port", []Cond{{Port: p.step, Mask: 1, Value: 1}}, 10},
		{"nil port", []Cond{{Mask: 1, Value: 1}}, 10},
		{"negative Before", []Cond{{Port: p.hit, Mask: 1, Value: 1, Before: -1}}, 10},
		{"negative budget", nil, -1},
	} {
		if n, _, err := s.RunUntilAny(tc.conds, tc.max); !errors.Is(err, ErrInvalid) || n != 0 {
			t.Errorf("%s: got %d, %v; want 0 cycles and ErrInvalid", tc.name, n, err)
		}
	}
	if s.Cycles() != 0 {
		t.Errorf("refused calls ran %d cycles", s.Cycles())
	}
}

// TestTimeCalls: with timing on, CallTime adds up the calls that ran cycles
// (no more than the wall time around them); off, it stays zero.
func TestTimeCalls(t *testing.T) {
	s := openCounter(t)
	p := registerPorts(t, s)
	p.apply(stimulus{rst: true, en: true, step: 1, limit: 1 << 30})
	s.TimeCalls(true)
	t0 := time.Now()
	for i := 0; i < 50; i++ {
		if err := s.Cycle(100); err != nil {
			t.Fatal(err)
		}
		s.Stage()
		if _, _, err := s.RunUntilAny(nil, 3); err != nil {
			t.Fatal(err)
		}
	}
	wall := time.Since(t0)
	if got := s.CallTime(); got <= 0 || got > wall {
		t.Errorf("CallTime %v after calls that took %v in all", got, wall)
	}
	s.TimeCalls(false)
	if err := s.Cycle(100); err != nil {
		t.Fatal(err)
	}
	if got := s.CallTime(); got != 0 {
		t.Errorf("CallTime %v with timing off", got)
	}
}
