package vpi

/*
#include "loader.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// Line memory geometry (shim.h VM_MEM_*).
const (
	MemLine  = C.VM_MEM_LINE
	MemPage  = C.VM_MEM_PAGE
	MemQueue = C.VM_MEM_QUEUE
	MemLog   = C.VM_MEM_LOG
)

// LineMemPorts names the ports of a design's cache-line memory interface
// for AttachLineMem: inputs registered with Sim.Input, outputs with
// Sim.Output; valid, ready and err ports 1 bit wide, data ports MemLine
// bytes, the others at most 64 bits. Watch, if set, are outputs whose
// value (low 64 bits) Run logs on its first cycle and whenever it changes.
type LineMemPorts struct {
	LdReqReady, LdRspValid, LdRspTag, LdRspData, LdRspErr *Port
	StReqReady, StAckValid, StAckTag                      *Port
	LdReqValid, LdReqAddr, LdReqTag                       *Port
	StReqValid, StReqAddr, StReqTag, StReqData, StReqStrb *Port
	Watch                                                 [2]*Port
}

// MemLoad is a load answer waiting in the line memory: due is the edge
// that drives it (edges counted like Sim.Cycles, the next is Cycles()+1).
type MemLoad struct {
	Due, Tag uint64
	Data     [MemLine]byte
}

// MemAck is a store acknowledgement waiting.
type MemAck struct{ Due, Tag uint64 }

// MemEventKind is what a MemEvent records (shim.h VM_MEM_LOAD...).
type MemEventKind uint32

const (
	MemLoadTaken  MemEventKind = C.VM_MEM_LOAD        // Addr, Tag
	MemStoreTaken MemEventKind = C.VM_MEM_STORE       // Addr, Tag, Strb; its bytes are written
	MemLoadAnswer MemEventKind = C.VM_MEM_LOAD_ANSWER // Tag
	MemAckAnswer  MemEventKind = C.VM_MEM_ACK         // Tag
	MemWatch0     MemEventKind = C.VM_MEM_WATCH0      // Addr: Watch[0]'s value before the edge
	MemWatch1     MemEventKind = C.VM_MEM_WATCH1      // Addr: Watch[1]'s
)

// MemEvent is one entry of the line memory's log: what happened at Edge
// (numbered like Sim.Cycles).
type MemEvent struct {
	Edge, Addr, Tag, Strb uint64
	Kind                  MemEventKind
	_                     uint32
}

// LineMemState is shim.h's vm_mem_state, laid out alike (checked when the
// package compiles: see the end of this file): the line memory's state in
// the shim's memory, which the caller reads and writes between calls.
type LineMemState struct {
	Delay      uint64 // edges from the edge that takes a request to the one that answers it
	LdLo, LdHi uint64 // the lines [LdLo, LdHi) loads may be taken from
	StLo, StHi uint64 // and stores to
	StoreFirst uint32 // a load and a store of one edge: the load reads after the store wrote
	NLoads     uint32 // the answers waiting, oldest first
	NAcks      uint32
	Loads      [MemQueue]MemLoad
	Acks       [MemQueue]MemAck

	Tail uint64 // set by Run: how many of its frames are the tail

	// Set by Run: the cycles it ran up to the one whose condition held,
	// that one included (0: none held); and about its last cycle.
	Stop    uint64
	Handoff uint32 // its edge transferred a request left to the caller
	Busy    uint32 // its edge transferred a load or a store

	NLog uint32 // set by Run: Log[:NLog] is what it did, in order
	_    uint32
	Log  [MemLog]MemEvent
}

// Events returns the log of the last Run, in place (valid until the next).
func (st *LineMemState) Events() []MemEvent { return st.Log[:st.NLog] }

// LineMem is a memory on a design's cache-line ports that the shim answers
// itself, so that one call runs whole stretches of cycles with memory
// traffic in them (shim.h, vm_mem_*). It is mechanism only: both request
// ports always ready, each answer Delay edges after the edge that took its
// request, in order, never an error; loads read and stores write the
// mapped pages at the edge that takes them; every request, answer and
// change of a Watch port is logged (State.Events) for the caller to judge.
// A request outside its window, not line aligned, on a page not mapped or
// with its queue full ends Run after its cycle, untaken (Handoff), for the
// caller to take.
type LineMem struct {
	s     *Sim
	State *LineMemState
	pins  runtime.Pinner // the mapped pages, until Close
}

// AttachLineMem attaches the line memory to the model's ports; the state
// starts zeroed, with no pages. One per Sim: attaching again replaces the
// ports and keeps the state and the pages.
func (s *Sim) AttachLineMem(p LineMemPorts) (*LineMem, error) {
	const op = "attach line memory"
	if s.closed {
		return nil, &Error{Op: op, Err: ErrClosed}
	}
	var cp C.vm_mem_ports
	for _, f := range []struct {
		p     *Port
		input bool
		dst   *C.int32_t
	}{
		{p.LdReqReady, true, &cp.ld_req_ready}, {p.LdRspValid, true, &cp.ld_rsp_valid},
		{p.LdRspTag, true, &cp.ld_rsp_tag}, {p.LdRspData, true, &cp.ld_rsp_data},
		{p.LdRspErr, true, &cp.ld_rsp_err}, {p.StReqReady, true, &cp.st_req_ready},
		{p.StAckValid, true, &cp.st_ack_valid}, {p.StAckTag, true, &cp.st_ack_tag},
		{p.LdReqValid, false, &cp.ld_req_valid}, {p.LdReqAddr, false, &cp.ld_req_addr},
		{p.LdReqTag, false, &cp.ld_req_tag}, {p.StReqValid, false, &cp.st_req_valid},
		{p.StReqAddr, false, &cp.st_req_addr}, {p.StReqTag, false, &cp.st_req_tag},
		{p.StReqData, false, &cp.st_req_data}, {p.StReqStrb, false, &cp.st_req_strb},
	} {
		if f.p == nil || f.p.s != s || f.p.input != f.input {
			return nil, &Error{Op: op, Err: ErrInvalid, Detail: fmt.Sprintf("port %v: missing, of another Sim or of the wrong direction", f.p)}
		}
		*f.dst = f.p.index
	}
	for k, c := range p.Watch {
		cp.watch[k] = -1
		if c != nil {
			if c.s != s || c.input {
				return nil, &Error{Op: op, Err: ErrInvalid, Detail: fmt.Sprintf("watch port %v: not an output of this Sim", c)}
			}
			cp.watch[k] = c.index
		}
	}
	var st *C.vm_mem_state
	if rc := C.call_mem_attach(s.lib, &cp, &st); rc != C.VM_OK {
		return nil, s.err(rc, op)
	}
	if s.mem == nil {
		s.mem = &LineMem{s: s}
	}
	s.mem.State = (*LineMemState)(unsafe.Pointer(st))
	return s.mem, nil
}

// Map maps page number n (addresses n*MemPage on) to data, which stays
// pinned until Close: the line memory reads and writes it in place.
func (m *LineMem) Map(n uint64, data *[MemPage]byte) error {
	if m.s.closed {
		return &Error{Op: "map page", Err: ErrClosed}
	}
	m.pins.Pin(data)
	if rc := C.call_mem_map(m.s.lib, C.uint64_t(n), (*C.uint8_t)(unsafe.Pointer(&data[0]))); rc != C.VM_OK {
		return m.s.err(rc, "map page")
	}
	return nil
}

// Run runs up to max cycles like RunUntilAny (from the staged frames, if
// any), with the line memory driving its ports and taking the requests of
// every edge; it also stops after a cycle that hands off (State.Handoff).
// A frame's kept sample holds every output but the line memory's own
// request ports, which only the last cycle's sample holds.
//
// The last tail of the staged frames are a tail: what the caller would run
// next once a condition holds. The cycles before take the frames before
// it. When a condition holds (State.Stop) and no answer is waiting after
// that cycle's edge, Run goes on with one cycle per tail frame, checking
// no condition, and a tail cycle whose edge transfers any request hands it
// off and ends the call; max counts the cycles before the tail. The tail's
// samples are kept in their frames' places (Sample), and LastSample is the
// sample whose condition held. With a tail, Samples counts every frame,
// run or not: State.Stop and cycles say which ran.
func (m *LineMem) Run(conds []Cond, max, tail int) (cycles int, ok bool, err error) {
	const op = "line memory run"
	s := m.s
	switch {
	case s.closed:
		return 0, false, &Error{Op: op, Err: ErrClosed}
	case max < 0:
		return 0, false, &Error{Op: op, Err: ErrInvalid, Detail: "negative cycle budget"}
	case tail < 0 || tail > s.staged:
		return 0, false, &Error{Op: op, Err: ErrInvalid, Detail: fmt.Sprintf("a tail of %d frames, %d staged", tail, s.staged)}
	}
	if _, err := s.cConds(conds, op); err != nil {
		return 0, false, err
	}
	m.State.Tail = uint64(tail)
	frames := s.staged
	r := s.runFrames(s.conds, max, true)
	if tail > 0 && r.status != C.VM_ETHREAD {
		s.kept = frames
	}
	return s.untilResult(r, op)
}

// unpin lets the mapped pages go (Sim.Close, after the model is freed).
func (m *LineMem) unpin() { m.pins.Unpin() }

// LineMemState must be vm_mem_state field for field: each index below is 0
// when the two agree, and a compile error (out of range or overflow) when not.
var (
	goState LineMemState
	cState  C.vm_mem_state
	_       = [1]int{}[unsafe.Sizeof(goState)-unsafe.Sizeof(cState)]
	_       = [1]int{}[unsafe.Offsetof(goState.StoreFirst)-unsafe.Offsetof(cState.store_first)]
	_       = [1]int{}[unsafe.Offsetof(goState.Loads)-unsafe.Offsetof(cState.loads)]
	_       = [1]int{}[unsafe.Offsetof(goState.Acks)-unsafe.Offsetof(cState.acks)]
	_       = [1]int{}[unsafe.Offsetof(goState.Tail)-unsafe.Offsetof(cState.tail)]
	_       = [1]int{}[unsafe.Offsetof(goState.Handoff)-unsafe.Offsetof(cState.handoff)]
	_       = [1]int{}[unsafe.Offsetof(goState.Busy)-unsafe.Offsetof(cState.busy)]
	_       = [1]int{}[unsafe.Offsetof(goState.NLog)-unsafe.Offsetof(cState.nlog)]
	_       = [1]int{}[unsafe.Offsetof(goState.Log)-unsafe.Offsetof(cState.log)]
	_       = [1]int{}[unsafe.Sizeof(MemLoad{})-unsafe.Sizeof(C.vm_mem_load{})]
	_       = [1]int{}[unsafe.Sizeof(MemEvent{})-unsafe.Sizeof(C.vm_mem_event{})]
)
