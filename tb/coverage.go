package tb

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"arcalis/golden"
)

// Coverage is the functional coverage kept by the testbench: what Verilator
// 5.006 cannot collect (FSM states and transitions, opcodes, result codes,
// start offsets within a line).
//
// The bins are arrays, not maps: they are counted several times per request,
// and map updates cost more than the rest of the testbench's bookkeeping.
type Coverage struct {
	States      [16]int     // cycles in each FSM state (state_o is 4 bits)
	Transitions [16][16]int // [from][to], counted when the state changes
	Phases      [8]int      // cycles in each RxEngine phase (rx_phase_o is 3 bits)
	Opcodes     [16]int     // commands issued, by opcode (4 bits)
	Results     [256]int    // result codes reported ready (8 bits of the status word)
	Offsets     [LineSize]int
	Fields      [fieldBins][LineSize]int // see Message
	CmdErrs     [256]int                 // see CmdErr
	last        uint64
	started     bool
	fields      []Field // Message's scratch
}

// NewCoverage returns empty coverage.
func NewCoverage() *Coverage { return &Coverage{} }

func (c *Coverage) sample(state, phase uint64) {
	c.States[state]++
	c.Phases[phase]++
	if c.started && state != c.last {
		c.Transitions[c.last][state]++
	}
	c.last, c.started = state, true
}

// Opcode records a command issued.
func (c *Coverage) Opcode(op uint8) { c.Opcodes[op&0xF]++ }

// Result records a result code reported ready.
func (c *Coverage) Result(r uint8) { c.Results[r]++ }

// Offset records a message start offset within its line.
func (c *Coverage) Offset(o int) { c.Offsets[o%LineSize]++ }

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
		if c.Transitions[t[0]][t[1]] == 0 {
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
	miss = append(miss, c.missingCodes()...)
	sort.Strings(miss)
	return miss
}

// String summarises the coverage in a few lines.
func (c *Coverage) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "states %d/%d, transitions %d/%d, opcodes %d/16, results %d, start offsets %d/64",
		seen(c.States[:]), len(StateNames), countSeen(&c.Transitions, FSMTransitions), len(FSMTransitions),
		seen(c.Opcodes[:]), seen(c.Results[:]), seen(c.Offsets[:]))
	fields := 0
	for i := range c.Fields {
		fields += seen(c.Fields[i][:])
	}
	fmt.Fprintf(&b, ", field type@line position %d/%d, command errors %d/%d",
		fields, len(FieldTypes)*LineSize, seen(c.CmdErrs[:]), len(cmdErrNames))
	return b.String()
}

func seen(counts []int) int {
	n := 0
	for _, c := range counts {
		if c > 0 {
			n++
		}
	}
	return n
}

func countSeen(m *[16][16]int, want [][2]uint64) int {
	n := 0
	for _, t := range want {
		if m[t[0]][t[1]] > 0 {
			n++
		}
	}
	return n
}

// ---- Message structure and error codes (issue 6) ----

// FieldInvalid stands for every type id that is not a Thrift type.
const FieldInvalid = 0xFF

// FieldTypes are the type ids a field header can carry, as coverage bins:
// STOP, the twelve Thrift types of docs/abi.md section 4, and FieldInvalid.
var FieldTypes = []byte{0, 2, 3, 4, 6, 8, 10, 11, 12, 13, 14, 15, 16, FieldInvalid}

// fieldBins indexes Coverage.Fields: type ids 0..16, then FieldInvalid.
const fieldBins = 18

func fieldBin(t byte) int {
	if !thriftType(t) {
		return fieldBins - 1
	}
	return int(t)
}

// FieldCount is how many field headers of type t (FieldInvalid: any id that
// is not a Thrift type) Message saw at byte pos of a line.
func (c *Coverage) FieldCount(t byte, pos int) int { return c.Fields[fieldBin(t)][pos%LineSize] }

var cmdErrNames = map[uint8]string{
	CmdErrNone: "NONE", CmdErrUnknownOpcode: "UNKNOWN_OPCODE", CmdErrWrongState: "WRONG_STATE",
	CmdErrNotReady: "NOT_READY", CmdErrBadArg: "BAD_ARG",
}

