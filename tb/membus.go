package tb

import (
	"errors"
	"fmt"

	"arcalis/vpi"
)

// MemBus connects a Memory to the cache-line ports of any design, either a
// cycle at a time with Memory answering in Go (Step) or many cycles per
// call through the shim's line memory, judged by Memory from its log
// (Run), as Accel does. Both keep the same log of what the memory took and
// answered, so that a test can hold the two against each other cycle for
// cycle (vpi's TestLineMemMatchesMemory).
type MemBus struct {
	Mem *Memory

	sim      *vpi.Sim
	p        vpi.LineMemPorts
	lm       *vpi.LineMem
	log      []vpi.MemEvent
	last     [2]uint64 // the Watch ports' last values logged
	seen     [2]bool
	handoffs int
}

// NewMemBus attaches mem to the ports p of sim (see vpi.LineMemPorts; a
// Watch port's changes are logged too). Memory's pages go to the line
// memory as Memory makes them. mem must not be another bus's or an
// Accel's.
func NewMemBus(sim *vpi.Sim, mem *Memory, p vpi.LineMemPorts) (*MemBus, error) {
	lm, err := sim.AttachLineMem(p)
	if err != nil {
		return nil, fmt.Errorf("attaching the line memory: %w", err)
	}
	if mem.onPage != nil {
		return nil, errors.New("tb: NewMemBus: the memory already has a line memory")
	}
	mem.onPage = func(n uint64, pg *page) { _ = lm.Map(n, (*[vpi.MemPage]byte)(pg)) }
	for n, pg := range mem.pages {
		mem.onPage(n, pg)
	}
	return &MemBus{Mem: mem, sim: sim, p: p, lm: lm}, nil
}

// Log returns every request taken, answer driven and Watch change so far,
// in order (answers, then watches, then the load and the store, within an
// edge): the same whichever way the cycles ran.
func (b *MemBus) Log() []vpi.MemEvent { return b.log }

// Handoffs is how many edges the line memory left for Memory to take.
func (b *MemBus) Handoffs() int { return b.handoffs }

// Step runs one cycle with Memory answering in Go: its answers for the
// edge, both request ports ready, then what the edge transferred taken.
func (b *MemBus) Step() error {
	m, p, now := b.Mem, &b.p, b.sim.Cycles()+1
	if !m.streamable() {
		return errors.New("tb: MemBus: the memory is not plain (streamable)")
	}
	if a := m.nextLoad(now); a != nil {
		p.LdRspValid.Set(1)
		p.LdRspTag.Set(a.tag)
		p.LdRspData.SetBytes(a.data[:])
		p.LdRspErr.Set(b2u(a.err))
		b.log = append(b.log, vpi.MemEvent{Edge: now, Kind: vpi.MemLoadAnswer, Tag: a.tag})
	} else {
		p.LdRspValid.Set(0)
	}
	if a := m.nextAck(now); a != nil {
		p.StAckValid.Set(1)
		p.StAckTag.Set(a.tag)
		b.log = append(b.log, vpi.MemEvent{Edge: now, Kind: vpi.MemAckAnswer, Tag: a.tag})
	} else {
		p.StAckValid.Set(0)
	}
	p.LdReqReady.Set(1)
	p.StReqReady.Set(1)
	if err := b.sim.Cycle(1); err != nil {
		return fmt.Errorf("cycle %d: %w", now, err)
	}
	smp := b.sim.LastSample()
	for k, w := range p.Watch {
		if w != nil {
			b.watch(vpi.MemEvent{Edge: now, Kind: vpi.MemWatch0 + vpi.MemEventKind(k), Addr: w.U64In(smp)})
		}
	}
	b.take(now, smp)
	return nil
}

// take has Memory take the requests the edge now transferred, given its
// sample, and logs them.
func (b *MemBus) take(now uint64, smp []byte) {
	m, p := b.Mem, &b.p
	ld, st := p.LdReqValid.BitIn(smp), p.StReqValid.BitIn(smp)
	lde := vpi.MemEvent{Edge: now, Kind: vpi.MemLoadTaken, Addr: p.LdReqAddr.U64In(smp), Tag: p.LdReqTag.U64In(smp)}
	ste := vpi.MemEvent{Edge: now, Kind: vpi.MemStoreTaken, Addr: p.StReqAddr.U64In(smp), Tag: p.StReqTag.U64In(smp), Strb: p.StReqStrb.U64In(smp)}
	if ld && loadsFirst {
		m.takeLoad(now, lde.Addr, lde.Tag)
	}
	if st {
		m.takeStore(now, ste.Addr, ste.Tag, p.StReqData.BytesIn(smp), ste.Strb)
	}
	if ld && !loadsFirst {
		m.takeLoad(now, lde.Addr, lde.Tag)
	}
	if ld {
		b.log = append(b.log, lde)
	}
	if st {
		b.log = append(b.log, ste)
	}
}

// watch logs a Watch port's value if it changed.
func (b *MemBus) watch(e vpi.MemEvent) {
	k := e.Kind - vpi.MemWatch0
	if !b.seen[k] || b.last[k] != e.Addr {
		b.log = append(b.log, e)
		b.last[k], b.seen[k] = e.Addr, true
	}
}

// Run runs up to max cycles (at least 1) in one call through the line
// memory, Memory's queues going in and coming back, Memory judging the
// call's log; an edge the line memory hands back, Memory takes in Go. It
// returns the cycles run.
func (b *MemBus) Run(max int) (int, error) {
	m, st := b.Mem, b.lm.State
	if !m.streamable() || m.cfg.Latency < 0 {
		return 0, errors.New("tb: MemBus: the memory is not plain (streamable)")
	}
	if len(m.loads.items)-m.loads.head > vpi.MemQueue || len(m.acks.items)-m.acks.head > vpi.MemQueue {
		return 0, errors.New("tb: MemBus: more answers waiting than the line memory holds")
	}
	first := b.sim.Cycles() + 1
	m.toLineMem(st)
	n, _, err := b.lm.Run(nil, max, 0)
	if n == 0 {
		return 0, err
	}
	ev := st.Events()
	if jerr := m.fromLineMem(st, ev, first, first+uint64(n)-1); jerr != nil {
		return n, jerr
	}
	for _, e := range ev {
		if e.Kind == vpi.MemWatch0 || e.Kind == vpi.MemWatch1 {
			b.watch(e)
		} else {
			b.log = append(b.log, e)
		}
	}
	if st.Handoff != 0 {
		b.take(first+uint64(n)-1, b.sim.LastSample())
		b.handoffs++
	}
	return n, err
}
