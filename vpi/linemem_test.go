package vpi

import (
	"errors"
	"strings"
	"testing"
)

// TestAttachLineMemChecksPorts attaches the line memory to the counter's
// ports, each standing in for a port of its width and direction, then
// swaps in one port of the wrong kind at a time: each is refused with an
// error that names the port and what is wrong with it.
func TestAttachLineMemChecksPorts(t *testing.T) {
	s := openCounter(t)
	p := registerPorts(t, s)
	good := LineMemPorts{
		LdReqReady: p.en, LdRspValid: p.load, LdRspTag: p.tag, LdRspData: p.line, LdRspErr: p.rst,
		StReqReady: p.en, StAckValid: p.load, StAckTag: p.step,
		LdReqValid: p.hit, LdReqAddr: p.cycles, LdReqTag: p.tagOut,
		StReqValid: p.hit, StReqAddr: p.count, StReqTag: p.tagOut, StReqData: p.lineOut, StReqStrb: p.cycles,
		Watch: [2]*Port{p.tagOut, nil},
	}
	m, err := s.AttachLineMem(good)
	if err != nil {
		t.Fatalf("attaching to ports of the right kinds: %v", err)
	}
	if m.State == nil || m.State.NLoads != 0 || m.State.NAcks != 0 {
		t.Fatalf("a fresh line memory's state: %+v", m.State)
	}
	for _, tc := range []struct {
		name string
		set  func(*LineMemPorts)
		want string
	}{
		{"data not a line", func(q *LineMemPorts) { q.LdRspData = p.step }, "ld_rsp_data: not a cache line wide"},
		{"valid not a bit", func(q *LineMemPorts) { q.LdReqValid = p.count }, "ld_req_valid: not 1 bit wide"},
		{"address too wide", func(q *LineMemPorts) { q.StReqAddr = p.lineOut }, "st_req_addr: wider than 64 bits"},
		{"output for an input", func(q *LineMemPorts) { q.StAckValid = p.hit }, "wrong direction"},
		{"missing", func(q *LineMemPorts) { q.StReqStrb = nil }, "missing"},
		{"watch an input", func(q *LineMemPorts) { q.Watch[1] = p.en }, "watch port"},
	} {
		q := good
		tc.set(&q)
		_, err := s.AttachLineMem(q)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want ErrInvalid with %q", tc.name, err, tc.want)
		}
	}
	// A refused attach leaves the good one in place.
	if _, _, err := m.Run(nil, 3, 0); err != nil {
		t.Fatalf("running after refused attaches: %v", err)
	}
	if _, _, err := m.Run(nil, 3, 1); err == nil || !strings.Contains(err.Error(), "tail of 1 frames, 0 staged") {
		t.Errorf("a tail with no frames: error %v", err)
	}
}