// CmdErr records a command error read from the status word.
func (c *Coverage) CmdErr(code uint8) { c.CmdErrs[code]++ }

// Message records the type id and line position of every field header the
// RxEngine reads of msg placed at start offset offset, for a value region of
// valueCap bytes.
func (c *Coverage) Message(msg []byte, offset, valueCap int) {
	c.fields = appendFields(c.fields[:0], msg, valueCap)
	for _, f := range c.fields {
		c.Fields[fieldBin(f.Type)][(offset+f.Pos)%LineSize]++
	}
}

func (c *Coverage) missingCodes() []string {
	var miss []string
	for _, t := range FieldTypes {
		for pos := 0; pos < LineSize; pos++ {
			if c.FieldCount(t, pos) == 0 {
				miss = append(miss, fmt.Sprintf("field type %s at line position %02d", typeName(t), pos))
			}
		}
	}
	for _, code := range golden.AllCodes() {
		if code != golden.CodeNone && c.Results[uint8(code)] == 0 {
			miss = append(miss, "result "+code.String())
		}
	}
	for code, name := range cmdErrNames {
		if c.CmdErrs[code] == 0 {
			miss = append(miss, "command error "+name)
		}
	}
	return miss
}

func thriftType(t byte) bool {
	switch t {
	case 0, 2, 3, 4, 6, 8, 10, 11, 12, 13, 14, 15, 16:
		return true
	}
	return false
}

func typeName(t byte) string {
	if t == FieldInvalid {
		return "invalid"
	}
	return fmt.Sprintf("%d", t)
}

// Field is one field header of a message as docs/abi.md section 5 walks it.
type Field struct {
	Pos  int   // message offset of the type byte
	Type byte  // Thrift type id; 0 is the closing STOP
	ID   int16 // field id (0 for STOP or a header cut short)
	Len  int   // BINARY: body length in bytes; -1 otherwise or when unread
}

// fixedSizes are the payload sizes of section 5's fixed-size types.
// (indexed by type id; 0: not a fixed-size type).
var fixedSizes = [256]int{2: 1, 3: 1, 4: 8, 6: 2, 8: 4, 10: 8, 16: 16}

// Fields returns the field headers the RxEngine reads of msg, in order: it
// walks section 5 from byte 15 of a message whose header dispatches (Set or Get),
// and stops after the STOP or the first field header it cannot step over
// (cut short, not a Thrift type, nested, a negative or over-long length, or
// a body past the end). A message that does not reach the fields has none.
func Fields(msg []byte, valueCap int) []Field { return appendFields(nil, msg, valueCap) }

// appendFields is Fields appending to out.
func appendFields(out []Field, msg []byte, valueCap int) []Field {
	n := len(msg)
	if n < 15 || n > golden.MaxMessage {
		return out
	}
	be := binary.BigEndian
	if ver := be.Uint32(msg); ver != 0x80010001 && ver != 0x80010004 || be.Uint32(msg[4:]) != 3 || string(msg[8:11]) != "Set" && string(msg[8:11]) != "Get" {
		return out
	}
	set := string(msg[8:11]) == "Set" // Get has no value: its field 3 is skipped
	for p := 15; p < n; {
		f := Field{Pos: p, Type: msg[p], Len: -1}
		if f.Type == 0 || p+3 > n {
			return append(out, f)
		}
		f.ID = int16(be.Uint16(msg[p+1:]))
		size := fixedSizes[f.Type]
		switch {
		case size > 0:
			out = append(out, f)
			p += 3 + size
		case f.Type == 11 && p+7 <= n:
			l := int32(be.Uint32(msg[p+3:]))
			if l >= 0 {
				f.Len = int(l)
			}
			out = append(out, f)
			if l < 0 || int(l) > n-p-7 || f.ID == 2 && l > golden.KeyMax || f.ID == 3 && set && int(l) > valueCap {
				return out
			}
			p += 7 + int(l)
		default: // binary cut short, nested or not a Thrift type
			return append(out, f)
		}
	}
	return out
}
