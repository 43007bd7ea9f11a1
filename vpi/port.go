package vpi

/*
#include <stdlib.h>
#include "loader.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// Direction is a signal's port direction, numbered as in VPI (vpiDirection).
type Direction int

// Directions.
const (
	Input       Direction = 1
	Output      Direction = 2
	InOut       Direction = 3
	NoDirection Direction = 5 // not a port
)

func (d Direction) String() string {
	switch d {
	case Input:
		return "input"
	case Output:
		return "output"
	case InOut:
		return "inout"
	case NoDirection:
		return "internal"
	}
	return fmt.Sprintf("Direction(%d)", int(d))
}

// Signal is a signal found by name. Get and Put go through
// vpi_get_value/vpi_put_value: fine for occasional access and as a check
// on the fast path, about ten times slower than a port per cycle.
type Signal struct {
	s         *Sim
	id        C.int32_t
	name      string
	width     int
	writable  bool
	direction Direction
}

// Signal resolves a hierarchical name ("top.u_core.state_q", or a top-level
// port as "top.clk_i" or "clk_i") through vpi_handle_by_name. Signals other
// than top-level ports must be public: mark them in a .vlt control file
// listed in VPI_SOURCES, or build with VPI_FLAGS=--public-flat-rw.
func (s *Sim) Signal(name string) (Signal, error) {
	op := fmt.Sprintf("signal %q", name)
	if s.closed {
		return Signal{}, &Error{Op: op, Err: ErrClosed}
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var info C.vm_signal_info
	if rc := C.call_signal(s.lib, cname, &info); rc != C.VM_OK {
		return Signal{}, s.err(rc, op)
	}
	return Signal{
		s:         s,
		id:        info.id,
		name:      name,
		width:     int(info.width),
		writable:  info.writable != 0,
		direction: Direction(info.direction),
	}, nil
}

// Name returns the name the signal was looked up by.
func (g Signal) Name() string { return g.name }

// Width returns the signal's width in bits.
func (g Signal) Width() int { return g.width }

// Writable reports whether Put (and an input port) may drive the signal.
func (g Signal) Writable() bool { return g.writable }

// Direction returns the signal's port direction, NoDirection if not a port.
func (g Signal) Direction() Direction { return g.direction }

// Get reads the signal through vpi_get_value: (Width+7)/8 bytes,
// little-endian.
func (g Signal) Get() ([]byte, error) {
	b := make([]byte, (g.width+7)/8)
	if g.s.closed {
		return nil, &Error{Op: fmt.Sprintf("get %q", g.name), Err: ErrClosed}
	}
	if rc := C.call_get(g.s.lib, g.id, (*C.uint8_t)(&b[0]), C.uint32_t(len(b))); rc != C.VM_OK {
		return nil, g.s.err(rc, fmt.Sprintf("get %q", g.name))
	}
	return b, nil
}

// GetU64 reads the low 64 bits of the signal through vpi_get_value.
func (g Signal) GetU64() (uint64, error) {
	b, err := g.Get()
	if err != nil {
		return 0, err
	}
	var w [8]byte
	copy(w[:], b)
	return binary.LittleEndian.Uint64(w[:]), nil
}

// Put writes the signal through vpi_put_value. b is little-endian and is
// zero-extended to the signal's width; bits above the width are dropped.
// b longer than (Width+7)/8 bytes is an error. The write takes effect at
// once (Verilator ignores VPI delays). Putting a registered input port
// also updates the port's value, so the next cycle keeps it.
func (g Signal) Put(b []byte) error {
	op := fmt.Sprintf("put %q", g.name)
	n := (g.width + 7) / 8
	if len(b) > n {
		return &Error{Op: op, Err: ErrInvalid, Detail: fmt.Sprintf("%d bytes for a %d-bit signal", len(b), g.width)}
	}
	if g.s.closed {
		return &Error{Op: op, Err: ErrClosed}
	}
	v := make([]byte, n)
	copy(v, b)
	if rc := C.call_put(g.s.lib, g.id, (*C.uint8_t)(&v[0]), C.uint32_t(n)); rc != C.VM_OK {
		return g.s.err(rc, op)
	}
	return nil
}

// PutU64 writes v, truncated to the signal's width, through vpi_put_value.
func (g Signal) PutU64(v uint64) error {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	n := min((g.width+7)/8, 8)
	return g.Put(b[:n])
}

// Port is a signal registered for the per-cycle fast path. Its value lives
// in a C buffer that the shim copies to (inputs) or from (outputs) the model
// at every cycle; Port methods read and write that buffer directly, without
// crossing cgo and without checking the thread. A Port is valid until its
// Sim is closed.
type Port struct {
	// The port's slot in the input or the output buffer (the other is nil),
	// refreshed whenever the buffers move; nil after Close. With mask and s,
	// all that Set, U64 and Bit touch: the first 64 bytes, one cache line.
	in, out []byte
	mask    uint64 // width mask for Set
	s       *Sim
	name    string
	width   int
	input   bool
	index   C.int32_t // in the shim's table for this direction
	off     int       // offset in the buffer
	n       int       // (width+7)/8
	slot    int       // bytes reserved in the buffer, a multiple of 8
}

// Input registers the named writable signal as a fast-path input port.
// Its value starts as the signal's current value and is copied into the
// model at the start of every cycle. Registering a signal twice returns
// an equivalent Port.
func (s *Sim) Input(name string) (*Port, error) { return s.port(name, true) }

// Output registers the named signal as a fast-path output port, sampled at
// every cycle just before the rising edge. Any signal may be an output,
// internal ones included.
func (s *Sim) Output(name string) (*Port, error) { return s.port(name, false) }

func (s *Sim) port(name string, input bool) (*Port, error) {
	g, err := s.Signal(name)
	if err != nil {
		return nil, err
	}
	dir, kind := C.int32_t(C.VM_OUT), "output"
	if input {
		dir, kind = C.VM_IN, "input"
	}
	var off C.uint32_t
	idx := C.call_port(s.lib, g.id, dir, &off)
	if idx < 0 {
		return nil, s.err(idx, fmt.Sprintf("%s port %q", kind, name))
	}
	p := &Port{
		s:     s,
		name:  name,
		width: g.width,
		input: input,
		index: idx,
		off:   int(off),
		n:     (g.width + 7) / 8,
		slot:  ((g.width + 63) / 64) * 8,
		mask:  ^uint64(0),
	}
	if g.width < 64 {
		p.mask = 1<<g.width - 1
	}
	// The buffers may have moved; refresh every view. Frames and samples
	// have the old layout.
	s.ports = append(s.ports, p)
	s.in, s.out = s.buffer(C.VM_IN), s.buffer(C.VM_OUT)
	s.views()
	s.staged, s.kept = 0, 0
	return p, nil
}

// views points every port at its slot in the current buffers, or at
// nothing after Close.
func (s *Sim) views() {
	for _, p := range s.ports {
		p.in, p.out = nil, nil
		switch {
		case p.input && s.in != nil:
			p.in = s.in[p.off : p.off+p.slot : p.off+p.slot]
		case !p.input && s.out != nil:
			p.out = s.out[p.off : p.off+p.slot : p.off+p.slot]
		}
	}
}

func (s *Sim) buffer(dir C.int32_t) []byte {
	var size C.uint32_t
	p := C.call_buffer(s.lib, dir, &size)
	if p == nil || size == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), int(size))
}

// Name returns the name the port was registered by.
func (p *Port) Name() string { return p.name }

// Width returns the port's width in bits.
func (p *Port) Width() int { return p.width }

func (p *Port) String() string {
	if p.input {
		return fmt.Sprintf("input %q", p.name)
	}
	return fmt.Sprintf("output %q", p.name)
}

// misuse panics with what is wrong with the port's use.
//
//go:noinline
func (p *Port) misuse() {
	if p.s.closed {
		panic("vpi: " + p.String() + " used after Close")
	}
	if p.input {
		panic("vpi: " + p.String() + " is not an output port")
	}
	panic("vpi: " + p.String() + " is not an input port")
}

// Set sets an input port for the following cycles. v is zero-extended to
// the port's width and bits above the width are dropped. Set panics on an
// output port.
func (p *Port) Set(v uint64) {
	b := p.in
	if len(b) != 8 {
		p.setWide(v)
		return
	}
	binary.LittleEndian.PutUint64(b, v&p.mask)
}

// setWide is Set for ports wider than 64 bits, and Set's misuse.
//
//go:noinline
func (p *Port) setWide(v uint64) {
	b := p.in
	if b == nil {
		p.misuse()
	}
	binary.LittleEndian.PutUint64(b, v&p.mask)
	clear(b[8:])
}

// SetBytes sets an input port from little-endian bytes, zero-extended to
// the port's width; bits above the width are dropped. It panics if b is
// longer than (Width+7)/8 bytes or p is an output port.
func (p *Port) SetBytes(b []byte) {
	slot := p.in
	if slot == nil {
		p.misuse()
	}
	if len(b) > p.n {
		panic(fmt.Sprintf("vpi: %s: SetBytes with %d bytes for a %d-bit port", p, len(b), p.width))
	}
	copy(slot, b)
	clear(slot[len(b):])
	if r := p.width % 8; r != 0 {
		slot[p.n-1] &= byte(1)<<r - 1
	}
}

// U64 returns the low 64 bits of an output port's last sample.
func (p *Port) U64() uint64 {
	b := p.out
	if len(b) < 8 {
		p.misuse()
	}
	return binary.LittleEndian.Uint64(b)
}

// Bit returns bit 0 of an output port's last sample.
func (p *Port) Bit() bool {
	b := p.out
	if len(b) < 8 {
		p.misuse()
	}
	return b[0]&1 != 0
}

// U64In, BitIn and BytesIn read an output port from a kept sample
// (Sim.Sample) as U64, Bit and Bytes read the port's current one.
func (p *Port) U64In(sample []byte) uint64 {
	if p.input {
		p.misuse()
	}
	return binary.LittleEndian.Uint64(sample[p.off : p.off+8])
}

func (p *Port) BitIn(sample []byte) bool {
	if p.input {
		p.misuse()
	}
	return sample[p.off]&1 != 0
}

func (p *Port) BytesIn(sample []byte) []byte {
	if p.input {
		p.misuse()
	}
	return sample[p.off : p.off+p.n : p.off+p.n]
}

// Bytes returns an output port's last sample, (Width+7)/8 bytes,
// little-endian. It is a view of the C buffer: valid until the next Cycle,
// RunUntil, Input, Output or Close, and not to be written.
func (p *Port) Bytes() []byte {
	b := p.out
	if b == nil {
		p.misuse()
	}
	return b[:p.n:p.n]
}
