package tb

import (
	"fmt"
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

	// FaultLine, if set, answers the load of every line address it accepts
	// with an error, in addition to LoadFault's random ones.
	FaultLine func(addr uint64) bool
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
	rng   *rand.Rand
	lines map[uint64]*[LineSize]byte

	loads, acks []answer

	// What the engine is allowed to touch in the current request.
	Readable, Writable Region

	Violations []string
	Faulted    []uint64 // line addresses answered with an error
	LoadCount  int
	StoreCount int
	inflight   int // loads and stores taken and not yet answered
}

// NewMemory returns an empty memory with the given behaviour.
func NewMemory(cfg MemConfig) *Memory {
	return &Memory{cfg: cfg, rng: rand.New(rand.NewSource(cfg.Seed)), lines: map[uint64]*[LineSize]byte{}}
}

// Reseed restarts the random choices, so one request can be replayed exactly.
func (m *Memory) Reseed(seed int64) { m.rng = rand.New(rand.NewSource(seed)) }

func (m *Memory) line(addr uint64) *[LineSize]byte {
	l := m.lines[addr&^(LineSize-1)]
	if l == nil {
		l = new([LineSize]byte)
		m.lines[addr&^(LineSize-1)] = l
	}
	return l
}

// Write places bytes at addr, as a core's stores would.
func (m *Memory) Write(addr uint64, b []byte) {
	for len(b) > 0 {
		n := copy(m.line(addr)[addr%LineSize:], b)
		addr, b = addr+uint64(n), b[n:]
	}
}

// Fill writes n copies of v at addr.
func (m *Memory) Fill(addr uint64, n int, v byte) {
	for n > 0 {
		l := m.line(addr)[addr%LineSize:]
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
	for b := out; len(b) > 0; {
		k := copy(b, m.line(addr)[addr%LineSize:])
		addr, b = addr+uint64(k), b[k:]
	}
	return out
}

// Idle reports whether no request is waiting for its answer.
func (m *Memory) Idle() bool { return m.inflight == 0 }

func (m *Memory) ready() bool {
	return m.cfg.Backpressure <= 0 || m.rng.Float64() >= m.cfg.Backpressure
}

func (m *Memory) delay(now uint64) uint64 {
	d := now + 1 + uint64(m.cfg.Latency)
	if m.cfg.MaxStall > 0 {
		d += uint64(m.rng.Intn(m.cfg.MaxStall + 1))
	}
	return d
}

// takeLoad accepts a line load at edge now.
func (m *Memory) takeLoad(now, addr, tag uint64) {
	m.LoadCount++
	m.inflight++
	if addr%LineSize != 0 {
		m.violate("load address %#x is not line aligned", addr)
	}
	if !(addr < m.Readable.Base+m.Readable.Size && addr+LineSize > m.Readable.Base) {
		m.violate("load of line %#x outside %s [%#x, %#x)", addr, m.Readable.Name, m.Readable.Base, m.Readable.Base+m.Readable.Size)
	}
	a := answer{due: m.delay(now), tag: tag, data: *m.line(addr)}
	if m.cfg.LoadFault > 0 && m.rng.Float64() < m.cfg.LoadFault || m.cfg.FaultLine != nil && m.cfg.FaultLine(addr) {
		a.err = true
		m.Faulted = append(m.Faulted, addr)
	}
	m.loads = append(m.loads, a)
}

// takeStore applies a line store at edge now. Stores take effect in the order
// they are taken; only their acknowledgements are delayed.
func (m *Memory) takeStore(now, addr, tag uint64, data []byte, strb uint64) {
	m.StoreCount++
	m.inflight++
	if addr%LineSize != 0 {
		m.violate("store address %#x is not line aligned", addr)
	}
	l := m.line(addr)
	for i := 0; i < LineSize; i++ {
		if strb>>i&1 == 0 {
			continue
		}
		if a := addr + uint64(i); !m.Writable.contains(a) {
			m.violate("store to byte %#x outside %s [%#x, %#x)", a, m.Writable.Name, m.Writable.Base, m.Writable.Base+m.Writable.Size)
			continue
		}
		l[i] = data[i]
	}
	m.acks = append(m.acks, answer{due: m.delay(now), tag: tag})
}

// next removes and returns an answer due by edge now, if any.
func (m *Memory) next(q *[]answer, now uint64, reorder bool) (answer, bool) {
	var due []int
	for i, a := range *q {
		if !reorder && i > 0 {
			break // in order: only the oldest may go
		}
		if a.due <= now {
			due = append(due, i)
		}
	}
	if len(due) == 0 {
		return answer{}, false
	}
	i := due[0]
	if reorder {
		i = due[m.rng.Intn(len(due))]
	}
	a := (*q)[i]
	*q = append((*q)[:i], (*q)[i+1:]...)
	m.inflight--
	return a, true
}

func (m *Memory) violate(format string, args ...any) {
	if len(m.Violations) < 20 {
		m.Violations = append(m.Violations, fmt.Sprintf(format, args...))
	}
}
