package tb

import (
	"fmt"

	"arcalis/vpi"
)

// The shim's line memory (vpi.LineMem) answers the memory ports inside the
// simulator call, so that a call runs a request's whole stretch of memory
// traffic instead of at most Latency+1 cycles, with no Go between cycles.
// It is mechanism only: a fixed-delay answer queue, line access to
// Memory's pages, and a log of what it took and answered. Every rule is
// Memory's: before a call, Memory gives it its queues, the delay
// (answerDelay), the order of one edge's load and store (loadsFirst) and
// the lines it may take requests for (those Memory takes without a
// violation); after it, Memory judges the log as if it had taken each
// request itself (accept, answer timing, violations, counts), and Accel
// counts coverage from it. Whatever the line memory leaves untaken (a
// request outside those lines, a page it has not been given) is handed
// back for Memory to take with its own checks and messages. It stands in
// for Memory only where Memory is plain (streamable: fixed latency, in
// order, always ready, nothing drawn). The results are the same cycle for
// cycle (batch_test.go runs every memory behaviour both ways,
// linemem_test.go hands requests of each kind back, and vpi's
// TestLineMemMatchesMemory drives random traffic both ways).

// attachLineMem attaches the line memory to the model's memory ports and
// gives it Memory's pages, now and as Memory makes them.
func (a *Accel) attachLineMem() error {
	o, in := &a.out, &a.in
	lm, err := a.sim.AttachLineMem(vpi.LineMemPorts{
		LdReqReady: in.ldReqReady, LdRspValid: in.ldRspValid, LdRspTag: in.ldRspTag, LdRspData: in.ldRspData, LdRspErr: in.ldRspErr,
		StReqReady: in.stReqReady, StAckValid: in.stAckValid, StAckTag: in.stAckTag,
		LdReqValid: o.ldReqValid, LdReqAddr: o.ldReqAddr, LdReqTag: o.ldReqTag,
		StReqValid: o.stReqValid, StReqAddr: o.stReqAddr, StReqTag: o.stReqTag, StReqData: o.stReqData, StReqStrb: o.stReqStrb,
		Watch: [2]*vpi.Port{o.state, o.rxPhase},
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
	if a.lm == nil || a.lm.State == nil || a.noLineMem || a.stepwise || a.onEdge != nil || !m.streamable() || m.cfg.Latency < 0 {
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
// coming back; Memory then judges the call's log and the coverage counts
// the states and phases it watched. The caller takes the edges. It
// returns the cycles run.
func (a *Accel) lineMemCall(max int, stop []vpi.Cond, k, tail int, next func(i int)) (int, error) {
	m, st := a.Mem, a.lm.State
	for i := 0; i < k; i++ {
		if i > 0 && next != nil {
			next(i)
		}
		a.sim.Stage()
	}
	a.flushCov()
	m.toLineMem(st)
	first := a.cycle + 1
	n, _, err := a.lm.Run(stop, max, tail)
	if n > 0 {
		a.ldReady, a.stReady = true, true
		ev := st.Events()
		a.Cov.watched(ev, first+uint64(n))
		if jerr := m.fromLineMem(st, ev, first, first+uint64(n)-1); jerr != nil && err == nil {
			err = jerr
		}
	}
	return n, err
}

// lineMemLast takes the edge of a call's last cycle, a.cycle, given its
// sample: the state coverage goes on from it, and a request the line
// memory handed off is taken.
func (a *Accel) lineMemLast(smp []byte) {
	o, st := &a.out, a.lm.State
	a.state, a.phase, a.sampled = o.state.U64In(smp), o.rxPhase.U64In(smp), true
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

// toLineMem gives the line memory Memory's answer delay, the order of one
// edge's load and store, the lines it may take requests for, and the
// waiting answers (lineMemOK: they fit, none is an error). The lines are
// those whose requests Memory takes without a violation: loads of lines
// that touch Readable, stores of lines inside Writable (a store to a line
// only part writable goes to Memory, which writes the part).
func (m *Memory) toLineMem(st *vpi.LineMemState) {
	st.Delay = m.answerDelay()
	st.StoreFirst = uint32(b2u(!loadsFirst))
	r, w := m.Readable, m.Writable
	st.LdLo, st.LdHi = r.Base&^(LineSize-1), (r.Base+r.Size+LineSize-1)&^(LineSize-1)
	st.StLo, st.StHi = (w.Base+LineSize-1)&^(LineSize-1), (w.Base+w.Size)&^(LineSize-1)
	st.StHi = max(st.StHi, st.StLo)
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

// fromLineMem judges a line memory call that ran the edges first..last
// from its log, as Memory would have taken and answered each request
// itself: it accepts every request taken (counts, violations, the
// answer's due edge), and checks that each answer was driven at the edge
// and with the tag Memory would have driven it, that none due was left
// out, and that the answers still waiting are Memory's, whose load data
// it then takes from the line memory (read at the edge that took them).
// An error means the line memory and Memory disagree.
func (m *Memory) fromLineMem(st *vpi.LineMemState, ev []vpi.MemEvent, first, last uint64) error {
	lastLd, lastAck := first-1, first-1 // the last edge each port answered at
	for i := range ev {
		e := &ev[i]
		switch e.Kind {
		case vpi.MemLoadTaken:
			m.acceptLoad(e.Edge, e.Addr, e.Tag)
		case vpi.MemStoreTaken:
			if !m.acceptStore(e.Edge, e.Addr, e.Tag, e.Strb) {
				return fmt.Errorf("line memory: edge %d: it wrote a store to line %#x (strobe %#x) that Memory writes only in part", e.Edge, e.Addr, e.Strb)
			}
		case vpi.MemLoadAnswer:
			if err := m.judgeAnswer(&m.loads, "load answer", e, &lastLd); err != nil {
				return err
			}
			m.nextLoad(e.Edge)
		case vpi.MemAckAnswer:
			if err := m.judgeAnswer(&m.acks, "store acknowledgement", e, &lastAck); err != nil {
				return err
			}
			m.nextAck(e.Edge)
		}
	}
	for _, q := range []struct {
		q    *queue
		what string
		last uint64
	}{{&m.loads, "load answer", lastLd}, {&m.acks, "store acknowledgement", lastAck}} {
		if w := q.q.items[q.q.head:]; len(w) > 0 && max(w[0].due, q.last+1) <= last {
			return fmt.Errorf("line memory: the %s of tag %d, due at edge %d, was not driven by edge %d", q.what, w[0].tag, max(w[0].due, q.last+1), last)
		}
	}
	lw, aw := m.loads.items[m.loads.head:], m.acks.items[m.acks.head:]
	if len(lw) != int(st.NLoads) || len(aw) != int(st.NAcks) {
		return fmt.Errorf("line memory: %d loads and %d stores waiting after edge %d, Memory has %d and %d", st.NLoads, st.NAcks, last, len(lw), len(aw))
	}
	for i := range lw {
		l := &st.Loads[i]
		if l.Due != lw[i].due || l.Tag != lw[i].tag {
			return fmt.Errorf("line memory: waiting load %d: tag %d due at edge %d, Memory has tag %d due at edge %d", i, l.Tag, l.Due, lw[i].tag, lw[i].due)
		}
		lw[i].data = l.Data
	}
	for i := range aw {
		if k := &st.Acks[i]; k.Due != aw[i].due || k.Tag != aw[i].tag {
			return fmt.Errorf("line memory: waiting store %d: tag %d due at edge %d, Memory has tag %d due at edge %d", i, k.Tag, k.Due, aw[i].tag, aw[i].due)
		}
	}
	return nil
}

// judgeAnswer checks an answer the line memory drove against q's oldest:
// in order, each port answers its oldest at the first edge that it is due
// and the port is free (one answer per edge).
func (m *Memory) judgeAnswer(q *queue, what string, e *vpi.MemEvent, last *uint64) error {
	w := q.items[q.head:]
	if len(w) == 0 {
		return fmt.Errorf("line memory: edge %d: a %s (tag %d) with nothing waiting", e.Edge, what, e.Tag)
	}
	if want := max(w[0].due, *last+1); e.Edge != want || e.Tag != w[0].tag {
		return fmt.Errorf("line memory: edge %d: a %s of tag %d; Memory answers tag %d at edge %d", e.Edge, what, e.Tag, w[0].tag, want)
	}
	*last = e.Edge
	return nil
}

// watched counts the cycles of a call's edges up to end-1 into c's states and
// phases, and the state's changes into its transitions, as sample would a
// cycle at a time, from the values the line memory logged of state_o
// (Watch[0]) and rx_phase_o (Watch[1]): each on a call's first cycle and
// whenever it changes.
func (c *Coverage) watched(ev []vpi.MemEvent, end uint64) {
	var st, ph, stFrom, phFrom uint64
	seenSt, seenPh := false, false
	for i := range ev {
		e := &ev[i]
		switch e.Kind {
		case vpi.MemWatch0:
			if seenSt {
				countBin(c.States[:], st, e.Edge-stFrom)
			}
			if c.started && e.Addr != c.last && e.Addr < 16 && c.last < 16 {
				c.Transitions[c.last][e.Addr]++
			}
			c.last, c.started = e.Addr, true
			st, stFrom, seenSt = e.Addr, e.Edge, true
		case vpi.MemWatch1:
			if seenPh {
				countBin(c.Phases[:], ph, e.Edge-phFrom)
			}
			ph, phFrom, seenPh = e.Addr, e.Edge, true
		}
	}
	if seenSt {
		countBin(c.States[:], st, end-stFrom)
	}
	if seenPh {
		countBin(c.Phases[:], ph, end-phFrom)
	}
}

// countBin adds n to bins[v], if there is such a bin.
func countBin(bins []int, v, n uint64) {
	if v < uint64(len(bins)) {
		bins[v] += int(n)
	}
}
