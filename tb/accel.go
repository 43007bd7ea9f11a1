// Package tb drives the Verilated Arcalís receive path with bus-functional
// models of the NetCore, the memory and the AppCore, and scores the result.
package tb

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"arcalis/vpi"
)

// ModelLib is where `make verilate` puts the Verilated model, from the repo root.
const ModelLib = "build/model/libvmodel.so"

// FindModel returns the model library's path: $ARCALIS_MODEL if set, else
// ModelLib under the first directory upward from the working directory that
// holds go.mod.
func FindModel() string {
	if p := os.Getenv("ARCALIS_MODEL"); p != "" {
		return p
	}
	dir, err := os.Getwd()
	if err != nil {
		return ModelLib
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, ModelLib)
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ModelLib
		}
		dir = up
	}
}

// Accel is the simulated accelerator with its memory: one per process, used
// from the goroutine that opened it.
type Accel struct {
	sim   *vpi.Sim
	Mem   *Memory
	Cov   *Coverage
	cycle uint64 // rising edges so far

	// Reset and the configuration port change a few times per run: they go
	// through VPI (vpi.Signal), which leaves the per-cycle copies shorter.
	rst, cfgValid, cfgBase, cfgSize vpi.Signal
	in                              struct {
		ucValid, ucWrite, ucAddr, ucWdata *vpi.Port
		ldReqReady, ldRspValid, ldRspTag  *vpi.Port
		ldRspData, ldRspErr               *vpi.Port
		stReqReady, stAckValid, stAckTag  *vpi.Port
	}
	out struct {
		ucRspValid, ucRspHit, ucRspRdata    *vpi.Port
		ldReqValid, ldReqAddr, ldReqTag     *vpi.Port
		stReqValid, stReqAddr, stReqData    *vpi.Port
		stReqStrb, stReqTag, state, rxPhase *vpi.Port
	}
	ldReady, stReady bool
	uc               ucResponse
	state, phase     uint64 // last sample of state_o and rx_phase_o
	sampled          bool
	pending          int       // samples equal to the last one, not yet in Cov
	window           [2]uint64 // the command page Configure last programmed

	// stepwise turns off running several cycles per simulator call (frames
	// and the line memory): every cycle is one Step. The results are the
	// same (batch_test.go).
	stepwise  bool
	ready     []readiness              // each frame's, reused
	stops     [stopPoll + 1][]vpi.Cond // frames' stop conditions by stopOn
	pollFrom  []vpi.Cond               // stops[stopPoll] from a cycle on, reused
	guarded   []vpi.Cond               // frames' stop conditions with the guard, reused
	lm        *vpi.LineMem             // see lineMemRun; nil if it could not attach
	handoffs  int                      // edges lm handed back to Memory (tests)
	replies   [2][]byte                // Outcome.Reply's, in turn
	nextReply int
	noLineMem bool // answer every cycle's memory traffic in Go (tests)
	script    ucScript
	then      ucScript // exchangeLineMem's tail
	onEdge    func()   // if set, called at every edge with its sample (tests)
}

// stopOn is what ends a run of frames after the cycle it is seen in.
type stopOn uint8

const (
	stopNone stopOn = iota
	stopUC          // a UC response
	stopPoll        // a UC response with a ready status
)

// readiness is a frame's ldReady (bit 0) and stReady (bit 1): one byte
// computed in a register (a [2]bool built field by field on the stack and
// copied stalled every frame on the store just made).
type readiness uint8

type ucResponse struct {
	valid, hit bool
	data       uint64
}

