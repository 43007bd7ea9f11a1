package tb

import (
	"fmt"

	"arcalis/vpi"
)

// The shim's line memory (vpi.LineMem) answers the memory ports inside the
// simulator call, so that a call runs a request's whole stretch of memory
// traffic instead of at most Latency+1 cycles, with no Go between cycles.
// It stands in for Memory only where Memory is plain (streamable: fixed
// latency, in order, always ready, nothing drawn) and only during a call:
// Memory's queues go in before it and come back after, and whatever the
// line memory would not take exactly as Memory would (a violation, a page
// it has not been given) it hands back untaken, for Memory to take with its
// own checks and messages. The results are the same cycle for cycle
// (batch_test.go runs every memory behaviour both ways, linemem_test.go
// hands requests of each kind back).

// attachLineMem attaches the line memory to the model's memory ports and
// gives it Memory's pages, now and as Memory makes them.
func (a *Accel) attachLineMem() error {
	o, in := &a.out, &a.in
	lm, err := a.sim.AttachLineMem(vpi.LineMemPorts{
		LdReqReady: in.ldReqReady, LdRspValid: in.ldRspValid, LdRspTag: in.ldRspTag, LdRspData: in.ldRspData, LdRspErr: in.ldRspErr,
		StReqReady: in.stReqReady, StAckValid: in.stAckValid, StAckTag: in.stAckTag,
		LdReqValid: o.ldReqValid, LdReqAddr: o.ldReqAddr, LdReqTag: o.ldReqTag,
		StReqValid: o.stReqValid, StReqAddr: o.stReqAddr, StReqTag: o.stReqTag, StReqData: o.stReqData, StReqStrb: o.stReqStrb,
		Count: [2]*vpi.Port{o.state, o.rxPhase},
	})
	if err != nil {
		return fmt.Errorf("attaching the line memory: %w", err)
	}
	m := a.Mem
	// A page that fails to map is not the line memory's: it hands every
	// request for it to Memory, which is slower but the same.
	m.onPage = func(n uint64, p *page) { _ = lm.Map(n, (*[vpi.MemPage]byte)(p)) }
	for n, p := range m.pages {
		m.onPage(n, p)
	}
	a.lm = lm
	return nil
}

// lineMemOK reports whether the next cycles may run through the line
// memory: it is attached (and the model not closed), Memory is plain,
// nothing watches every edge, and Memory's waiting answers fit.
func (a *Accel) lineMemOK() bool {
	m := a.Mem
	if a.lm == nil || a.lm.State == nil || a.noLineMem || a.stepwise || a.onEdge != nil || a.piped() || !m.streamable() || m.cfg.Latency < 0 {
		return false
	}
	lw, aw := m.loads.items[m.loads.head:], m.acks.items[m.acks.head:]
	if len(lw) > vpi.MemQueue || len(aw) > vpi.MemQueue {
		return false
	}
	for i := range lw {
		if lw[i].err {
			return false
		}
	}
	return true
}

// lineMemCall stages k frames, the testbench's other inputs as next sets
// them for frame i >= 1 (frame 0 takes them as they are), the last tail of
// them a tail (vpi.LineMem.Run), and runs up to max cycles before the tail
// through the line memory in one call, Memory's queues going in and
// coming back. The caller takes the edges. It returns the cycles run.
func (a *Accel) lineMemCall(max int, stop []vpi.Cond, k, tail int, next func(i int)) (int, error) {
	m, st := a.Mem, a.lm.State
	for i := 0; i < k; i++ {
		if i > 0 && next != nil {
			next(i)
		}
		a.sim.Stage()
	}
	a.flushCov()
	if a.lmCov != a.Cov { // a test swapped it
		c := a.Cov
		a.lm.CountInto(c, c.States[:], c.Phases[:], &c.Transitions, &c.last, &c.started)
		a.lmCov = c
	}
	m.toLineMem(st)
	n, _, err := a.lm.Run(stop, max, tail)
	m.fromLineMem(st)
	if n > 0 {
		a.ldReady, a.stReady = true, true
	}
	return n, err
}

// lineMemLast takes the edge of a call's last cycle, a.cycle, given its
// sample: the state coverage goes on from it, and a request the line
// memory handed off is taken.
func (a *Accel) lineMemLast(smp []byte) {
	o, st := &a.out, a.lm.State
	a.state, a.phase, a.sampled = o.state.U64In(smp), o.rxPhase.U64In(smp), true
	a.busy = st.Busy != 0
	if st.Handoff != 0 {
		a.takeMem(a.cycle, smp)
		a.handoffs++
	}
}

// lineMemRun runs up to max cycles (at least 1) in one call through the
// line memory and stops after the first cycle whose pre-edge sample meets
// any of stop, or whose edge the line memory hands back (taken here). The
// first k cycles take the testbench's other inputs as next sets them for
// cycle i >= 1 (cycle 0 runs with them as they are), and after, if not
// nil, is called with each one's index once its edge is taken; later
// cycles hold the last one's. It returns the cycles run.
func (a *Accel) lineMemRun(max int, stop []vpi.Cond, k int, next, after func(i int)) (int, error) {
	first := a.cycle + 1
	n, err := a.lineMemCall(max, stop, k, 0, next)
	a.cycle = first - 1 + uint64(n)
	if n > 0 {
		if after != nil {
			for i := range min(n, k) {
				a.takeUC(a.sim.Sample(i))
				after(i)
			}
		}
		smp := a.sim.LastSample()
		a.takeUC(smp)
		a.lineMemLast(smp)
	}
	if err != nil {
		return n, fmt.Errorf("cycles %d..%d: %w", first, first+uint64(max)-1, err)
	}
	return n, nil
}

