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

	shared bool // on a Sim another unit's Model steps too (OnSim)

	rst, start, stall, method, capacity, win, avail, rem, pos *vpi.Port

	take, stValid, stAddr, stData, stMask, done                *vpi.Port
	code, offset, areaEnd, depth, missStruct, missID, argsSize *vpi.Port
}

// OpenModel opens the library built by Case.Build. The Model belongs to the
// calling goroutine's OS thread (see vpi.Open); Close it there.
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

// OnSim is the recv_schema inside the model sim, which another unit's
// Model may share (schemacase.PairTop, PairRx): its ports are named
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
		in("start_i", 1, &m.start), in("stall_i", 1, &m.stall),
		in("method_i", 8, &m.method), in("cap_i", 22, &m.capacity), in("win_i", width*8, &m.win),
		in("avail_i", 8, &m.avail), in("rem_i", 24, &m.rem), in("pos_i", 24, &m.pos),
		out("take_o", 8, &m.take), out("st_valid_o", 1, &m.stValid), out("st_addr_o", 22, &m.stAddr),
		out("st_data_o", width*8, &m.stData), out("st_mask_o", width, &m.stMask), out("done_o", 1, &m.done),
		out("code_o", 8, &m.code), out("offset_o", 24, &m.offset), out("area_end_o", 22, &m.areaEnd),
		out("depth_o", 4, &m.depth), out("miss_struct_o", 16, &m.missStruct), out("miss_id_o", 16, &m.missID),
		out("args_size_o", 22, &m.argsSize),
	}
}

// Reset holds rst_ni low for two cycles, then high for one, every input
// of the model idle (a shared model's other unit's too).
func (m *Model) Reset() error { return m.ResetAll(m.rst) }

// Cycle sets the inputs, runs one cycle and reads the edge's sample.
func (m *Model) Cycle(in *Inputs) (*Outputs, error) {
	m.start.Set(schemacase.B2U(in.Start))
	m.stall.Set(schemacase.B2U(in.Stall))
	m.method.Set(uint64(in.Method))
	m.capacity.Set(uint64(in.Cap))
	m.win.SetBytes(in.Win)
	m.avail.Set(uint64(in.Avail))
	m.rem.Set(uint64(in.Rem))
	m.pos.Set(uint64(in.Pos))
	if err := m.Step(); err != nil {
		return nil, err
	}
	o := &m.out
	o.Take = int(m.take.U64())
	o.StValid = m.stValid.Bit()
	o.StAddr = uint32(m.stAddr.U64())
	o.StData = m.stData.Bytes()
	o.StMask = m.stMask.U64()
	o.Done = m.done.Bit()
	o.Code = uint8(m.code.U64())
	o.Offset = uint32(m.offset.U64())
	o.AreaEnd = uint32(m.areaEnd.U64())
	o.Depth = uint8(m.depth.U64())
	o.MissStruct = uint16(m.missStruct.U64())
	o.MissID = uint16(m.missID.U64())
	o.ArgsSize = uint32(m.argsSize.U64())
	if m.shared && o.Done {
		// Until the next Cycle sets them again, the other unit's cycles
		// step this one: inputs idle.
		schemacase.Idle(m.start, m.stall, m.method, m.capacity, m.win, m.avail, m.rem, m.pos)
	}
	return o, nil
}
