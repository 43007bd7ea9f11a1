package tb

import (
	"fmt"
	"math/bits"
	"math/rand"
)

// LineSize is the memory port's line: 64 bytes.
const LineSize = 64

// MemConfig shapes the memory model's timing and the faults it injects.
type MemConfig struct {
	Latency      int     // cycles between taking a request and answering it
	MaxStall     int     // extra random cycles added to each answer (0: none)
	Backpressure float64 // chance per cycle that a request port is not ready
	Reorder      bool    // answer due loads in random order instead of issue order
	LoadFault    float64 // chance that a load is answered with an error
	Seed         int64
	// MaxInFlight, if above 0, is how many loads, and how many stores, the
	// interconnect lets wait for their answers at once: a port is not ready
	// while that many of its requests are in flight (the engine's own
	// LDQ_DEPTH and STQ_DEPTH still apply).
	MaxInFlight int

	// FaultLine, if set, answers the load of every line address it accepts
	// with an error, in addition to LoadFault's random ones.
	FaultLine func(addr uint64) bool
	// HoldLoads keeps the load request port not ready (backpressure on loads
	// alone, for as long as a test sets it).
	HoldLoads bool
}

// Region is a byte range the engine may touch.
type Region struct {
	Name string
	Base uint64
	Size uint64
}

func (r Region) contains(addr uint64) bool { return addr >= r.Base && addr-r.Base < r.Size }

type answer struct {
	due  uint64
	tag  uint64
	data [LineSize]byte
	err  bool
}

// Memory is the testbench's side of the cache-line port: a sparse byte store
// with latency, backpressure, reordering and fault injection. It checks that
// every load stays inside the readable region and every written byte inside
// the writable one, and records what it saw.
type Memory struct {
	cfg   MemConfig
	seed  int64
	rng   *rand.Rand // made from seed on first use: most configurations never draw
	draws *tape      // rng's source
	pages map[uint64]*page

	// The two pages last touched: requests walk memory a line at a time,
	// loads in one buffer while stores go to another.
	lastPage, prevPage uint64
	last, prev         *page

	loads, acks queue
	ldInflight  int // loads taken and not yet answered
	stInflight  int // stores taken and not yet acknowledged

	// snap is the last snapshot taken, shared by whoever asked for it; a
	// write that overlaps it drops it.
	snap struct {
		addr uint64
		data []byte
	}
	snapBufs [4][]byte // snapshot's buffers, used in turn
	snapNext int

	// What the engine is allowed to touch in the current request.
	Readable, Writable Region

	Violations []string
	Faulted    []uint64 // line addresses answered with an error
	LoadCount  int
	StoreCount int
	inflight   int // loads and stores taken and not yet answered

	batch batch // see begin

	onPage func(n uint64, p *page) // if set, called with every page made
}

// pageSize is the granule of the sparse store: 64 KiB, so that a request's
// buffers take a few map look-ups, not one per line.
const pageSize = 1 << 16

type page [pageSize]byte

// NewMemory returns an empty memory with the given behaviour.
func NewMemory(cfg MemConfig) *Memory {
	return &Memory{cfg: cfg, seed: cfg.Seed, pages: map[uint64]*page{}}
}

// Reseed restarts the random choices, so one request can be replayed exactly.
func (m *Memory) Reseed(seed int64) { m.seed, m.rng, m.draws = seed, nil, nil }

// SetConfig changes the memory's behaviour between requests and reseeds it
// from cfg.Seed; it fails while a request is waiting for its answer.
func (m *Memory) SetConfig(cfg MemConfig) error {
	if !m.Idle() {
		return fmt.Errorf("memory: changing the configuration with %d requests in flight", m.inflight)
	}
	m.cfg = cfg
	m.Reseed(cfg.Seed)
	return nil
}

// Config returns the memory's behaviour.
func (m *Memory) Config() MemConfig { return m.cfg }

