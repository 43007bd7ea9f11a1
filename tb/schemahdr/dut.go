package schemahdr

import (
	"arcalis/golden/schemagold"
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

	// inRx: the recv_header of a schema_rx (OpenPair), which walks the
	// args after a header it accepted; walking: it may be doing so.
	inRx, walking bool

	rst, start, big, stall, win, avail, rem *vpi.Port
	OutPorts
}

// OutPorts are the module's outputs, bound by Model or, in schema_rx, by
// the harness of the receive (tb/schemarx.RecvModel).
type OutPorts struct {
	take, done, code, offset, msgType, method, seqID *vpi.Port
}

// List is the outputs to bind into p.
func (p *OutPorts) List() []schemacase.Port {
	out := schemacase.Out
	return []schemacase.Port{
		out("take_o", 8, &p.take), out("done_o", 1, &p.done), out("code_o", 8, &p.code),
		out("offset_o", 24, &p.offset), out("msg_type_o", 8, &p.msgType), out("method_o", 8, &p.method),
		out("seqid_o", 32, &p.seqID),
	}
}

// Read reads the outputs' edge sample into o.
func (p *OutPorts) Read(o *Outputs) {
	o.Take = int(p.take.U64())
	o.Done = p.done.Bit()
	o.Code = uint8(p.code.U64())
	o.Offset = uint32(p.offset.U64())
	o.MsgType = uint8(p.msgType.U64())
	o.Method = uint8(p.method.U64())
	o.SeqID = uint32(p.seqID.U64())
}

// OpenModel opens a model of recv_header alone (make schemahdr-model, or
// make schemahdr-gatesim's netlist). The Model belongs to the calling
// goroutine's OS thread (see vpi.Open); Close it there.
func OpenModel(lib string, width int) (*Model, error) {
	sim, err := schemacase.Open(lib, top+"clk_i", width)
	if err != nil {
		return nil, err
	}
	m := &Model{Sim: sim}
	in, out := m.ports(width)
	if err := sim.BindUnit(top, "", &m.rst, append(in, out...)); err != nil {
		sim.Close()
		return nil, err
	}
	return m, nil
}

// OpenPair opens the recv_header of a schema_pair model's schema_rx (make
// schema-pair-model), as OpenModel: schema_rx's inputs (their prefix
// schemacase.PairRx) and its recv_header's take and results (PairHd).
// After a header it accepted, schema_rx goes on to walk the args, which is
// not this view's to drive: the next start_i resets the model first.
func OpenPair(lib string, width int) (*Model, error) {
	sim, err := schemacase.Open(lib, schemacase.PairTop+"clk_i", width)
	if err != nil {
		return nil, err
	}
	m := &Model{Sim: sim, inRx: true}
	in, out := m.ports(width)
	if err = sim.BindUnit(schemacase.PairTop, schemacase.PairRx, &m.rst, in); err == nil {
		err = sim.Bind(schemacase.PairTop+schemacase.PairHd, out)
	}
	if err != nil {
		sim.Close()
		return nil, err
	}
	return m, nil
}

// ports are the module's inputs but rst_ni and its outputs, bound into m.
func (m *Model) ports(width int) (ins, outs []schemacase.Port) {
	in := schemacase.In
	return []schemacase.Port{
		in("start_i", 1, &m.start), in("big_i", 1, &m.big), in("stall_i", 1, &m.stall),
		in("win_i", width*8, &m.win), in("avail_i", 8, &m.avail), in("rem_i", 24, &m.rem),
	}, m.List()
}

// Reset holds rst_ni low for two cycles, then high for one, every input
// of the model idle.
func (m *Model) Reset() error {
	m.walking = false
	return m.ResetAll(m.rst)
}

// Cycle sets the inputs, runs one cycle and reads the edge's sample.
func (m *Model) Cycle(in *Inputs) (*Outputs, error) {
	if in.Start && m.walking {
		if err := m.Reset(); err != nil {
			return nil, err
		}
	}
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
	m.Read(o)
	if m.inRx && o.Done && o.Code == uint8(schemagold.CodeOK) {
		m.walking = true
	}
	return o, nil
}