// Open loads the Verilated model at lib and resets it.
func Open(lib string, mem MemConfig) (*Accel, error) {
	// Stat through os so that go test's cache notices a rebuilt model.
	if _, err := os.Stat(lib); err != nil {
		return nil, fmt.Errorf("the Verilated model was not found (%w); build it with `make verilate`", err)
	}
	sim, err := vpi.Open(lib, vpi.Options{Clock: "clk_i"})
	if err != nil {
		return nil, err
	}
	a := &Accel{sim: sim, Mem: NewMemory(mem), Cov: NewCoverage()}
	bind := func(get func(string) (*vpi.Port, error), name string, p **vpi.Port) {
		if err != nil {
			return
		}
		*p, err = get(name)
	}
	in, out := sim.Input, sim.Output
	for _, g := range []struct {
		name string
		s    *vpi.Signal
	}{{"rst_ni", &a.rst}, {"cfg_valid_i", &a.cfgValid}, {"cfg_base_i", &a.cfgBase}, {"cfg_size_i", &a.cfgSize}} {
		if err == nil {
			*g.s, err = sim.Signal(g.name)
		}
	}
	bind(in, "uc_valid_i", &a.in.ucValid)
	bind(in, "uc_write_i", &a.in.ucWrite)
	bind(in, "uc_addr_i", &a.in.ucAddr)
	bind(in, "uc_wdata_i", &a.in.ucWdata)
	bind(in, "ld_req_ready_i", &a.in.ldReqReady)
	bind(in, "ld_rsp_valid_i", &a.in.ldRspValid)
	bind(in, "ld_rsp_tag_i", &a.in.ldRspTag)
	bind(in, "ld_rsp_data_i", &a.in.ldRspData)
	bind(in, "ld_rsp_err_i", &a.in.ldRspErr)
	bind(in, "st_req_ready_i", &a.in.stReqReady)
	bind(in, "st_ack_valid_i", &a.in.stAckValid)
	bind(in, "st_ack_tag_i", &a.in.stAckTag)
	bind(out, "uc_rsp_valid_o", &a.out.ucRspValid)
	bind(out, "uc_rsp_hit_o", &a.out.ucRspHit)
	bind(out, "uc_rsp_rdata_o", &a.out.ucRspRdata)
	bind(out, "ld_req_valid_o", &a.out.ldReqValid)
	bind(out, "ld_req_addr_o", &a.out.ldReqAddr)
	bind(out, "ld_req_tag_o", &a.out.ldReqTag)
	bind(out, "st_req_valid_o", &a.out.stReqValid)
	bind(out, "st_req_addr_o", &a.out.stReqAddr)
	bind(out, "st_req_data_o", &a.out.stReqData)
	bind(out, "st_req_strb_o", &a.out.stReqStrb)
	bind(out, "st_req_tag_o", &a.out.stReqTag)
	bind(out, "state_o", &a.out.state)
	bind(out, "rx_phase_o", &a.out.rxPhase)
	if err != nil {
		sim.Close()
		return nil, fmt.Errorf("binding the model's ports: %w", err)
	}
	if err := a.attachLineMem(); err != nil {
		sim.Close()
		return nil, err
	}
	a.stops[stopUC] = []vpi.Cond{{Port: a.out.ucRspValid, Mask: 1, Value: 1}}
	a.stops[stopPoll] = []vpi.Cond{{Port: a.out.ucRspRdata, Mask: 1 << 4, Value: 1 << 4}}
	a.script.set, a.script.after = a.scriptSet, a.scriptAfter
	if err := a.Reset(); err != nil {
		sim.Close()
		return nil, err
	}
	return a, nil
}

// Close frees the model.
func (a *Accel) Close() error { return a.sim.Close() }

// Cycle is the number of rising edges since the model was opened.
func (a *Accel) Cycle() uint64 { return a.cycle }

// Reset holds rst_ni low for two cycles and empties the memory's queues.
func (a *Accel) Reset() error {
	if err := errors.Join(a.rst.PutU64(0), a.cfgValid.PutU64(0)); err != nil {
		return err
	}
	for _, p := range []*vpi.Port{a.in.ucValid, a.in.ldRspValid, a.in.stAckValid} {
		p.Set(0)
	}
	a.Mem.clearQueues()
	if err := a.sim.Cycle(2); err != nil {
		return err
	}
	a.cycle += 2
	if err := a.rst.PutU64(1); err != nil {
		return err
	}
	return a.Step()
}

// Step runs one clock cycle: the memory drives its answers and readies for
// this edge, the model samples them, and the memory takes what the edge
// transferred.
func (a *Accel) Step() error {
	err := a.step()
	a.flushCov()
	return err
}

