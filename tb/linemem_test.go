package tb

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// TestLineMemHandoffs runs requests whose loads and stores the line memory
// must hand back to Memory (a load outside the readable lines, a store
// outside the writable ones, a page Memory has not made yet), through the
// line memory and a cycle at a time, and requires the same result: cycles,
// statuses, violations in the same order, memory counters, App.Recv and
// coverage.
func TestLineMemHandoffs(t *testing.T) {
	msg := []byte(setMsg(5, pattern(40, 1), pattern(3000, 2)))
	app := Region{"App.Recv", AppRecvBase, DefaultCapLines * LineSize}
	for _, tc := range []struct {
		name               string
		readable, writable Region
		fresh              bool // App.Recv on a page Memory has not made
	}{
		{"loads outside", Region{"half of Net.Recv", NetRecvBase, uint64(len(msg)) / 2}, app, false},
		{"stores outside", Region{"Net.Recv", NetRecvBase, uint64(len(msg))}, Region{"ten lines of App.Recv", AppRecvBase, 10 * LineSize}, false},
		{"both", Region{"a line of Net.Recv", NetRecvBase + 5*LineSize, LineSize}, Region{"a line of App.Recv", AppRecvBase + 2*LineSize, LineSize}, false},
		{"a page not made", Region{"Net.Recv", NetRecvBase, uint64(len(msg))}, app, true},
	} {
		runOn(t, tc.name, func(t *T) {
			appBase := uint64(AppRecvBase)
			if tc.fresh { // the line memory runs first, so that it meets the page unmade
				for appBase = 0x0C000000; dut.Mem.pages[appBase/pageSize] != nil; appBase += pageSize {
				}
				tc.writable.Base = appBase
			}
			type result struct {
				cycles        uint64
				status, next  Status
				violations    []string
				loads, stores int
				image         []byte
				states        [16]int
				transitions   [16][16]int
				phases        [8]int
				calls         uint64
				handoffs      int
			}
			var res [2]result
			for i, mode := range []int{lineMem, stepwise} {
				freshEngine(t)
				m := dut.Mem
				if err := m.SetConfig(MemConfig{Latency: 3, Seed: 1}); err != nil {
					t.Fatal(err)
				}
				m.Fill(NetRecvBase, len(msg)+LineSize, Filler)
				m.Write(NetRecvBase, msg)
				if !tc.fresh {
					m.Fill(AppRecvBase, DefaultCapLines*LineSize, Filler)
				}
				m.Readable, m.Writable, m.Violations = tc.readable, tc.writable, nil
				saved := dut.Cov
				dut.Cov = NewCoverage()
				setMode(t, mode)
				r := &res[i]
				c0, l0, s0, k0, h0 := dut.Cycle(), m.LoadCount, m.StoreCount, dut.sim.Calls(), dut.handoffs
				cmds := []command{{OpAppReadyFlag, AppReadyPayload(appBase, DefaultCapLines)},
					{OpSendNetBuf, NetRecvBase}, {OpSendNetLen, uint64(len(msg))}}
				got, err := dut.exchange(dut.Budget(len(msg)), nil, func(_ uint64, s Status) { r.status = s }, cmds, 1, statusLoad)
				if err == nil {
					r.next, err = dut.loadedStatus(got[0])
				}
				r.cycles, r.loads, r.stores = dut.Cycle()-c0, m.LoadCount-l0, m.StoreCount-s0
				r.calls, r.handoffs = dut.sim.Calls()-k0, dut.handoffs-h0
				r.violations = slices.Clone(m.Violations)
				r.image = m.Read(appBase, DefaultCapLines*LineSize)
				dut.flushCov()
				r.states, r.transitions, r.phases = dut.Cov.States, dut.Cov.Transitions, dut.Cov.Phases
				dut.Cov = saved
				setMode(t, lineMem)
				if err != nil {
					t.Fatalf("%s, %s: %v", tc.name, modeNames[mode], err)
				}
				if mode == lineMem && r.handoffs == 0 {
					t.Fatalf("%s: the line memory handed nothing off", tc.name)
				}
				if err := dut.Restart(); err != nil {
					t.Fatal(err)
				}
			}
			l, s := res[0], res[1]
			for _, c := range []struct {
				what string
				same bool
			}{
				{"cycles", s.cycles == l.cycles}, {"status", s.status == l.status}, {"next status", s.next == l.next},
				{"violations", slices.Equal(s.violations, l.violations)}, {"loads", s.loads == l.loads}, {"stores", s.stores == l.stores},
				{"App.Recv", bytes.Equal(s.image, l.image)}, {"states", s.states == l.states},
				{"transitions", s.transitions == l.transitions}, {"phases", s.phases == l.phases},
			} {
				if !c.same {
					t.Errorf("%s: %s differ: stepwise %s, line memory %s", tc.name, c.what, fmt.Sprint(s), fmt.Sprint(l))
				}
			}
			if l.calls >= s.calls {
				t.Errorf("%s: %d calls through the line memory, %d stepwise", tc.name, l.calls, s.calls)
			}
			t.Logf("%s: %d cycles, %d violations; %d simulator calls stepwise, %d through the line memory, which handed off %d edges",
				tc.name, s.cycles, len(s.violations), s.calls, l.calls, l.handoffs)
		})
	}
}