// exchangeLineMem is exchange in one call: the commands' cycles and the
// poll's, then, once the poll sees ready with no answer waiting, the
// cycles of lead and accs as the call's tail. Whatever the call leaves
// undone (a handoff, the budget, answers waiting at ready) goes on the
// usual way; atReady runs before any request a tail cycle handed off is
// taken, so it sees memory as it was at ready, as in the usual way.
func (a *Accel) exchangeLineMem(budget int, first func(), atReady func(uint64, Status), cmds []command, lead int, accs []ucAccess) ([]ucResponse, error) {
	if first != nil {
		first()
	}
	sc, th := &a.script, &a.then
	script := a.pollScript(cmds)
	th.lead, th.accs, th.poll = lead, append(th.accs[:0], accs...), false
	head, tail := script+1, lead+2*len(accs) // frames: the commands and the poll; the tail
	a.pollFrom = append(a.pollFrom[:0], a.stops[stopPoll]...)
	a.pollFrom[0].From = script
	a.scriptSet(0)
	c0 := a.cycle
	n, err := a.lineMemCall(script+budget, a.pollFrom, head+tail, tail, func(i int) {
		if i < head {
			a.scriptSet(i)
		} else {
			a.ucInputs(th, i-head)
		}
	})
	ready := int(a.lm.State.Stop) // cycles to the ready status, if one was seen
	if ready == 0 || n == ready { // no tail: as lineMemRun leaves it
		ready = n
	}
	for i := range min(ready, script) {
		a.takeUC(a.sim.Sample(i))
		a.scriptAfter(i)
	}
	sc.poll = false
	a.cycle = c0 + uint64(ready)
	smp := a.sim.LastSample() // the sample that saw ready, or the last
	a.takeUC(smp)
	if n == ready {
		a.lineMemLast(smp)
	}
	if err != nil {
		a.cycle = c0 + uint64(n)
		return nil, fmt.Errorf("cycles %d..%d: %w", c0+1, c0+uint64(script+budget), err)
	}
	if ready < script { // handed off within the commands
		sc.base = ready
		if err := a.runScript(script); err != nil {
			return nil, err
		}
		ready = script
	}
	a.in.ucValid.Set(0)
	if err := a.scriptClaimed(cmds); err != nil {
		a.flushCov()
		return nil, err
	}
	start := a.cycle - uint64(ready-script) - 1
	s, err := a.poll(budget, ready-script)
	if err != nil {
		return nil, err
	}
	atReady(start, s)
	if n == ready { // the tail did not run
		return a.ucRun(lead, accs...)
	}
	// The tail ran n-ready cycles: take their edges as ucRun would, then
	// run what a handoff left of it.
	sc.lead, sc.accs, sc.responses, sc.base = lead, append(sc.accs[:0], th.accs...), sc.responses[:0], 0
	for t := range n - ready {
		a.cycle++
		a.takeUC(a.sim.Sample(head + t))
		a.scriptAfter(t)
	}
	a.lineMemLast(a.sim.Sample(head + n - ready - 1))
	sc.base = n - ready
	err = a.runScript(tail)
	a.in.ucValid.Set(0)
	a.flushCov()
	if err != nil {
		return nil, err
	}
	return sc.checked()
}

// toLineMem gives the line memory Memory's regions, latency and waiting
// answers (lineMemOK: they fit, none is an error).
func (m *Memory) toLineMem(st *vpi.LineMemState) {
	st.Latency = uint64(m.cfg.Latency)
	st.RdBase, st.RdSize = m.Readable.Base, m.Readable.Size
	st.WrBase, st.WrSize = m.Writable.Base, m.Writable.Size
	lw, aw := m.loads.items[m.loads.head:], m.acks.items[m.acks.head:]
	for i := range lw {
		l := &st.Loads[i]
		l.Due, l.Tag, l.Data = lw[i].due, lw[i].tag, lw[i].data
	}
	for i := range aw {
		st.Acks[i].Due, st.Acks[i].Tag = aw[i].due, aw[i].tag
	}
	st.NLoads, st.NAcks = uint32(len(lw)), uint32(len(aw))
}

// fromLineMem takes back the answers still waiting after a line memory
// call and counts what it took.
func (m *Memory) fromLineMem(st *vpi.LineMemState) {
	m.loads.clear()
	m.acks.clear()
	for i := range st.NLoads {
		l := &st.Loads[i]
		a := m.loads.add(l.Due)
		a.tag, a.data = l.Tag, l.Data
	}
	for i := range st.NAcks {
		m.acks.add(st.Acks[i].Due).tag = st.Acks[i].Tag
	}
	m.ldInflight, m.stInflight = int(st.NLoads), int(st.NAcks)
	m.inflight = m.ldInflight + m.stInflight
	m.LoadCount += int(st.TakenLoads)
	m.StoreCount += int(st.TakenStores)
	st.TakenLoads, st.TakenStores = 0, 0
	if st.StoredHi > st.StoredLo {
		m.touch(st.StoredLo, int(st.StoredHi-st.StoredLo))
		st.StoredLo, st.StoredHi = 0, 0
	}
}
