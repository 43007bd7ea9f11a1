package schematx

import (
	"arcalis/tb/schemacase"
	"arcalis/vpi"
)

// Inputs are the module's inputs for one cycle.
type Inputs struct {
	Start   bool
	Method  uint8
	AreaEnd uint32
	RdData  uint64 // an answer to a read, when RdValid
	RdValid bool
	Stall   bool // out_stall_i: no beat next cycle
}

// Outputs are the module's outputs at one rising edge (the registers'
// values during the cycle that edge ends).
type Outputs struct {
	RdReq    bool
	RdAddr   uint32
	OutValid bool
	OutData  []byte // Width bytes
	OutLen   int
	Done     bool
	Code     uint8
	Offset   uint32
}

// DUT is the module as the harness drives it: the Verilated model, or a
// stand-in for the harness's own tests.
type DUT = schemacase.DUT[Inputs, Outputs]

// top is the module's hierarchical name in the model.
const top = "resp_schema."

// Model is the Verilated resp_schema through package vpi.
type Model struct {
	schemacase.Sim // Close, Width, TraceOn, TraceOff
	out            Outputs

	shared bool // on a Sim another unit's Model steps too (OnSim)

	rst, start, method, areaEnd, rdData, rdValid, stall *vpi.Port
	rdReq, rdAddr, outValid, outData, outLen, done      *vpi.Port
	code, offset                                        *vpi.Port
}

// OpenModel opens the library make schematx-model built. The Model belongs
// to the calling goroutine's OS thread (see vpi.Open); Close it there.
func OpenModel(lib string, width int) (*Model, error) {
	sim, err := schemacase.Open(lib, top+"clk_i", width)
	if err != nil {
		return nil, err
	}
	m, err := OnSim(sim, top, "")
	if err != nil {
		sim.Close()
		return nil, err
	}
	return m, nil
}

// OnSim is the resp_schema inside the model sim, which another unit's
// Model may share (schemacase.PairTop, PairTx): its ports are named
// top+prefix+their name but rst_ni, top's. Stepping either Model steps
// both units; one whose walk has ended gets idle inputs until its next
// Cycle. Closing either closes sim.
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
		in("start_i", 1, &m.start), in("method_i", 8, &m.method),
		in("area_end_i", 22, &m.areaEnd), in("rd_data_i", 64, &m.rdData), in("rd_valid_i", 1, &m.rdValid),
		in("out_stall_i", 1, &m.stall),
		out("rd_req_o", 1, &m.rdReq), out("rd_addr_o", 22, &m.rdAddr), out("out_valid_o", 1, &m.outValid),
		out("out_data_o", width*8, &m.outData), out("out_len_o", 8, &m.outLen), out("done_o", 1, &m.done),
		out("code_o", 8, &m.code), out("offset_o", 32, &m.offset),
	}
}

// Reset holds rst_ni low for two cycles, then high for one, every input
// of the model idle (a shared model's other unit's too).
func (m *Model) Reset() error { return m.ResetAll(m.rst) }

// Cycle sets the inputs, runs one cycle and reads the edge's sample.
func (m *Model) Cycle(in *Inputs) (*Outputs, error) {
	m.start.Set(schemacase.B2U(in.Start))
	m.method.Set(uint64(in.Method))
	m.areaEnd.Set(uint64(in.AreaEnd))
	m.rdData.Set(in.RdData)
	m.rdValid.Set(schemacase.B2U(in.RdValid))
	m.stall.Set(schemacase.B2U(in.Stall))
	if err := m.Step(); err != nil {
		return nil, err
	}
	o := &m.out
	o.RdReq = m.rdReq.Bit()
	o.RdAddr = uint32(m.rdAddr.U64())
	o.OutValid = m.outValid.Bit()
	o.OutData = m.outData.Bytes()
	o.OutLen = int(m.outLen.U64())
	o.Done = m.done.Bit()
	o.Code = uint8(m.code.U64())
	o.Offset = uint32(m.offset.U64())
	if m.shared && o.Done {
		// Until the next Cycle sets them again, the other unit's cycles
		// step this one: inputs idle.
		schemacase.Idle(m.start, m.method, m.areaEnd, m.rdData, m.rdValid, m.stall)
	}
	return o, nil
}
