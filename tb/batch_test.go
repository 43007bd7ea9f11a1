package tb

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/fnv"
	"math"
	mathrand "math/rand"
	"slices"
	"testing"

	"arcalis/golden"
	"arcalis/vectors"
	"arcalis/vpi"
)

// batchResult is everything one request did that batching must not change.
type batchResult struct {
	outcome             Outcome
	err                 string
	match               bool
	cycles              uint64 // the Accel's cycles, first command to the end of the reply
	samples             uint64 // hash of every edge's sample (see runRequests)
	loads, stores       int
	faulted             []uint64
	inflight, ldq, stq  int // the memory's counters afterwards
	loadsLeft, acksLeft int // answers still queued afterwards
}

// Ways of running cycles: one per simulator call, and several per call
// (frames), both with Memory answering every cycle in Go; and the default,
// the shim's line memory wherever Memory is plain (else batched).
const (
	stepwise = iota
	batched
	lineMem
)

var modeNames = []string{"stepwise", "batched", "line memory"}

// setMode puts dut in one of the modes above.
func setMode(t *T, mode int) {
	t.Helper()
	dut.stepwise = mode == stepwise
	dut.noLineMem = mode != lineMem
}

// runRequests runs msgs through RunVector as `arcalis run` does (start
// offset index mod 64, memory reseeded per index) on a freshly reset engine
// over freshly filled buffers, in one of the modes above. It returns each
// request's result, the coverage they recorded and the simulator calls.
func runRequests(t *T, cfg MemConfig, mode int, msgs [][]byte) ([]batchResult, *Coverage, uint64) {
	t.Helper()
	freshEngine(t)
	m := dut.Mem
	old := m.Config()
	if err := m.SetConfig(cfg); err != nil {
		t.Fatal(err)
	}
	defer func() { m.cfg = old }()
	m.Fill(NetRecvBase, DefaultCapLines*LineSize, Filler)
	m.Fill(AppRecvBase, DefaultCapLines*LineSize, Filler)
	m.Fill(NetRespBase, LineSize, Filler)
	saved := dut.Cov
	dut.Cov = NewCoverage()
	setMode(t, mode)
	h, from := hashEdges(mode != lineMem) // the line memory runs no Go between edges
	defer func() { dut.Cov, dut.onEdge = saved, nil; setMode(t, lineMem) }()

	var res []batchResult
	calls := dut.sim.Calls()
	for i, msg := range msgs {
		l0, s0, f0 := m.LoadCount, m.StoreCount, len(m.Faulted)
		c0 := dut.Cycle()
		from(c0)
		r := dut.RunVector(i, "batch", msg, RunOptions{Offset: -1})
		b := batchResult{
			outcome: r.Outcome, match: r.Verdict.Match,
			cycles: dut.Cycle() - c0, samples: h.Sum64(), loads: m.LoadCount - l0, stores: m.StoreCount - s0,
			faulted:  slices.Clone(m.Faulted[f0:]),
			inflight: m.inflight, ldq: m.ldInflight, stq: m.stInflight,
			loadsLeft: len(m.loads.items) - m.loads.head, acksLeft: len(m.acks.items) - m.acks.head,
		}
		// Images are shared with the memory's snapshot: keep copies.
		b.outcome.Before, b.outcome.Image, b.outcome.Reply = bytes.Clone(r.Outcome.Before), bytes.Clone(r.Outcome.Image), bytes.Clone(r.Outcome.Reply)
		if r.Err != nil {
			b.err = r.Err.Error()
		}
		res = append(res, b)
	}
	return res, dut.Cov, dut.sim.Calls() - calls
}

