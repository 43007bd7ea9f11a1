// Package vpi drives a Verilated design from Go: it loads the shared library
// that vpi/build.mk builds and clocks the model through a small C shim.
//
// Signals are found by hierarchical name through Verilator's VPI. Occasional
// access goes through vpi_get_value/vpi_put_value (Signal); per-cycle access
// goes through ports (Input, Output), whose values live in two C buffers that
// Go reads and writes directly, so Cycle(n) and RunUntil cross cgo once per
// call however many cycles and ports are involved. Inputs that change from
// cycle to cycle can be staged ahead as frames (Stage), and the outputs of
// each of those cycles read back afterwards (UseSample, or in place with
// Sample): one call still. A line memory (AttachLineMem) answers a design's
// cache-line memory ports inside the shim, logging what it does for the
// caller to judge.
//
// A Sim belongs to one OS thread: Open locks the calling goroutine to its
// thread (runtime.LockOSThread) and every later call must come from that
// goroutine; calls from another thread fail with ErrWrongThread. Close
// unlocks it. VPI state is process-global, so a library holds at most one
// open Sim at a time.
package vpi

/*
#include <stdlib.h>
#include "loader.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"time"
	"unsafe"
)

// Errors a caller may test for with errors.Is.
var (
	ErrNotFound    = errors.New("not found")
	ErrReadOnly    = errors.New("not writable")
	ErrWrongThread = errors.New("called from an OS thread other than the one that opened the Sim (use it from the goroutine that called Open)")
	ErrClosed      = errors.New("Sim is closed")
	ErrFinished    = errors.New("simulation finished")
	ErrUnsupported = errors.New("not supported")
	ErrInvalid     = errors.New("invalid argument")
	ErrIO          = errors.New("i/o error")
	ErrOpen        = errors.New("a Sim is already open on this library")
)

// Error is a failure reported by the shim.
type Error struct {
	Op     string // what was attempted, naming the signal or path
	Err    error  // one of the Err* values
	Detail string // the shim's explanation, if it adds anything
}

func (e *Error) Error() string {
	if e.Detail == "" || e.Detail == e.Err.Error() {
		return "vpi: " + e.Op + ": " + e.Err.Error()
	}
	return "vpi: " + e.Op + ": " + e.Detail
}

func (e *Error) Unwrap() error { return e.Err }

// Options configure Open.
type Options struct {
	// Clock names the 1-bit input that Cycle and RunUntil toggle, e.g. "top.clk_i".
	Clock string
}

// Sim is an open Verilated model.
type Sim struct {
	lib     *C.vm_lib
	in, out []byte // the C port buffers; nil after Close
	cycles  uint64
	calls   uint64 // calls into the shim that ran cycles
	closed  bool
	conds   []C.vm_cond // RunUntilAny's conditions, reused
	ports   []*Port     // every port registered, for their views of the buffers

	frames  []byte // staged input frames, len(in) bytes each
	staged  int
	samples []byte // the kept pre-edge samples, len(out) bytes each
	kept    int

	mem *LineMem // see AttachLineMem

	timing   bool          // see TimeCalls
	callTime time.Duration // wall time inside the calls that ran cycles
}

// Open loads the shared library built by vpi/build.mk, constructs the model,
// evaluates it at time 0 with the clock low and locks the calling goroutine
// to its OS thread. The Sim must be used from that goroutine only.
// Subtests (t.Run) and other goroutines run on other threads and cannot use
// it; Close it (t.Cleanup does) before the goroutine ends. A missing
// library is an error that names the path tried.
func Open(libPath string, opt Options) (*Sim, error) {
	if opt.Clock == "" {
		return nil, errors.New("vpi: Options.Clock is empty")
	}
	lib, err := load(libPath)
	if err != nil {
		return nil, err
	}
	s := &Sim{lib: lib}
	runtime.LockOSThread()
	clock := C.CString(opt.Clock)
	defer C.free(unsafe.Pointer(clock))
	if rc := C.call_open(lib, clock); rc != C.VM_OK {
		op := fmt.Sprintf("open %s", libPath)
		if rc != C.VM_EOPEN {
			op += fmt.Sprintf(": clock %q", opt.Clock)
		}
		err := s.err(rc, op)
		runtime.UnlockOSThread()
		return nil, err
	}
	return s, nil
}

// Close runs the design's final blocks, closes any trace and frees the
// model; ports and their buffers become invalid. Closing twice is a no-op.
func (s *Sim) Close() error {
	if s.closed {
		return nil
	}
	if rc := C.call_close(s.lib); rc != C.VM_OK {
		return s.err(rc, "close")
	}
	s.closed = true
	if s.mem != nil { // vm_close freed its state and forgot its pages
		s.mem.unpin()
		s.mem.State = nil
	}
	s.in, s.out = nil, nil
	s.views()
	s.staged, s.kept = 0, 0
	runtime.UnlockOSThread()
	return nil
}

// Cycle runs n clock cycles. Each cycle copies every input port into the
// model, evaluates with the clock low, samples every output port (what the
// rising edge sees), then evaluates with the clock high. One cgo call.
// With frames staged, the cycles take their inputs from them (see Stage).
func (s *Sim) Cycle(n int) error {
	if n < 0 {
		return &Error{Op: fmt.Sprintf("cycle %d", n), Err: ErrInvalid, Detail: "negative cycle count"}
	}
	if s.closed {
		return &Error{Op: "cycle", Err: ErrClosed}
	}
	var r C.vm_result
	if s.staged > 0 {
		r = s.runFrames(nil, n, false)
	} else {
		t0 := s.clock()
		r = C.call_cycle(s.lib, C.uint64_t(n))
		s.clocked(t0)
	}
	if r.cycles != 0 {
		s.cycles += uint64(r.cycles)
		s.calls++
	}
	if r.status != C.VM_OK {
		return s.err(r.status, "cycle")
	}
	return nil
}

// RunUntil runs cycles with the inputs held until the pre-edge sample of
// output port p satisfies v&mask == value (on its low 64 bits) or max
// cycles have run. It returns the cycles run, counting the one whose sample
// matched, and whether the condition held. One cgo call. With frames
// staged, the cycles take their inputs from them (see Stage).
func (s *Sim) RunUntil(p *Port, mask, value uint64, max int) (cycles int, ok bool, err error) {
	op := "run until " + p.String()
	switch {
	case s.closed:
		return 0, false, &Error{Op: op, Err: ErrClosed}
	case p.s != s || p.input:
		return 0, false, &Error{Op: op, Err: ErrInvalid, Detail: "not an output port of this Sim"}
	case max < 0:
		return 0, false, &Error{Op: op, Err: ErrInvalid, Detail: "negative cycle budget"}
	}
	var r C.vm_result
	if s.staged > 0 {
		s.conds = append(s.conds[:0], C.vm_cond{port: p.index, mask: C.uint64_t(mask), value: C.uint64_t(value)})
		r = s.runFrames(s.conds, max, false)
	} else {
		t0 := s.clock()
		r = C.call_run_until(s.lib, p.index, C.uint64_t(mask), C.uint64_t(value), C.uint64_t(max))
		s.clocked(t0)
	}
	return s.untilResult(r, op)
}

// untilResult accounts for a run-until call's result.
func (s *Sim) untilResult(r C.vm_result, op string) (int, bool, error) {
	if r.cycles != 0 { // a refused call from another thread must not write s
		s.cycles += uint64(r.cycles)
		s.calls++
	}
	switch r.status {
	case C.VM_MATCHED:
		return int(r.cycles), true, nil
	case C.VM_OK:
		return int(r.cycles), false, nil
	}
	return int(r.cycles), false, s.err(r.status, op)
}

// Cond is one condition of RunUntilAny on the pre-edge sample v of an
// output port, on its low 64 bits: v&Mask == Value, or != Value if NotEqual.
// With Before above 0 it is checked on the first Before cycles of the call
// only (say, while what those cycles do would matter to inputs staged for
// later ones); it is not checked on the first From cycles of the call (say,
// while a script of staged inputs runs).
type Cond struct {
	Port         *Port
	Mask, Value  uint64
	NotEqual     bool
	Before, From int
}

// RunUntilAny runs cycles with the inputs held until any of conds holds on
// a pre-edge sample or max cycles have run. It returns the cycles run,
// counting the one whose sample matched, and whether a condition held. One
// cgo call, however many cycles and conditions. With frames staged, the
// cycles take their inputs from them (see Stage).
func (s *Sim) RunUntilAny(conds []Cond, max int) (cycles int, ok bool, err error) {
	const op = "run until any"
	switch {
	case s.closed:
		return 0, false, &Error{Op: op, Err: ErrClosed}
	case max < 0:
		return 0, false, &Error{Op: op, Err: ErrInvalid, Detail: "negative cycle budget"}
	}
	if _, err := s.cConds(conds, op); err != nil {
		return 0, false, err
	}
	if s.staged > 0 {
		return s.untilResult(s.runFrames(s.conds, max, false), op)
	}
	var first *C.vm_cond
	if len(s.conds) > 0 {
		first = &s.conds[0]
	}
	t0 := s.clock()
	r := C.call_run_until_any(s.lib, first, C.int32_t(len(s.conds)), C.uint64_t(max))
	s.clocked(t0)
	return s.untilResult(r, op)
}

// cConds converts conds into s.conds, checking each.
func (s *Sim) cConds(conds []Cond, op string) ([]C.vm_cond, error) {
	if cap(s.conds) < len(conds) {
		s.conds = make([]C.vm_cond, len(conds))
	}
	s.conds = s.conds[:len(conds)]
	for i := range conds {
		c := &conds[i]
		if c.Port == nil || c.Port.s != s || c.Port.input {
			return nil, &Error{Op: op, Err: ErrInvalid, Detail: fmt.Sprintf("condition %d: not an output port of this Sim", i)}
		}
		if c.Before < 0 || c.From < 0 {
			return nil, &Error{Op: op, Err: ErrInvalid, Detail: fmt.Sprintf("condition %d: negative Before or From", i)}
		}
		// Field by field: a composite literal is built on the stack and
		// copied, and reading it back stalls on the stores just made.
		v := &s.conds[i]
		v.port, v.ne, v.mask, v.value, v.before, v.from = c.Port.index, C.int32_t(b2i(c.NotEqual)), C.uint64_t(c.Mask), C.uint64_t(c.Value), C.uint64_t(c.Before), C.uint64_t(c.From)
	}
	return s.conds, nil
}

// Stage appends the input ports' current values to the staged input
// frames and returns how many are staged. The next call that runs cycles
// (Cycle, RunUntil or RunUntilAny) takes the inputs of its i-th cycle from
// frame i instead of the ports, for as many cycles as there are frames
// (later cycles hold the last frame's inputs), keeps each of those cycles'
// pre-edge sample for UseSample, and drops the frames, run or not:
// however many cycles' inputs change, one cgo call. Afterwards the input
// ports hold the inputs of the last cycle run and the output ports its
// sample. Registering a port drops the staged frames; Signal.Put does not
// change them. Stage panics after Close.
func (s *Sim) Stage() int {
	if s.closed {
		panic("vpi: Stage after Close")
	}
	n := len(s.in)
	s.frames = append(s.frames[:s.staged*n], s.in...)
	s.staged++
	return s.staged
}

// Staged returns how many input frames are staged.
func (s *Sim) Staged() int { return s.staged }

// Samples returns how many pre-edge samples the last call that ran staged
// frames kept: one per cycle it ran from a frame.
func (s *Sim) Samples() int { return s.kept }

// UseSample makes the kept pre-edge sample of cycle i (0 <= i < Samples())
// the one output ports read (Port.U64, Bit, Bytes), until the next call
// that runs cycles. It panics if there is no such sample.
func (s *Sim) UseSample(i int) {
	if i < 0 || i >= s.kept || s.out == nil {
		panic(fmt.Sprintf("vpi: UseSample(%d) with %d samples kept", i, s.kept))
	}
	n := len(s.out)
	copy(s.out, s.samples[i*n:(i+1)*n])
}

// Sample returns the kept pre-edge sample of cycle i (0 <= i < Samples())
// in place, for Port.U64In, BitIn and BytesIn: a view, valid until the next
// call that runs cycles. Unlike UseSample it copies nothing. It panics if
// there is no such sample.
func (s *Sim) Sample(i int) []byte {
	if i < 0 || i >= s.kept || s.out == nil {
		panic(fmt.Sprintf("vpi: Sample(%d) with %d samples kept", i, s.kept))
	}
	n := len(s.out)
	return s.samples[i*n : (i+1)*n : (i+1)*n]
}

// LastSample returns the output ports' current sample in place, for the
// same readers as Sample.
func (s *Sim) LastSample() []byte { return s.out }

// runFrames runs up to max cycles from the staged frames until any of
// conds holds, and drops the frames; with mem, through the line memory
// (LineMem.Run), with or without frames.
func (s *Sim) runFrames(conds []C.vm_cond, max int, mem bool) C.vm_result {
	frames, in, out := s.staged, len(s.in), len(s.out)
	if len(s.samples) < frames*out {
		s.samples = make([]byte, frames*out*2)
	}
	var first *C.vm_cond
	if len(conds) > 0 {
		first = &conds[0]
	}
	var pin, pout *C.uint8_t
	if frames > 0 && in > 0 {
		pin = (*C.uint8_t)(unsafe.Pointer(&s.frames[0]))
	}
	if frames > 0 && out > 0 {
		pout = (*C.uint8_t)(unsafe.Pointer(&s.samples[0]))
	}
	t0 := s.clock()
	var r C.vm_result
	if mem {
		r = C.call_mem_run(s.lib, first, C.int32_t(len(conds)), C.uint64_t(max),
			pin, C.uint32_t(in), pout, C.uint32_t(out), C.uint64_t(frames))
	} else {
		r = C.call_run_frames(s.lib, first, C.int32_t(len(conds)), C.uint64_t(max),
			pin, C.uint32_t(in), pout, C.uint32_t(out), C.uint64_t(frames))
	}
	s.clocked(t0)
	if r.status != C.VM_ETHREAD { // a refused call from another thread must not write s
		s.staged, s.kept = 0, min(int(r.cycles), frames)
	}
	return r
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TimeCalls turns on or off the timing of the calls that run cycles and
// zeroes CallTime. It costs two clock reads per call; benchmarks use it to
// split a harness's time between the simulator and the rest.
func (s *Sim) TimeCalls(on bool) { s.timing, s.callTime = on, 0 }

// CallTime is the wall time spent inside the calls that ran cycles (model
// evaluation, the shim, cgo entry and exit) since TimeCalls turned timing on.
func (s *Sim) CallTime() time.Duration { return s.callTime }

func (s *Sim) clock() time.Time {
	if !s.timing {
		return time.Time{}
	}
	return time.Now()
}

func (s *Sim) clocked(t0 time.Time) {
	if s.timing {
		s.callTime += time.Since(t0)
	}
}

// Cycles returns the cycles completed since Open.
func (s *Sim) Cycles() uint64 { return s.cycles }

// Calls returns how many calls into the shim ran cycles since Open (Cycle,
// RunUntil and RunUntilAny calls that ran at least one): each crossed cgo
// once.
func (s *Sim) Calls() uint64 { return s.calls }

// TraceOn starts an FST trace of every signal into path, replacing any
// trace in progress; values are dumped at each evaluation.
func (s *Sim) TraceOn(path string) error {
	op := fmt.Sprintf("trace %s", path)
	if s.closed {
		return &Error{Op: op, Err: ErrClosed}
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	if rc := C.call_trace_on(s.lib, cpath); rc != C.VM_OK {
		return s.err(rc, op)
	}
	return nil
}

// TraceOff closes the trace, if any. Close also closes it.
func (s *Sim) TraceOff() error {
	if s.closed {
		return &Error{Op: "trace off", Err: ErrClosed}
	}
	if rc := C.call_trace_off(s.lib); rc != C.VM_OK {
		return s.err(rc, "trace off")
	}
	return nil
}

// WriteCoverage writes the coverage database (read it with
// verilator_coverage) to path. It fails with ErrUnsupported if the library
// was built without --coverage in VPI_FLAGS.
func (s *Sim) WriteCoverage(path string) error {
	op := fmt.Sprintf("coverage %s", path)
	if s.closed {
		return &Error{Op: op, Err: ErrClosed}
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	if rc := C.call_coverage_write(s.lib, cpath); rc != C.VM_OK {
		return s.err(rc, op)
	}
	return nil
}

// err turns a shim status into an *Error for op.
func (s *Sim) err(rc C.int32_t, op string) error {
	e := &Error{Op: op}
	switch rc {
	case C.VM_ENOTFOUND:
		e.Err = ErrNotFound
	case C.VM_EREADONLY:
		e.Err = ErrReadOnly
	case C.VM_ETHREAD:
		// The message lives in the calling thread's slot; say it from here.
		e.Err = ErrWrongThread
		return e
	case C.VM_ENOTOPEN:
		e.Err = ErrClosed
	case C.VM_EFINISHED:
		e.Err = ErrFinished
	case C.VM_EUNSUPPORTED:
		e.Err = ErrUnsupported
	case C.VM_EIO:
		e.Err = ErrIO
	case C.VM_EOPEN:
		e.Err = ErrOpen
	default:
		e.Err = ErrInvalid
	}
	e.Detail = C.GoString(C.call_error(s.lib))
	return e
}