func (m *Memory) random() *rand.Rand {
	if m.rng == nil {
		m.draws = &tape{src: rand.NewSource(m.seed).(rand.Source64), keep: m.batch.on}
		m.rng = rand.New(m.draws)
	}
	return m.rng
}

// span returns the bytes from addr to the end of its page.
func (m *Memory) span(addr uint64) []byte {
	n := addr / pageSize
	if m.last == nil || n != m.lastPage {
		p := m.prev
		if p == nil || n != m.prevPage {
			if p = m.pages[n]; p == nil {
				p = new(page)
				m.pages[n] = p
				if m.onPage != nil {
					m.onPage(n, p)
				}
			}
		}
		m.prev, m.prevPage = m.last, m.lastPage
		m.last, m.lastPage = p, n
	}
	return m.last[addr%pageSize:]
}

func (m *Memory) line(addr uint64) *[LineSize]byte {
	return (*[LineSize]byte)(m.span(addr &^ (LineSize - 1)))
}

// touch drops the snapshot if [addr, addr+n) overlaps it.
func (m *Memory) touch(addr uint64, n int) {
	if s := &m.snap; s.data != nil && addr < s.addr+uint64(len(s.data)) && addr+uint64(n) > s.addr {
		s.data = nil
	}
}

// Write places bytes at addr, as a core's stores would.
func (m *Memory) Write(addr uint64, b []byte) {
	m.touch(addr, len(b))
	for len(b) > 0 {
		n := copy(m.span(addr), b)
		addr, b = addr+uint64(n), b[n:]
	}
}

// Fill writes n copies of v at addr.
func (m *Memory) Fill(addr uint64, n int, v byte) {
	m.touch(addr, n)
	for n > 0 {
		l := m.span(addr)
		if len(l) > n {
			l = l[:n]
		}
		for i := range l {
			l[i] = v
		}
		addr, n = addr+uint64(len(l)), n-len(l)
	}
}

// Read copies n bytes from addr.
func (m *Memory) Read(addr uint64, n int) []byte {
	out := make([]byte, n)
	m.readInto(out, addr)
	return out
}

// readInto copies len(b) bytes from addr into b.
func (m *Memory) readInto(b []byte, addr uint64) {
	for len(b) > 0 {
		k := copy(b, m.span(addr))
		addr, b = addr+uint64(k), b[k:]
	}
}

// snapshot returns n bytes from addr like Read, but in one of four buffers
// taken in turn (a fresh slice per request cost the harness about 5 % in
// allocation and garbage collection), shared with the snapshots of the same
// range after it while nothing writes the range. It must not be modified;
// a request takes two snapshots at most, so its images outlast the next
// request and are overwritten during the one after.
func (m *Memory) snapshot(addr uint64, n int) []byte {
	if s := &m.snap; s.data != nil && s.addr == addr && len(s.data) == n {
		return s.data
	}
	buf := m.snapBufs[m.snapNext]
	if cap(buf) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	m.snapBufs[m.snapNext], m.snapNext = buf, (m.snapNext+1)%len(m.snapBufs)
	m.readInto(buf, addr)
	m.snap.addr, m.snap.data = addr, buf
	return buf
}

// Idle reports whether no request is waiting for its answer.
func (m *Memory) Idle() bool { return m.inflight == 0 }

// clearQueues forgets every request in flight (a reset).
func (m *Memory) clearQueues() {
	m.loads.clear()
	m.acks.clear()
	m.inflight, m.ldInflight, m.stInflight = 0, 0, 0
}

func (m *Memory) ready() bool { return m.cfg.Backpressure <= 0 || m.drawReady() }

func (m *Memory) drawReady() bool { return m.random().Float64() >= m.cfg.Backpressure }

// loadReady and storeReady say whether each request port takes a request
// this cycle: not while MaxInFlight requests of its kind are waiting.
func (m *Memory) loadReady() bool {
	return !m.cfg.HoldLoads && (m.cfg.MaxInFlight <= 0 || m.ldInflight < m.cfg.MaxInFlight) && m.ready()
}

