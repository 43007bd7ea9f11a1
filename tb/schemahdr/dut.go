package schemahdr

import (
	"arcalis/tb/schemacase"
	"arcalis/vpi"
)

// Inputs are the module's inputs for one cycle.
type Inputs struct {
	Start bool
	Big   bool // meaningful with Start only
	Stall bool
	Win   []byte // Width bytes; those at or above Avail are don't-care
	Avail int
	Rem   uint32
}

// Outputs are what the module shows at one rising edge: the bytes it takes
// there and its result registers.
type Outputs struct {
	Take    int
	Done    bool
	Code    uint8
	Offset  uint32
	MsgType uint8
	Method  uint8
	SeqID   uint32
}

// DUT is the module as the harness drives it: the Verilated model, or a
// stand-in for the harness's own tests.
type DUT = schemacase.DUT[Inputs, Outputs]

// top is the module's hierarchical name in the model.
const top = "recv_header."

// Model is the Verilated recv_header through package vpi.
type Model struct {
	schemacase.Sim // Close, Width, TraceOn, TraceOff
	out            Outputs

	shared bool // on a Sim another unit's Model steps too (OnSim)

	rst, start, big, stall, win, avail, rem          *vpi.Port
	take, done, code, offset, msgType, method, seqID *vpi.Port
}

// OpenModel opens a model of recv_header alone (make schemahdr-model, or
// make schemahdr-gatesim's netlist). The Model belongs to the calling
// goroutine's OS thread (see vpi.Open); Close it there.
func OpenModel(lib string, width int) (*Model, error) { return open(lib, top, "", width) }

// OpenPair opens the recv_header of a schema_pair model (make
// schema-pair-model), as OpenModel.
func OpenPair(lib string, width int) (*Model, error) {
	return open(lib, schemacase.PairTop, schemacase.PairHd, width)
}

func open(lib, top, prefix string, width int) (*Model, error) {
	sim, err := schemacase.Open(lib, top+"clk_i", width)
	if err != nil {
		return nil, err
	}
	m, err := OnSim(sim, top, prefix)
	if err != nil {
		sim.Close()
		return nil, err
	}
	return m, nil
}

// OnSim is the recv_header inside the model sim, which another unit's
// Model may share: its ports are named top+prefix+their name but rst_ni,
// top's. Stepping either Model steps both units; one whose check has
// ended gets idle inputs until its next Cycle. Closing either closes sim.
func OnSim(sim schemacase.Sim, top, prefix string) (*Model, error) {
	m := &Model{Sim: sim, shared: prefix != ""}
	if err := sim.BindUnit(top, prefix, &m.rst, m.ports(sim.Width())); err != nil {
		return nil, err
	}
	return m, nil
}

// ports are the module's ports but rst_ni, bound into m.
func (m *Model) ports(width int) []schemacase.Port {
	in, out := schemacase.In, schemacase.Out
	return []schemacase.Port{
		in("start_i", 1, &m.start), in("big_i", 1, &m.big), in("stall_i", 1, &m.stall),
		in("win_i", width*8, &m.win), in("avail_i", 8, &m.avail), in("rem_i", 24, &m.rem),
		out("take_o", 8, &m.take), out("done_o", 1, &m.done), out("code_o", 8, &m.code),
		out("offset_o", 24, &m.offset), out("msg_type_o", 8, &m.msgType), out("method_o", 8, &m.method),
		out("seqid_o", 32, &m.seqID),
	}
}

// Reset holds rst_ni low for two cycles, then high for one, every input
// of the model idle (a shared model's other unit's too).
func (m *Model) Reset() error { return m.ResetAll(m.rst) }

// Cycle sets the inputs, runs one cycle and reads the edge's sample.
func (m *Model) Cycle(in *Inputs) (*Outputs, error) {
	m.start.Set(schemacase.B2U(in.Start))
	m.big.Set(schemacase.B2U(in.Big))
	m.stall.Set(schemacase.B2U(in.Stall))
	m.win.SetBytes(in.Win)
	m.avail.Set(uint64(in.Avail))
	m.rem.Set(uint64(in.Rem))
	if err := m.Step(); err != nil {
		return nil, err
	}
	o := &m.out
	o.Take = int(m.take.U64())
	o.Done = m.done.Bit()
	o.Code = uint8(m.code.U64())
	o.Offset = uint32(m.offset.U64())
	o.MsgType = uint8(m.msgType.U64())
	o.Method = uint8(m.method.U64())
	o.SeqID = uint32(m.seqID.U64())
	if m.shared && o.Done {
		// Until the next Cycle sets them again, the other unit's cycles
		// step this one: inputs idle.
		schemacase.Idle(m.start, m.big, m.stall, m.win, m.avail, m.rem)
	}
	return o, nil
}