// step is Step leaving the state coverage of a run of equal samples to be
// counted by flushCov, which every exported method calls before it returns.
func (a *Accel) step() error {
	m, now := a.Mem, a.cycle+1
	ld, ack := m.nextLoad(now), m.nextAck(now)
	a.ldReady, a.stReady = m.loadReady(), m.storeReady()
	a.drive(ld, ack)
	if err := a.sim.Cycle(1); err != nil {
		return fmt.Errorf("cycle %d: %w", now, err)
	}
	a.edge(now, a.ldReady, a.stReady, a.sim.LastSample())
	return nil
}

// drive sets the memory's inputs for a cycle: the load and store answers
// (nil: none) and the request ports' readiness, a.ldReady and a.stReady.
func (a *Accel) drive(ld, ack *answer) {
	if ld != nil {
		a.in.ldRspValid.Set(1)
		a.in.ldRspTag.Set(ld.tag)
		a.in.ldRspData.SetBytes(ld.data[:])
		a.in.ldRspErr.Set(b2u(ld.err))
	} else {
		a.in.ldRspValid.Set(0)
	}
	if ack != nil {
		a.in.stAckValid.Set(1)
		a.in.stAckTag.Set(ack.tag)
	} else {
		a.in.stAckValid.Set(0)
	}
	a.in.ldReqReady.Set(b2u(a.ldReady))
	a.in.stReqReady.Set(b2u(a.stReady))
}

// frames runs up to max cycles (at least 1) in one simulator call, the
// memory's inputs of each fixed before it runs (Memory.frame), and stops
// after the first cycle whose pre-edge sample meets any of stop. It then
// takes each cycle's edge in order and calls after, if not nil, with the
// cycle's index. next, if not nil, sets the testbench's other inputs for
// cycle i >= 1 (cycle 0 runs with them as they are). The result is cycle
// for cycle what Step would do; it returns the cycles run.
//
// The memory's answers are known Memory.lookahead cycles ahead; with guard,
// frames stages up to maxBatch cycles all the same and stops after any
// earlier cycle that issues a load or a store, whose answer the later
// frames would lack. That pays off where the engine is not expected to
// issue any (UC accesses); a guard that stops a call early costs a call.
func (a *Accel) frames(max int, on stopOn, next, after func(i int), guard bool) (int, error) {
	m, first := a.Mem, a.cycle+1
	stop := a.stops[on]
	ahead := m.lookahead()
	k := min(max, ahead)
	if guard {
		k = min(max, maxBatch)
	}
	m.begin()
	rdy := a.ready[:0]
	for i := 0; i < k; i++ {
		if i > 0 && next != nil {
			next(i)
		}
		ld, ack, lr, sr, ok := m.frame(first + uint64(i))
		if !ok {
			break
		}
		a.ldReady, a.stReady = lr, sr
		a.drive(ld, ack)
		a.sim.Stage()
		rdy = append(rdy, readiness(b2u(lr)|b2u(sr)<<1))
	}
	a.ready = rdy
	if g := len(rdy) - ahead; g > 0 {
		// A request taken at edge i < g would be answered by frame i+ahead.
		stop = append(append(a.guarded[:0], stop...),
			vpi.Cond{Port: a.out.ldReqValid, Mask: 1, Value: 1, Before: g},
			vpi.Cond{Port: a.out.stReqValid, Mask: 1, Value: 1, Before: g})
		a.guarded = stop
	}
	n, _, err := a.sim.RunUntilAny(stop, len(rdy))
	m.end(n)
	for i := 0; i < n; i++ {
		if a.onEdge != nil { // it reads the ports
			a.sim.UseSample(i)
		}
		a.edge(first+uint64(i), rdy[i]&1 != 0, rdy[i]&2 != 0, a.sim.Sample(i))
		if after != nil {
			after(i)
		}
	}
	if err != nil {
		return n, fmt.Errorf("cycles %d..%d: %w", first, first+uint64(len(rdy))-1, err)
	}
	return n, nil
}

// edge takes what the edge at cycle now transferred, given the request
// ports' readiness in that cycle and the outputs sampled just before it
// (read in place: copying each sample into the ports cost more than
// reading it).
func (a *Accel) edge(now uint64, ldReady, stReady bool, smp []byte) {
	o := &a.out
	a.cycle, a.ldReady, a.stReady = now, ldReady, stReady
	if a.onEdge != nil {
		a.onEdge()
	}
	a.takeMem(now, smp)
	a.takeUC(smp)
	if st, ph := o.state.U64In(smp), o.rxPhase.U64In(smp); a.sampled && st == a.state && ph == a.phase {
		a.pending++ // two map updates per cycle cost more than the rest of the edge
	} else {
		a.flushCov()
		a.state, a.phase = st, ph
		a.Cov.sample(st, ph)
		a.sampled = true
	}
}