func (m *Memory) storeReady() bool {
	return (m.cfg.MaxInFlight <= 0 || m.stInflight < m.cfg.MaxInFlight) && m.ready()
}

// answerDelay is how many edges after the edge that takes a request the
// memory answers it, before any random stall.
func (m *Memory) answerDelay() uint64 { return 1 + uint64(m.cfg.Latency) }

// loadsFirst says how the memory orders a load and a store taken at one
// edge: the load reads the line as it was before the store writes it.
const loadsFirst = true

func (m *Memory) delay(now uint64) uint64 {
	d := now + m.answerDelay()
	if m.cfg.MaxStall > 0 {
		d += uint64(m.random().Intn(m.cfg.MaxStall + 1))
	}
	return d
}

// takeLoad accepts a line load at edge now.
func (m *Memory) takeLoad(now, addr, tag uint64) {
	a := m.acceptLoad(now, addr, tag)
	a.data = *m.line(addr)
	if m.cfg.LoadFault > 0 && m.random().Float64() < m.cfg.LoadFault || m.cfg.FaultLine != nil && m.cfg.FaultLine(addr) {
		a.err = true
		m.Faulted = append(m.Faulted, addr)
	}
}

// acceptLoad counts and judges a load taken at edge now and queues its
// answer, whose data is still to be filled in.
func (m *Memory) acceptLoad(now, addr, tag uint64) *answer {
	m.LoadCount++
	m.inflight++
	m.ldInflight++
	if addr%LineSize != 0 {
		m.violate("load address %#x is not line aligned", addr)
	}
	if !m.loadable(addr) {
		m.violate("load of line %#x outside %s [%#x, %#x)", addr, m.Readable.Name, m.Readable.Base, m.Readable.Base+m.Readable.Size)
	}
	a := m.loads.add(m.delay(now))
	a.tag = tag
	return a
}

// loadable reports whether a load of the line at addr touches the
// readable region.
func (m *Memory) loadable(addr uint64) bool {
	return addr < m.Readable.Base+m.Readable.Size && addr+LineSize > m.Readable.Base
}

// takeStore applies a line store at edge now. Stores take effect in the order
// they are taken; only their acknowledgements are delayed.
func (m *Memory) takeStore(now, addr, tag uint64, data []byte, strb uint64) {
	whole := m.acceptStore(now, addr, tag, strb)
	l := m.line(addr)
	if whole && strb == ^uint64(0) {
		copy(l[:], data)
		return
	}
	for s := strb; s != 0; s &= s - 1 {
		if i := bits.TrailingZeros64(s); m.Writable.contains(addr + uint64(i)) {
			l[i] = data[i]
		}
	}
}

// acceptStore counts and judges a store taken at edge now and queues its
// acknowledgement; it reports whether every byte strb selects may be
// written (the others are not).
func (m *Memory) acceptStore(now, addr, tag uint64, strb uint64) bool {
	m.StoreCount++
	m.inflight++
	m.stInflight++
	if addr%LineSize != 0 {
		m.violate("store address %#x is not line aligned", addr)
	}
	m.touch(addr, LineSize)
	whole := true
	if strb != ^uint64(0) || !m.Writable.contains(addr) || !m.Writable.contains(addr+LineSize-1) {
		for s := strb; s != 0; s &= s - 1 {
			if a := addr + uint64(bits.TrailingZeros64(s)); !m.Writable.contains(a) {
				m.violate("store to byte %#x outside %s [%#x, %#x)", a, m.Writable.Name, m.Writable.Base, m.Writable.Base+m.Writable.Size)
				whole = false
			}
		}
	}
	m.acks.add(m.delay(now)).tag = tag
	return whole
}