// hashEdges hashes every edge's sample from now on into h, if on: where it
// means something (a request's fields while it is valid, a store's data
// bytes that its strobe selects: the others hold whatever came before), with the readiness the memory drove and the cycle
// counted from the one from sets, which also resets h.
func hashEdges(on bool) (h hash.Hash64, from func(c0 uint64)) {
	h = fnv.New64a()
	if !on {
		return h, func(uint64) { h.Reset() }
	}
	var buf []byte
	var c0 uint64
	o := &dut.out
	ld := []*vpi.Port{o.ldReqAddr, o.ldReqTag}
	st := []*vpi.Port{o.stReqAddr, o.stReqTag, o.stReqStrb}
	uc := []*vpi.Port{o.ucRspHit, o.ucRspRdata}
	dut.onEdge = func() {
		buf = binary.LittleEndian.AppendUint64(buf[:0], dut.cycle-c0)
		buf = append(buf, o.state.Bytes()[0], o.rxPhase.Bytes()[0], byte(b2u(dut.ldReady)), byte(b2u(dut.stReady)))
		for _, g := range []struct {
			valid  *vpi.Port
			fields []*vpi.Port
		}{{o.ldReqValid, ld}, {o.stReqValid, st}, {o.ucRspValid, uc}} {
			buf = append(buf, byte(b2u(g.valid.Bit())))
			for _, p := range g.fields {
				if g.valid.Bit() {
					buf = append(buf, p.Bytes()...)
				}
			}
		}
		if o.stReqValid.Bit() { // the bytes it stores: the others are don't-care
			data, strb := o.stReqData.Bytes(), o.stReqStrb.U64()
			for i, b := range data {
				buf = append(buf, b&byte(0-(strb>>i&1)))
			}
		}
		h.Write(buf)
	}
	return h, func(c uint64) { c0 = c; h.Reset() }
}

// TestGuardedScript issues status loads while the engine streams a large
// Set: UC scripts stage past the memory's lookahead, so their guard must stop
// each call after a cycle that issues a request. Every edge must match a
// run a cycle at a time.
func TestGuardedScript(t *testing.T) {
	msg := []byte(setMsg(77, pattern(40, 1), pattern(16<<10, 2)))
	on(t, func(t *T) {
		for _, lat := range []int{1, 4, 9} {
			t.Run(fmt.Sprint("latency ", lat), func(t *T) {
				type result struct {
					hash, cycles  uint64
					status, final Status
					loads, stores int
					statusLoads   []uint64
					scriptCalls   uint64
				}
				var res [2]result
				for i, mode := range []int{stepwise, batched} {
					freshEngine(t)
					m := dut.Mem
					if err := m.SetConfig(MemConfig{Latency: lat, Seed: 1}); err != nil {
						t.Fatal(err)
					}
					m.Fill(NetRecvBase, len(msg)+LineSize, Filler)
					m.Write(NetRecvBase, msg)
					m.Fill(AppRecvBase, DefaultCapLines*LineSize, Filler)
					m.Readable = Region{"Net.Recv", NetRecvBase, uint64(len(msg))}
					m.Writable = Region{"App.Recv", AppRecvBase, DefaultCapLines * LineSize}
					setMode(t, mode)
					h, from := hashEdges(true)
					c0 := dut.Cycle()
					from(c0)
					l0, s0 := m.LoadCount, m.StoreCount
					r := &res[i]
					if err := dut.commands(command{OpAppReadyFlag, AppReadyPayload(AppRecvBase, DefaultCapLines)},
						command{OpSendNetBuf, NetRecvBase}, command{OpSendNetLen, uint64(len(msg))}); err != nil {
						t.Fatal(err)
					}
					calls := dut.sim.Calls()
					accs := make([]ucAccess, 8)
					for j := range accs {
						accs[j] = ucAccess{addr: WindowBase}
					}
					got, err := dut.ucRun(0, accs...)
					if err != nil {
						t.Fatal(err)
					}
					r.scriptCalls = dut.sim.Calls() - calls
					for _, g := range got {
						r.statusLoads = append(r.statusLoads, g.data)
					}
					if r.status, err = dut.Poll(dut.Budget(len(msg))); err != nil {
						t.Fatal(err)
					}
					if r.final, err = dut.ReadStatus(); err != nil {
						t.Fatal(err)
					}
					r.hash, r.cycles = h.Sum64(), dut.Cycle()-c0
					r.loads, r.stores = m.LoadCount-l0, m.StoreCount-s0
					setMode(t, lineMem)
					dut.onEdge = nil
					if len(m.Violations) > 0 {
						t.Errorf("latency %d, %s: violations %v", lat, modeNames[mode], m.Violations)
					}
				}
				for _, r := range res[1:] {
					if !slices.Equal(res[0].statusLoads, r.statusLoads) || res[0].hash != r.hash ||
						res[0].cycles != r.cycles || res[0].status != r.status || res[0].final != r.final ||
						res[0].loads != r.loads || res[0].stores != r.stores {
						t.Errorf("latency %d: stepwise %+v, %s %+v", lat, res[0], modeNames[batched], r)
					}
				}
				// 16 cycles, more than the lookahead, with loads in most.
				if res[1].scriptCalls < 2 {
					t.Errorf("latency %d: the status loads ran in %d call(s): the guard never stopped one", lat, res[1].scriptCalls)
				}
				if res[0].status.Result() != uint8(golden.CodeOK) {
					t.Errorf("latency %d: result %d, want OK", lat, res[0].status.Result())
				}
				t.Logf("latency %d: %d cycles; the 8 status loads took %d simulator calls batched", lat, res[1].cycles, res[1].scriptCalls)
			})
		}
	})
}