// takeMem has the memory take the load and the store the edge at cycle
// now transferred, if its ports were ready.
func (a *Accel) takeMem(now uint64, smp []byte) {
	m, o := a.Mem, &a.out
	ld, st := a.ldReady && o.ldReqValid.BitIn(smp), a.stReady && o.stReqValid.BitIn(smp)
	if ld && loadsFirst {
		m.takeLoad(now, o.ldReqAddr.U64In(smp), o.ldReqTag.U64In(smp))
	}
	if st {
		m.takeStore(now, o.stReqAddr.U64In(smp), o.stReqTag.U64In(smp), o.stReqData.BytesIn(smp), o.stReqStrb.U64In(smp))
	}
	if ld && !loadsFirst {
		m.takeLoad(now, o.ldReqAddr.U64In(smp), o.ldReqTag.U64In(smp))
	}
}

// takeUC keeps the sample's UC response.
func (a *Accel) takeUC(smp []byte) {
	o := &a.out
	// Field by field, not a composite literal (see Memory.record).
	a.uc.valid = o.ucRspValid.BitIn(smp)
	if a.uc.valid {
		a.uc.hit, a.uc.data = o.ucRspHit.BitIn(smp), o.ucRspRdata.U64In(smp)
	} else {
		a.uc.hit, a.uc.data = false, 0
	}
}

// flushCov counts the samples of the current run that edge held back.
func (a *Accel) flushCov() {
	if a.pending > 0 {
		a.Cov.States[a.state] += a.pending
		a.Cov.Phases[a.phase] += a.pending
		a.pending = 0
		// A Coverage swapped in since the run began has not seen its state.
		a.Cov.last, a.Cov.started = a.state, true
	}
}

// advance runs at least one and at most max cycles: with a plain memory,
// as many as the shim's line memory runs in one call (lineMemRun); else,
// with memory latency, up to Latency+1 cycles in one call (frames); else
// one Step. While polling, it stops at a ready status.
func (a *Accel) advance(max int, polling bool) (int, error) {
	if a.stepwise || max < 2 {
		return 1, a.step()
	}
	on := stopUC
	if polling {
		on = stopPoll
	}
	if a.lineMemOK() {
		return a.lineMemRun(max, a.stops[on], 0, nil, nil)
	}
	if a.Mem.lookahead() >= 2 {
		return a.frames(max, on, nil, nil, false)
	}
	return 1, a.step()
}

// Restart resets the engine and reprograms its window, as the driver would
// after a reset.
func (a *Accel) Restart() error {
	if err := a.Reset(); err != nil {
		return err
	}
	return a.Configure(a.window[0], a.window[1])
}