// nextLoad and nextAck remove and return an answer due by edge now, or nil.
// The answer stays valid until the next request is taken.
func (m *Memory) nextLoad(now uint64) *answer {
	if m.loads.noneDue(now, m.cfg.Reorder) {
		return nil
	}
	a := m.next(&m.loads, now, m.cfg.Reorder)
	if a != nil {
		m.ldInflight--
	}
	return a
}

func (m *Memory) nextAck(now uint64) *answer {
	if m.acks.noneDue(now, true) {
		return nil
	}
	a := m.next(&m.acks, now, true)
	if a != nil {
		m.stInflight--
	}
	return a
}

// next removes and returns an answer due by edge now, if any: the oldest
// one, or with reorder any due one at random.
func (m *Memory) next(q *queue, now uint64, reorder bool) *answer {
	due := q.items[q.head:]
	n := 0
	for i := range due {
		if !reorder && i > 0 {
			break // in order: only the oldest may go
		}
		if due[i].due <= now {
			n++
		} else if q.unsorted == 0 {
			break // the answers after it are due later still
		}
	}
	if n == 0 {
		return nil
	}
	k := 0
	if reorder && n > 1 {
		k = m.random().Intn(n)
	}
	for i := range due {
		if due[i].due <= now {
			if k == 0 {
				m.inflight--
				if m.batch.on {
					m.record(q, i)
				}
				return q.remove(i)
			}
			k--
		}
	}
	panic("unreachable")
}

// noneDue reports, cheaply, whether next would find nothing due by now:
// the queue is empty, or its oldest answer is not due and (in order, or
// sorted) none after it can be.
func (q *queue) noneDue(now uint64, reorder bool) bool {
	return q.head == len(q.items) || (!reorder || q.unsorted == 0) && q.items[q.head].due > now
}

// queue holds answers in the order their requests were taken.
type queue struct {
	items    []answer
	head     int    // items[:head] are gone
	unsorted int    // answers queued due before the one queued before them
	spare    answer // the answer remove returned
}

// add queues an answer due at edge due and returns it for the rest to be
// filled in.
func (q *queue) add(due uint64) *answer {
	if q.head > 0 && len(q.items) == cap(q.items) {
		q.items = q.items[:copy(q.items, q.items[q.head:])]
		q.head = 0
	}
	if n := len(q.items); n > q.head && due < q.items[n-1].due {
		q.unsorted++ // random stalls, or a latency lowered with answers waiting
	}
	// Grown, then filled in place: appending answer{due: due} builds it on
	// the stack and copies it (see record).
	q.items = append(q.items, answer{})
	a := &q.items[len(q.items)-1]
	a.due = due
	return a
}

// remove takes out the i-th waiting answer; the pointer stays valid until
// the next add (the oldest stays where it was until then).
func (q *queue) remove(i int) *answer {
	if i == 0 {
		a := &q.items[q.head]
		q.head++
		if q.head == len(q.items) {
			q.clear()
		}
		return a
	}
	q.spare = q.items[q.head+i]
	copy(q.items[q.head+i:], q.items[q.head+i+1:])
	q.items = q.items[:len(q.items)-1]
	return &q.spare
}

func (q *queue) clear() { q.items, q.head, q.unsorted = q.items[:0], 0, 0 }

func (m *Memory) violate(format string, args ...any) {
	if len(m.Violations) < 20 {
		m.Violations = append(m.Violations, fmt.Sprintf(format, args...))
	}
}

// ---- Batches: the inputs of several cycles fixed before their edges ----

// A request taken at edge t is answered at edge t+1+Latency at the
// earliest, so what the edges of the next Latency+1 cycles take cannot
// change the answers those cycles get. The testbench may then fix the
// inputs of those cycles first (frame, once per cycle), run them in one
// simulator call and take their edges' requests afterwards (Accel.frames),
// exactly as if it had stepped them one at a time: the random draws come
// in the same order (a frame that would draw after an edge that may draw
// ends the batch), and a port whose readiness depends on the requests the
// batch takes (MaxInFlight) ends it too. A batch cut short undoes the
// frames it did not run.

