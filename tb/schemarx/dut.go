package schemarx

import (
	"fmt"
	"os"

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
type DUT interface {
	Width() int
	// Reset holds rst_ni low for a few cycles with every input idle.
	Reset() error
	// Cycle applies in for one cycle and returns what the rising edge saw.
	Cycle(in *Inputs) (*Outputs, error)
	TraceOn(path string) error
	TraceOff() error
}

// top is the module's hierarchical name in the model.
const top = "recv_schema."

// Model is the Verilated recv_schema through package vpi.
type Model struct {
	sim   *vpi.Sim
	width int
	out   Outputs

	rst, start, stall, method, capacity, win, avail, rem, pos *vpi.Port

	take, stValid, stAddr, stData, stMask, done                *vpi.Port
	code, offset, areaEnd, depth, missStruct, missID, argsSize *vpi.Port
}

// OpenModel opens the library built by Case.Build. The Model belongs to the
// calling goroutine's OS thread (see vpi.Open); Close it there.
func OpenModel(lib string, width int) (*Model, error) {
	if _, err := os.Stat(lib); err != nil { // through os, so that go test's cache sees a rebuilt model
		return nil, err
	}
	sim, err := vpi.Open(lib, vpi.Options{Clock: top + "clk_i"})
	if err != nil {
		return nil, err
	}
	m := &Model{sim: sim, width: width}
	bind := func(get func(string) (*vpi.Port, error), name string, bits int, p **vpi.Port) {
		if err != nil {
			return
		}
		*p, err = get(top + name)
		if err == nil && (*p).Width() != bits {
			err = fmt.Errorf("port %s is %d bits, want %d (Width %d)", name, (*p).Width(), bits, width)
		}
	}
	in, out := sim.Input, sim.Output
	for _, b := range []struct {
		get  func(string) (*vpi.Port, error)
		name string
		bits int
		p    **vpi.Port
	}{
		{in, "rst_ni", 1, &m.rst}, {in, "start_i", 1, &m.start}, {in, "stall_i", 1, &m.stall},
		{in, "method_i", 8, &m.method}, {in, "cap_i", 22, &m.capacity}, {in, "win_i", width * 8, &m.win},
		{in, "avail_i", 8, &m.avail}, {in, "rem_i", 24, &m.rem}, {in, "pos_i", 24, &m.pos},
		{out, "take_o", 8, &m.take}, {out, "st_valid_o", 1, &m.stValid}, {out, "st_addr_o", 22, &m.stAddr},
		{out, "st_data_o", width * 8, &m.stData}, {out, "st_mask_o", width, &m.stMask}, {out, "done_o", 1, &m.done},
		{out, "code_o", 8, &m.code}, {out, "offset_o", 24, &m.offset}, {out, "area_end_o", 22, &m.areaEnd},
		{out, "depth_o", 4, &m.depth}, {out, "miss_struct_o", 16, &m.missStruct}, {out, "miss_id_o", 16, &m.missID},
		{out, "args_size_o", 22, &m.argsSize},
	} {
		bind(b.get, b.name, b.bits, b.p)
	}
	if err != nil {
		sim.Close()
		return nil, err
	}
	return m, nil
}

// Close frees the model.
func (m *Model) Close() error { return m.sim.Close() }

// Width is the model's Width parameter.
func (m *Model) Width() int { return m.width }

// Reset holds rst_ni low for two cycles, then high for one, inputs idle.
func (m *Model) Reset() error {
	m.idle()
	m.rst.Set(0)
	if err := m.sim.Cycle(2); err != nil {
		return err
	}
	m.rst.Set(1)
	return m.sim.Cycle(1)
}

func (m *Model) idle() {
	for _, p := range []*vpi.Port{m.start, m.stall, m.method, m.capacity, m.win, m.avail, m.rem, m.pos} {
		p.Set(0)
	}
}

// Cycle sets the inputs, runs one cycle and reads the edge's sample.
func (m *Model) Cycle(in *Inputs) (*Outputs, error) {
	m.start.Set(b2u(in.Start))
	m.stall.Set(b2u(in.Stall))
	m.method.Set(uint64(in.Method))
	m.capacity.Set(uint64(in.Cap))
	m.win.SetBytes(in.Win)
	m.avail.Set(uint64(in.Avail))
	m.rem.Set(uint64(in.Rem))
	m.pos.Set(uint64(in.Pos))
	if err := m.sim.Cycle(1); err != nil {
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
	return o, nil
}

// TraceOn starts an FST trace into path.
func (m *Model) TraceOn(path string) error { return m.sim.TraceOn(path) }

// TraceOff closes the trace.
func (m *Model) TraceOff() error { return m.sim.TraceOff() }

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
