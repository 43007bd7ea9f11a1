package vpi

/*
#include "loader.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"arcalis/vpi/internal/order"
)

// Pipe runs cycles on a thread of the shim's own, from input frames pushed
// ahead into a ring: the caller prepares later cycles while the model
// evaluates earlier ones, on another core, and no call crosses cgo per
// cycle. Each frame is a cycle's inputs, the input ports' values when Push
// was called; its pre-edge sample comes back through Wait. Frame numbers
// count from 0 at StartPipe.
//
// While frames are pushed and not run, the Sim's other calls that touch the
// model fail; Wait for the last frame, or Drop after a halt, first. Ports
// cannot be registered while the pipe exists. The Pipe belongs to the
// Sim's goroutine, like the Sim.
type Pipe struct {
	s                   *Sim
	ctl                 *C.vm_pipe
	in, out             []byte // the rings
	depth               uint64
	inStride, outStride int
	pushed              uint64 // frames pushed, as the pipe thread sees them
	done                uint64 // frames run, as last read
	counted             uint64 // frames run and counted in the Sim's cycles
}

// StartPipe starts the pipe thread with room for depth frames (a power of
// two, 2 to 4096) and a table of up to 32 conditions that each frame may
// select (Push's mask): the pipe halts after a frame whose sample meets any
// of its conditions. Before and From are ignored. Register every port first.
func (s *Sim) StartPipe(depth int, conds []Cond) (*Pipe, error) {
	const op = "start pipe"
	switch {
	case s.closed:
		return nil, &Error{Op: op, Err: ErrClosed}
	case s.pipe != nil:
		return nil, &Error{Op: op, Err: ErrInvalid, Detail: "the pipe is already running"}
	}
	cc, err := s.cConds(conds, op)
	if err != nil {
		return nil, err
	}
	var first *C.vm_cond
	if len(cc) > 0 {
		first = &cc[0]
	}
	var r C.vm_pipe_ring
	if rc := C.call_pipe_start(s.lib, C.uint32_t(depth), first, C.int32_t(len(cc)), &r); rc != C.VM_OK {
		return nil, s.err(rc, op)
	}
	p := &Pipe{
		s:         s,
		ctl:       r.ctl,
		depth:     uint64(r.depth),
		inStride:  int(r.in_stride),
		outStride: int(r.out_stride),
		in:        unsafe.Slice((*byte)(unsafe.Pointer(r.in)), int(r.depth)*int(r.in_stride)),
		out:       unsafe.Slice((*byte)(unsafe.Pointer(r.out)), int(r.depth)*int(r.out_stride)),
	}
	s.pipe = p
	return p, nil
}

// Stop ends the pipe thread, dropping any frames not run. Sim.Close stops
// it too.
func (p *Pipe) Stop() error {
	s := p.s
	if s.pipe != p {
		return nil
	}
	s.pipe = nil
	if s.closed {
		return nil
	}
	if rc := C.call_pipe_stop(s.lib); rc != C.VM_OK {
		return s.err(rc, "stop pipe")
	}
	return nil
}

// check panics if the pipe has stopped: its rings are gone.
func (p *Pipe) check() {
	if p.s.pipe != p {
		panic("vpi: Pipe used after Stop or Close")
	}
}

func (p *Pipe) pushedWord() *uint64  { return (*uint64)(unsafe.Pointer(&p.ctl.pushed)) }
func (p *Pipe) doneWord() *uint64    { return (*uint64)(unsafe.Pointer(&p.ctl.done)) }
func (p *Pipe) haltWord() *int32     { return (*int32)(unsafe.Pointer(&p.ctl.halt)) }
func (p *Pipe) haltedWord() *uint64  { return (*uint64)(unsafe.Pointer(&p.ctl.halted)) }
func (p *Pipe) sleepWord() *uint32   { return (*uint32)(unsafe.Pointer(&p.ctl.sleeping)) }
func (p *Pipe) wakeWord() *uint32    { return (*uint32)(unsafe.Pointer(&p.ctl.wake)) }
func (p *Pipe) slot(k uint64) uint64 { return k & (p.depth - 1) }

// Pushed returns how many frames have been pushed and not dropped.
func (p *Pipe) Pushed() uint64 { return p.pushed }

// Push appends the input ports' current values as the next frame, whose
// sample halts the pipe if it meets a condition selected by mask (bit j:
// the j-th condition of StartPipe). It waits while the ring is full.
func (p *Pipe) Push(mask uint32) {
	p.check()
	k := p.pushed
	for k-p.done >= p.depth {
		p.done = atomic.LoadUint64(p.doneWord())
		if k-p.done >= p.depth {
			p.pause()
		}
	}
	f := p.in[int(p.slot(k))*p.inStride:]
	n := copy(f, p.s.in)
	binary.LittleEndian.PutUint32(f[n:], mask)
	p.pushed = k + 1
	order.StoreRelease(p.pushedWord(), k+1)
	p.kick()
}

// kick wakes the pipe thread if it sleeps; it follows every change to
// pushed or halt (the shim's pipeWait has the other half).
func (p *Pipe) kick() {
	if atomic.LoadUint32(p.sleepWord()) != 0 {
		atomic.AddUint32(p.wakeWord(), 1)
		const futexWakePrivate = 1 | 128
		syscall.Syscall6(syscall.SYS_FUTEX, uintptr(unsafe.Pointer(p.wakeWord())), futexWakePrivate, 1, 0, 0, 0)
	}
}

// stallLimit is how long Wait waits for a frame before it reports the pipe
// stalled: a cycle of any model takes far less, so only a pipe thread that
// has died or a fault in the hand-over between the threads takes that
// long, and an error beats a run that never ends.
var stallLimit = time.Minute

// spins counts Wait's polls before it yields the core: a frame takes well
// under a microsecond, so a longer wait means the pipe thread is not
// running.
const spins = 1000

// pause yields the core while waiting for the pipe thread, after waking it
// if it sleeps: a kick right after a push may miss it (see kMaxSleep in
// the shim), one this late does not.
func (p *Pipe) pause() {
	p.kick()
	syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
}

// Wait waits until frame k has run and returns its pre-edge sample (a view
// of the ring, valid until depth more frames are pushed) and whether the
// pipe halted on it (a condition held). If the pipe halted earlier, or the
// design finished before frame k, it returns with ran false: the frames
// from the halt on will not run until Drop.
func (p *Pipe) Wait(k uint64) (sample []byte, ran, matched bool, err error) {
	p.check()
	if k >= p.pushed {
		panic(fmt.Sprintf("vpi: Pipe.Wait(%d) with %d frames pushed", k, p.pushed))
	}
	var since time.Time // when the wait stopped spinning
	for n := 0; p.done <= k; n++ {
		if p.done = atomic.LoadUint64(p.doneWord()); p.done > k {
			break
		}
		h := atomic.LoadInt32(p.haltWord())
		if h == C.VM_MATCHED {
			// The pipe thread sets halted and halt before done: frame k
			// may have run, its sample written, with done not yet seen.
			if atomic.LoadUint64(p.haltedWord()) > k {
				break
			}
			return nil, false, false, nil
		}
		if h != C.VM_OK {
			// done is written before a halt that runs nothing.
			if p.done = atomic.LoadUint64(p.doneWord()); p.done > k {
				break
			}
			return nil, false, false, p.halted(h)
		}
		if n >= spins {
			if since.IsZero() {
				since = time.Now()
			} else if time.Since(since) > stallLimit {
				return nil, false, false, &Error{Op: "pipe", Err: ErrStalled,
					Detail: fmt.Sprintf("frame %d of %d not run after %s (the pipe thread ran %d)", k, p.pushed, stallLimit, p.done)}
			}
			p.pause()
		}
	}
	if k >= p.counted {
		p.s.cycles += k + 1 - p.counted
		p.counted = k + 1
	}
	// Frame k's halt, if any, was written before done passed k; a later
	// frame's halt may be seen too, but not with halted == k+1.
	matched = atomic.LoadUint64(p.haltedWord()) == k+1 && atomic.LoadInt32(p.haltWord()) == C.VM_MATCHED
	return p.sample(k), true, matched, nil
}

// halted turns a halt that ran nothing into an error.
func (p *Pipe) halted(h int32) error {
	if h == C.VM_EFINISHED {
		return &Error{Op: "pipe", Err: ErrFinished, Detail: fmt.Sprintf("the design ran $finish or $stop (after frame %d); it will not advance", p.done)}
	}
	return &Error{Op: "pipe", Err: ErrInvalid, Detail: fmt.Sprintf("halt status %d", h)}
}

// Drop forgets the frames pushed and not run, and lets the pipe run again
// after a halt. Call it only once the pipe has halted or run every frame.
func (p *Pipe) Drop() {
	p.check()
	if atomic.LoadInt32(p.haltWord()) == C.VM_MATCHED {
		for atomic.LoadUint64(p.doneWord()) < atomic.LoadUint64(p.haltedWord()) {
			// done is on its way (see Wait)
		}
	}
	p.done = atomic.LoadUint64(p.doneWord())
	if atomic.LoadInt32(p.haltWord()) == C.VM_OK && p.done != p.pushed {
		panic(fmt.Sprintf("vpi: Pipe.Drop while running (frame %d of %d)", p.done, p.pushed))
	}
	if p.done > p.counted {
		p.s.cycles += p.done - p.counted
		p.counted = p.done
	}
	p.pushed = p.done
	atomic.StoreUint64(p.pushedWord(), p.done)
	atomic.StoreInt32(p.haltWord(), C.VM_OK)
	p.kick()
}

// Settle copies frame k's inputs and sample into the port buffers, as the
// Sim's own calls leave the last cycle they ran: the ports then read them
// and the next Cycle holds those inputs.
func (p *Pipe) Settle(k uint64) {
	p.check()
	copy(p.s.in, p.in[int(p.slot(k))*p.inStride:])
	copy(p.s.out, p.sample(k))
}

// sample is frame k's sample in the ring.
func (p *Pipe) sample(k uint64) []byte {
	i, n := int(p.slot(k))*p.outStride, len(p.s.out)
	return p.out[i : i+n : i+n]
}