// batch is the state of a batch in progress.
type batch struct {
	on            bool
	undo          []removal // the frames' removals from the queues, in order
	taken         []answer  // the answers of those not at the head
	marks         []mark    // where each frame began
	loads, stores int       // frames so far whose load, store port was ready
	edgeDraws     bool      // an edge so far may draw (a request taken there would)
	plain         bool      // no backpressure, in-flight limit, stalls or faults
}

// removal is an answer a frame took from a queue, to be put back: the
// queue as it was (an answer removed at the head stays in the array, and
// no answer is added during a batch), and for one from further on, the
// answer itself, in taken.
type removal struct { // no pointers: no write barriers on the way in
	ack               bool // from the acknowledgements, not the loads
	at                int  // its place among the waiting answers
	head, n, unsorted int  // q.head, len(q.items) and q.unsorted before
}

// record notes that next is about to remove q's at-th waiting answer.
func (m *Memory) record(q *queue, at int) {
	b := &m.batch
	// Field by field: a composite literal is assembled on the stack and the
	// copy's wide loads stall on the narrow stores just made.
	b.undo = append(b.undo, removal{})
	r := &b.undo[len(b.undo)-1]
	r.ack, r.at, r.head, r.n, r.unsorted = q == &m.acks, at, q.head, len(q.items), q.unsorted
	if at > 0 {
		b.taken = append(b.taken, q.items[q.head+at])
	}
}

// mark is where a frame began: its first removal and its first draw.
type mark struct{ undo, draws int }

// maxBatch bounds a batch's cycles.
const maxBatch = 64

// lookahead is how many cycles from the next one on may have their inputs
// fixed before their edges: Latency+1, at most maxBatch.
func (m *Memory) lookahead() int { return min(max(m.cfg.Latency, 0)+1, maxBatch) }

// begin starts a batch.
func (m *Memory) begin() {
	b, c := &m.batch, &m.cfg
	b.on, b.undo, b.taken, b.marks = true, b.undo[:0], b.taken[:0], b.marks[:0]
	b.loads, b.stores, b.edgeDraws = 0, 0, false
	b.plain = c.Backpressure <= 0 && c.MaxInFlight <= 0 && !c.HoldLoads && c.MaxStall <= 0 && c.LoadFault <= 0 && c.FaultLine == nil
	if m.draws != nil {
		m.draws.record()
	}
}

// frame fixes the memory's side of the batch's next cycle, now: the answers
// it drives and whether each request port is ready, as nextLoad, nextAck,
// loadReady and storeReady would. It returns ok false, and changes nothing,
// if they could depend on what the edges of the batch's earlier cycles
// take; the first frame of a batch is always ok.
func (m *Memory) frame(now uint64) (ld, ack *answer, ldReady, stReady, ok bool) {
	b := &m.batch
	k := m.mark()
	ld, ack = m.nextLoad(now), m.nextAck(now)
	if b.plain { // both ports always ready, and no edge draws
		b.marks = append(b.marks, k)
		return ld, ack, true, true, true
	}
	ldReady, stReady = m.loadReady(), m.storeReady()
	if len(b.marks) > 0 && (b.edgeDraws && m.drewSince(k) || !m.readyKnown()) {
		m.rollback(k)
		return nil, nil, false, false, false
	}
	b.marks = append(b.marks, k)
	if ldReady {
		b.loads++
	}
	if stReady {
		b.stores++
	}
	// takeLoad and takeStore draw for random stalls, takeLoad for faults.
	b.edgeDraws = b.edgeDraws || m.cfg.MaxStall > 0 && (ldReady || stReady) || m.cfg.LoadFault > 0 && ldReady
	return ld, ack, ldReady, stReady, true
}

