package schemarx

import (
	"arcalis/tb/schemacase"
	"arcalis/vpi"
)

// Inputs are the module's inputs for one cycle.
type Inputs struct {
	Start  bool
	Stall  bool
	Method uint8
	Cap    uint32
	Win    []byte // Width bytes; those at or above Avail are don't-care
	Avail  int
	Rem    uint32
	Pos    uint32
}

// Outputs are what the module shows at one rising edge: the action it
// performs there (take, store) and its result registers.
type Outputs struct {
	Take    int
	StValid bool
	StAddr  uint32
	StData  []byte // Width bytes; valid until the next cycle
	StMask  uint64
	Done    bool

	Code       uint8
	Offset     uint32
	AreaEnd    uint32
	Depth      uint8
	MissStruct uint16
	MissID     uint16
	ArgsSize   uint32
}

// DUT is the module as the harness drives it: the Verilated model, or a
// stand-in for the harness's own tests.
type DUT = schemacase.DUT[Inputs, Outputs]

// top is the module's hierarchical name in the model.
const top = "recv_schema."

// Model is the Verilated recv_schema through package vpi.
type Model struct {
	schemacase.Sim // Close, Width, TraceOn, TraceOff
	out            Outputs

	rst, method *vpi.Port
	inPorts
	outPorts
}

// inPorts are the inputs recv_schema and schema_rx share: start_i, the
// stall, the capacity and the window.
type inPorts struct {
	start, stall, capacity, win, avail, rem, pos *vpi.Port
}

// list is the inputs to bind into p.
func (p *inPorts) list(width int) []schemacase.Port {
	in := schemacase.In
	return []schemacase.Port{
		in("start_i", 1, &p.start), in("stall_i", 1, &p.stall), in("cap_i", 22, &p.capacity),
		in("win_i", width*8, &p.win), in("avail_i", 8, &p.avail), in("rem_i", 24, &p.rem), in("pos_i", 24, &p.pos),
	}
}

// set sets them for the next cycle.
func (p *inPorts) set(start, stall bool, capacity uint32, win []byte, avail int, rem, pos uint32) {
	p.start.Set(schemacase.B2U(start))
	p.stall.Set(schemacase.B2U(stall))
	p.capacity.Set(uint64(capacity))
	p.win.SetBytes(win)
	p.avail.Set(uint64(avail))
	p.rem.Set(uint64(rem))
	p.pos.Set(uint64(pos))
}

// idle sets them idle (0).
func (p *inPorts) idle() { schemacase.Idle(p.start, p.stall, p.capacity, p.win, p.avail, p.rem, p.pos) }

// outPorts are the module's outputs, bound by Model or, in schema_rx, by
// RecvModel.
type outPorts struct {
	take, stValid, stAddr, stData, stMask, done                *vpi.Port
	code, offset, areaEnd, depth, missStruct, missID, argsSize *vpi.Port
}

// list is the outputs to bind into p.
func (p *outPorts) list(width int) []schemacase.Port {
	out := schemacase.Out
	return []schemacase.Port{
		out("take_o", 8, &p.take), out("st_valid_o", 1, &p.stValid), out("st_addr_o", 22, &p.stAddr),
		out("st_data_o", width*8, &p.stData), out("st_mask_o", width, &p.stMask), out("done_o", 1, &p.done),
		out("code_o", 8, &p.code), out("offset_o", 24, &p.offset), out("area_end_o", 22, &p.areaEnd),
		out("depth_o", 4, &p.depth), out("miss_struct_o", 16, &p.missStruct), out("miss_id_o", 16, &p.missID),
		out("args_size_o", 22, &p.argsSize),
	}
}

// read reads the outputs' edge sample into o.
func (p *outPorts) read(o *Outputs) {
	o.Take = int(p.take.U64())
	o.StValid = p.stValid.Bit()
	o.StAddr = uint32(p.stAddr.U64())
	o.StData = p.stData.Bytes()
	o.StMask = p.stMask.U64()
	o.Done = p.done.Bit()
	o.Code = uint8(p.code.U64())
	o.Offset = uint32(p.offset.U64())
	o.AreaEnd = uint32(p.areaEnd.U64())
	o.Depth = uint8(p.depth.U64())
	o.MissStruct = uint16(p.missStruct.U64())
	o.MissID = uint16(p.missID.U64())
	o.ArgsSize = uint32(p.argsSize.U64())
}

// OpenModel opens the library built by Case.Build. The Model belongs to the
// calling goroutine's OS thread (see vpi.Open); Close it there.
func OpenModel(lib string, width int) (*Model, error) {
	sim, err := schemacase.Open(lib, top+"clk_i", width)
	if err != nil {
		return nil, err
	}
	m := &Model{Sim: sim}
	if err := sim.BindUnit(top, "", &m.rst, m.ports(width)); err != nil {
		sim.Close()
		return nil, err
	}
	return m, nil
}

// ports are the module's ports but rst_ni, bound into m.
func (m *Model) ports(width int) []schemacase.Port {
	ports := append(m.inPorts.list(width), schemacase.In("method_i", 8, &m.method))
	return append(ports, m.outPorts.list(width)...)
}

// Reset holds rst_ni low for two cycles, then high for one, every input
// of the model idle.
func (m *Model) Reset() error { return m.ResetAll(m.rst) }

// Cycle sets the inputs, runs one cycle and reads the edge's sample.
func (m *Model) Cycle(in *Inputs) (*Outputs, error) {
	m.set(in.Start, in.Stall, in.Cap, in.Win, in.Avail, in.Rem, in.Pos)
	m.method.Set(uint64(in.Method))
	if err := m.Step(); err != nil {
		return nil, err
	}
	o := &m.out
	m.read(o)
	return o, nil
}