// diffResults lists the differences between a stepwise run and another;
// samples compares the output hashes too (the line memory runs no Go
// between edges to hash them).
func diffResults(step, batch []batchResult, samples bool) []string {
	var d []string
	for i := range step {
		s, b := step[i], batch[i]
		so, bo := s.outcome, b.outcome
		for _, c := range []struct {
			what string
			same bool
			s, b any
		}{
			{"error", s.err == b.err, s.err, b.err},
			{"status", so.Status == bo.Status, so.Status, bo.Status},
			{"Outcome.Cycles", so.Cycles == bo.Cycles, so.Cycles, bo.Cycles},
			{"cycles", s.cycles == b.cycles, s.cycles, b.cycles},
			{"samples", !samples || s.samples == b.samples, s.samples, b.samples},
			{"App.Recv before", bytes.Equal(so.Before, bo.Before), len(so.Before), len(bo.Before)},
			{"App.Recv image", bytes.Equal(so.Image, bo.Image), len(so.Image), len(bo.Image)},
			{"replied", so.Replied == bo.Replied, so.Replied, bo.Replied},
			{"reply", bytes.Equal(so.Reply, bo.Reply), so.Reply, bo.Reply},
			{"reply status", so.ReplyStatus == bo.ReplyStatus, so.ReplyStatus, bo.ReplyStatus},
			{"violations", slices.Equal(so.Violations, bo.Violations), so.Violations, bo.Violations},
			{"verdict", s.match == b.match, s.match, b.match},
			{"loads", s.loads == b.loads, s.loads, b.loads},
			{"stores", s.stores == b.stores, s.stores, b.stores},
			{"faulted lines", slices.Equal(s.faulted, b.faulted), s.faulted, b.faulted},
			{"in flight", [3]int{s.inflight, s.ldq, s.stq} == [3]int{b.inflight, b.ldq, b.stq},
				[3]int{s.inflight, s.ldq, s.stq}, [3]int{b.inflight, b.ldq, b.stq}},
			{"queued answers", s.loadsLeft == b.loadsLeft && s.acksLeft == b.acksLeft,
				[2]int{s.loadsLeft, s.acksLeft}, [2]int{b.loadsLeft, b.acksLeft}},
		} {
			if !c.same && len(d) < 20 {
				d = append(d, fmt.Sprintf("request %d: %s: stepwise %v, other %v", i, c.what, c.s, c.b))
			}
		}
	}
	return d
}

