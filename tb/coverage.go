package tb

import (
	"fmt"
	"sort"
	"strings"
)

// Coverage is the functional coverage kept by the testbench: what Verilator
// 5.006 cannot collect (FSM states and transitions, opcodes, result codes,
// start offsets within a line).
type Coverage struct {
	States      map[uint64]int
	Transitions map[[2]uint64]int
	Phases      map[uint64]int
	Opcodes     map[uint8]int
	Results     map[uint8]int
	Offsets     map[int]int
	last        uint64
	started     bool
}

// NewCoverage returns empty coverage.
func NewCoverage() *Coverage {
	return &Coverage{
		States: map[uint64]int{}, Transitions: map[[2]uint64]int{}, Phases: map[uint64]int{},
		Opcodes: map[uint8]int{}, Results: map[uint8]int{}, Offsets: map[int]int{},
	}
}

func (c *Coverage) sample(state, phase uint64) {
	c.States[state]++
	c.Phases[phase]++
	if c.started && state != c.last {
		c.Transitions[[2]uint64{c.last, state}]++
	}
	c.last, c.started = state, true
}

// Opcode records a command issued.
func (c *Coverage) Opcode(op uint8) { c.Opcodes[op]++ }

// Result records a result code reported ready.
func (c *Coverage) Result(r uint8) { c.Results[r]++ }

// Offset records a message start offset within its line.
func (c *Coverage) Offset(o int) { c.Offsets[o]++ }

// FSMTransitions lists every transition of docs/abi.md section 3.
var FSMTransitions = [][2]uint64{
	{StateIdleRecv, StateBusy}, {StateBusy, StateDrain}, {StateDrain, StateDone},
	{StateDone, StateIdleRecv}, {StateDone, StateIdleResp}, {StateIdleResp, StateBusy},
}

// Missing lists the FSM states, transitions and opcodes never seen.
func (c *Coverage) Missing() []string {
	var miss []string
	for s, name := range StateNames {
		if c.States[s] == 0 {
			miss = append(miss, "state "+name)
		}
	}
	for _, t := range FSMTransitions {
		if c.Transitions[t] == 0 {
			miss = append(miss, fmt.Sprintf("transition %s->%s", StateNames[t[0]], StateNames[t[1]]))
		}
	}
	for op := uint8(0); op < 16; op++ {
		if c.Opcodes[op] == 0 {
			miss = append(miss, fmt.Sprintf("opcode %d", op))
		}
	}
	for o := 0; o < LineSize; o++ {
		if c.Offsets[o] == 0 {
			miss = append(miss, fmt.Sprintf("start offset %d", o))
		}
	}
	sort.Strings(miss)
	return miss
}

// String summarises the coverage in a few lines.
func (c *Coverage) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "states %d/%d, transitions %d/%d, opcodes %d/16, results %d, start offsets %d/64",
		len(c.States), len(StateNames), countSeen(c.Transitions, FSMTransitions), len(FSMTransitions),
		len(c.Opcodes), len(c.Results), len(c.Offsets))
	return b.String()
}

func countSeen(m map[[2]uint64]int, want [][2]uint64) int {
	n := 0
	for _, t := range want {
		if m[t] > 0 {
			n++
		}
	}
	return n
}