// OpenWindowed opens the model and programs the default command window
// (WindowBase, WindowSize), as `arcalis run` does.
func OpenWindowed(lib string, mem MemConfig) (*Accel, error) {
	a, err := Open(lib, mem)
	if err != nil {
		return nil, err
	}
	if err := a.Configure(WindowBase, WindowSize); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

// Configure programs the command-page window through the configuration port.
// The engine takes it only in IDLE_RECV; Restart reprograms the last window
// it took.
func (a *Accel) Configure(base, size uint64) error {
	if err := errors.Join(a.cfgValid.PutU64(1), a.cfgBase.PutU64(base), a.cfgSize.PutU64(size)); err != nil {
		return err
	}
	err := errors.Join(a.Step(), a.cfgValid.PutU64(0))
	if err == nil && a.out.state.U64() == StateIdleRecv { // sampled at the edge that took it
		a.window = [2]uint64{base, size}
	}
	return err
}

// UC performs one uncacheable access and returns the engine's answer: whether
// it claimed the access and, for a load, the status word.
func (a *Accel) UC(write bool, addr, data uint64) (hit bool, word uint64, err error) {
	r, err := a.ucRun(0, ucAccess{write, addr, data})
	if err != nil {
		return false, 0, err
	}
	return r[0].hit, r[0].data, nil
}

// ucAccess is one UC access: a store of data to addr, or a load.
type ucAccess struct {
	write      bool
	addr, data uint64
}

// ucScript is what ucRun is running: idle cycles, then for each access a
// request cycle and a response cycle.
type ucScript struct {
	lead       int
	accs       []ucAccess
	poll       bool // then a status load every cycle (commandsThenPoll)
	base       int  // the script's cycle that the current call started at
	responses  []ucResponse
	set, after func(i int) // scriptSet and scriptAfter, bound once
}

// ucRun runs lead idle cycles and then accesses back to back, each a
// request cycle and a response cycle, in as few simulator calls as stay
// exact, and returns the responses (valid until the next ucRun). An access
// that got no response the cycle after it is an error.
func (a *Accel) ucRun(lead int, accesses ...ucAccess) ([]ucResponse, error) {
	sc := &a.script
	sc.lead, sc.accs, sc.poll, sc.responses = lead, append(sc.accs[:0], accesses...), false, sc.responses[:0]
	total := lead + 2*len(accesses)
	sc.base = 0
	err := a.runScript(total)
	a.in.ucValid.Set(0)
	a.flushCov()
	if err != nil {
		return nil, err
	}
	return sc.checked()
}

// runScript runs the script's cycles from sc.base up to total.
func (a *Accel) runScript(total int) error {
	sc := &a.script
	var err error
	for sc.base < total && err == nil {
		a.scriptSet(0)
		n := 1
		switch {
		case a.lineMemOK():
			n, err = a.lineMemRun(total-sc.base, nil, total-sc.base, sc.set, sc.after)
		case a.stepwise || a.Mem.lookahead() < 2:
			err = a.step()
			a.scriptAfter(0)
		default:
			n, err = a.frames(total-sc.base, stopNone, sc.set, sc.after, true)
		}
		sc.base += n
	}
	return err
}

// checked returns the script's responses, or an error if an access got
// none.
func (sc *ucScript) checked() ([]ucResponse, error) {
	for i, r := range sc.responses {
		if !r.valid {
			return nil, fmt.Errorf("UC access %d of %d got no response the cycle after it", i+1, len(sc.responses))
		}
	}
	return sc.responses, nil
}

// scriptSet sets the UC inputs of the current call's cycle i.
func (a *Accel) scriptSet(i int) { a.ucInputs(&a.script, a.script.base+i) }

// ucInputs sets the UC inputs of sc's cycle k.
func (a *Accel) ucInputs(sc *ucScript, k int) {
	j := k - sc.lead
	if sc.poll && j >= 2*len(sc.accs) {
		a.in.ucValid.Set(1)
		a.in.ucWrite.Set(0)
		a.in.ucAddr.Set(WindowBase)
		return
	}
	if j < 0 || j%2 == 1 {
		a.in.ucValid.Set(0)
		return
	}
	c := sc.accs[j/2]
	a.in.ucValid.Set(1)
	a.in.ucWrite.Set(b2u(c.write))
	a.in.ucAddr.Set(c.addr)
	a.in.ucWdata.Set(c.data)
}

// scriptAfter keeps the response taken at the current call's edge i.
func (a *Accel) scriptAfter(i int) {
	sc := &a.script
	if j := sc.base + i - sc.lead; j >= 0 && j%2 == 1 && j < 2*len(sc.accs) {
		sc.responses = append(sc.responses, a.uc)
	}
}

// TraceOn starts an FST waveform at path; TraceOff ends it.
func (a *Accel) TraceOn(path string) error { return a.sim.TraceOn(path) }
func (a *Accel) TraceOff() error           { return a.sim.TraceOff() }

// WriteCoverage writes Verilator's coverage counters (a --coverage build).
func (a *Accel) WriteCoverage(path string) error { return a.sim.WriteCoverage(path) }

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// SimCalls is how many simulator calls have run cycles since Open.
func (a *Accel) SimCalls() uint64 { return a.sim.Calls() }

// TimeSim turns on or off the timing of simulator calls (vpi.Sim.TimeCalls)
// and zeroes SimTime, the wall time spent inside them.
func (a *Accel) TimeSim(on bool)        { a.sim.TimeCalls(on) }
func (a *Accel) SimTime() time.Duration { return a.sim.CallTime() }