// TestBatchingMatchesStepwise runs the default vectors and a few large
// values under memory behaviours of every kind, once a cycle at a time and
// once with several cycles per simulator call (frames, the line memory),
// and requires the same results, cycle for cycle: outcomes, statuses,
// images, replies, memory counters, every output at every edge and the
// coverage of every cycle's state.
func TestBatchingMatchesStepwise(t *testing.T) {
	recs, err := vectors.ReadFile("../vectors/default.vec")
	if err != nil {
		t.Fatal(err)
	}
	var all [][]byte
	for _, r := range recs {
		all = append(all, r.Msg)
	}
	for i, n := range []int{16 << 10, 40000, 64 << 10} {
		all = append(all, setMsg(uint32(900+i), pattern(40, byte(i)), pattern(n, byte(i+1))))
	}
	some := append(slices.Clone(all[:60]), all[len(all)-3:]...)
	bad := uint64(NetRecvBase + 3*LineSize)
	for _, tc := range []struct {
		cfg     MemConfig
		msgs    [][]byte
		batched bool // expect fewer simulator calls than cycles by half
	}{
		{MemConfig{Latency: 4, Seed: 1}, all, true},
		{MemConfig{Latency: 0, Seed: 1}, some, false},
		{MemConfig{Latency: 1, Seed: 1}, some, false},
		{MemConfig{Latency: 2, Seed: 1}, some, true},
		{MemConfig{Latency: 20, Seed: 1}, some, true},
		{MemConfig{Latency: 7, Backpressure: 0.3, Reorder: true, Seed: 2}, some, true},
		{MemConfig{Latency: 3, MaxStall: 9, Seed: 3}, some, false},
		{MemConfig{Latency: 6, MaxStall: 5, Reorder: true, Seed: 4}, some, false},
		{MemConfig{Latency: 5, LoadFault: 0.05, Seed: 5}, some, false},
		{MemConfig{Latency: 4, Backpressure: 0.2, MaxStall: 3, LoadFault: 0.02, Reorder: true, Seed: 6}, some, false},
		// The load queue keeps a load offered while the cap of 3 holds it,
		// so most cycles carry a handshake that frames cannot run past.
		{MemConfig{Latency: 9, MaxInFlight: 3, Seed: 7}, some, false},
		{MemConfig{Latency: 12, FaultLine: func(a uint64) bool { return a == bad }, Seed: 8}, some, true},
		{MemConfig{Latency: 60, MaxStall: 200, Reorder: true, Seed: 9}, some, false},
	} {
		runOn(t, memName(tc.cfg), func(t *T) {
			cfg := fmt.Sprintf("%+v", tc.cfg)
			step, stepCov, stepCalls := runRequests(t, tc.cfg, stepwise, tc.msgs)
			var cycles uint64
			for _, r := range step {
				cycles += r.cycles
			}
			for _, mode := range []int{batched, lineMem} {
				name := cfg + ", " + modeNames[mode]
				res, cov, calls := runRequests(t, tc.cfg, mode, tc.msgs)
				for _, d := range diffResults(step, res, mode != lineMem) {
					t.Errorf("%s: %s", name, d)
				}
				for _, c := range []struct {
					what string
					same bool
				}{
					{"states", stepCov.States == cov.States},
					{"phases", stepCov.Phases == cov.Phases},
					{"transitions", stepCov.Transitions == cov.Transitions},
					{"opcodes", stepCov.Opcodes == cov.Opcodes},
					{"results", stepCov.Results == cov.Results},
					{"command errors", stepCov.CmdErrs == cov.CmdErrs},
				} {
					if !c.same {
						t.Errorf("%s: coverage of %s differs", name, c.what)
					}
				}
				t.Logf("%s: %d requests, %d cycles; %d simulator calls stepwise, %d %s", cfg, len(tc.msgs), cycles, stepCalls, calls, modeNames[mode])
				if tc.batched && calls*2 > cycles {
					t.Errorf("%s: %d simulator calls for %d cycles: batching did not engage", name, calls, cycles)
				}
			}
		})
	}
}

// TestTapeIsMathRand: the memory's random numbers come through a tape, which
// must hand out exactly what math/rand's own source would (its Int63 is the
// low 63 bits of its Uint64), and after a rewind the same values again.
func TestTapeIsMathRand(t *testing.T) {
	for seed := int64(0); seed < 20; seed++ {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			tp := &tape{src: mathrand.NewSource(seed).(mathrand.Source64)}
			got, want := mathrand.New(tp), mathrand.New(mathrand.NewSource(seed))
			draw := func(r *mathrand.Rand, i int) uint64 {
				switch i % 4 {
				case 0:
					return math.Float64bits(r.Float64())
				case 1:
					return uint64(r.Intn(1 + i))
				case 2:
					return uint64(r.Int63())
				}
				return r.Uint64()
			}
			var kept []uint64
			for i := 0; i < 3000; i++ {
				if i%100 == 10 { // keep the next values, then draw them again
					tp.record()
					kept = kept[:0]
				}
				g := draw(got, i)
				if w := draw(want, i); g != w {
					t.Fatalf("seed %d, draw %d: tape %#x, math/rand %#x", seed, i, g, w)
				}
				if tp.keep {
					kept = append(kept, g)
				}
				if i%100 == 40 {
					tp.pos = 0 // rewind to where recording began
					for j, k := range kept {
						if g := draw(got, i-len(kept)+1+j); g != k {
							t.Fatalf("seed %d: draw %d again: %#x, first %#x", seed, i-len(kept)+1+j, g, k)
						}
					}
					tp.stop()
				}
			}
		})
	}
}