// readyKnown reports whether the readiness frame just drew holds whatever
// the batch's earlier edges take: with MaxInFlight, each request taken
// counts against it.
func (m *Memory) readyKnown() bool {
	c, b := &m.cfg, &m.batch
	if c.MaxInFlight <= 0 {
		return true
	}
	known := func(inflight, taken int) bool {
		return inflight >= c.MaxInFlight || inflight+taken < c.MaxInFlight
	}
	return (c.HoldLoads || known(m.ldInflight, b.loads)) && known(m.stInflight, b.stores)
}

// end ends the batch once its first n frames ran, undoing the others.
func (m *Memory) end(n int) {
	b := &m.batch
	if n < len(b.marks) {
		m.rollback(b.marks[n])
	}
	b.on = false
	if m.draws != nil {
		m.draws.stop()
	}
}

func (m *Memory) mark() mark {
	k := mark{undo: len(m.batch.undo)}
	if m.draws != nil {
		k.draws = m.draws.pos
	}
	return k
}

func (m *Memory) drewSince(k mark) bool { return m.draws != nil && m.draws.pos > k.draws }

// rollback undoes the frames from k on: their answers go back to their
// queues, their draws back on the tape.
func (m *Memory) rollback(k mark) {
	b := &m.batch
	for len(b.undo) > k.undo {
		r := &b.undo[len(b.undo)-1]
		q := &m.loads
		if r.ack {
			q = &m.acks
		}
		if r.at > 0 { // remove moved the answers after it up
			a := b.taken[len(b.taken)-1]
			b.taken = b.taken[:len(b.taken)-1]
			q.items = append(q.items, answer{})
			copy(q.items[q.head+r.at+1:], q.items[q.head+r.at:])
			q.items[q.head+r.at] = a
		}
		q.items, q.head, q.unsorted = q.items[:r.n], r.head, r.unsorted
		m.inflight++
		if r.ack {
			m.stInflight++
		} else {
			m.ldInflight++
		}
		b.undo = b.undo[:len(b.undo)-1]
	}
	if m.draws != nil {
		m.draws.pos = k.draws
	}
}

// streamable reports whether the memory is plain enough for the line memory
// (linemem.go, membus.go): its answers come in order, each port is always
// ready, and nothing draws.
func (m *Memory) streamable() bool {
	c := &m.cfg
	return c.Backpressure <= 0 && c.MaxInFlight <= 0 && !c.HoldLoads && c.MaxStall <= 0 && c.LoadFault <= 0 &&
		c.FaultLine == nil && !c.Reorder && m.loads.unsorted == 0 && m.acks.unsorted == 0
}

// tape is the memory's source of random numbers: math/rand's own source,
// whose values it hands out in order, but while recording it keeps them,
// so that a rollback can hand the same values out again.
type tape struct {
	src  rand.Source64
	vals []uint64 // drawn from src; vals[pos:] are still to be handed out
	pos  int
	keep bool
}

func (t *tape) Uint64() uint64 {
	if t.pos < len(t.vals) {
		v := t.vals[t.pos]
		t.pos++
		if !t.keep && t.pos == len(t.vals) {
			t.vals, t.pos = t.vals[:0], 0
		}
		return v
	}
	v := t.src.Uint64()
	if t.keep {
		t.vals = append(t.vals, v)
		t.pos++
	}
	return v
}

// Int63 is what math/rand's source returns: the low 63 bits of its next
// Uint64 (TestTapeIsMathRand checks it).
func (t *tape) Int63() int64 { return int64(t.Uint64() & (1<<63 - 1)) }

func (t *tape) Seed(seed int64) { t.src.Seed(seed); t.vals, t.pos = t.vals[:0], 0 }

// record starts keeping values; positions count from here.
func (t *tape) record() {
	t.vals = t.vals[:copy(t.vals, t.vals[t.pos:])]
	t.pos, t.keep = 0, true
}

// stop stops keeping values; those put back are still handed out first.
func (t *tape) stop() {
	t.keep = false
	if t.pos == len(t.vals) {
		t.vals, t.pos = t.vals[:0], 0
	}
}
