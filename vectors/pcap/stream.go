package pcap

import (
	"encoding/binary"
	"fmt"
	"sort"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/reassembly"
)

// conn is one TCP connection: the assembler's Stream, with one half per
// direction.
type conn struct {
	x    *extractor
	half [2]*half
}

func dirIndex(d reassembly.TCPFlowDirection) int {
	if d == reassembly.TCPDirClientToServer {
		return 0
	}
	return 1
}

// Accept takes every segment, and notes the packet that carried each
// payload byte range and the initial sequence number.
func (c *conn) Accept(tcp *layers.TCP, ci gopacket.CaptureInfo, dir reassembly.TCPFlowDirection, _ reassembly.Sequence, _ *bool, ac reassembly.AssemblerContext) bool {
	h := c.half[dirIndex(dir)]
	seq := reassembly.Sequence(tcp.Seq)
	if tcp.SYN && !h.haveSYN {
		h.isn, h.haveSYN = seq, true
	}
	if len(tcp.Payload) > 0 && !h.done {
		num := 0
		if pc, ok := ac.(*pktContext); ok {
			num = pc.num
		}
		h.segs = append(h.segs, segment{seq: seq, n: len(tcp.Payload), num: num, ts: ci.Timestamp})
		if !h.started && (!h.haveMin || seqDiff(h.minSeq, seq) < 0) {
			h.minSeq, h.haveMin = seq, true
		}
	}
	return true
}

// ReassembledSG takes the next bytes of one direction, in stream order.
func (c *conn) ReassembledSG(sg reassembly.ScatterGather, _ reassembly.AssemblerContext) {
	dir, start, end, skip := sg.Info()
	h := c.half[dirIndex(dir)]
	if h.done {
		return
	}
	n, _ := sg.Lengths()
	if !h.started && (n > 0 || start) {
		h.started = true
		if start && h.haveSYN {
			h.bufSeq = h.isn.Add(1) // the SYN takes one sequence number
			h.synced = true
		} else {
			// The capture began inside the stream: the assembler starts at
			// the lowest sequence number it was given.
			h.bufSeq = h.minSeq
			h.synced = false
			h.lost = StartedBefore
		}
	} else if skip > 0 {
		h.gap(skip)
	}
	if n > 0 {
		if h.id < 0 {
			h.id = c.x.halves
			c.x.halves++
			c.x.stats.Streams++
		}
		h.buf = append(h.buf, sg.Fetch(n)...)
		h.process(false)
	}
	if end {
		h.finish()
	}
}

// ReassemblyComplete is called when both directions have ended.
func (c *conn) ReassemblyComplete(reassembly.AssemblerContext) bool {
	for _, h := range c.half {
		h.finish()
	}
	return true
}

// seqDiff is b - a in TCP sequence-number arithmetic (RFC 1982).
// (google/gopacket's reassembly.Sequence.Difference was off by one across
// the wrap; this one does not depend on the library's.)
func seqDiff(a, b reassembly.Sequence) int {
	return int(int32(uint32(b) - uint32(a)))
}

// segment is a TCP payload as captured: its sequence range and its packet.
type segment struct {
	seq reassembly.Sequence
	n   int
	num int
	ts  time.Time
}

type mode int

const (
	modeUnknown mode = iota
	modeFramed
	modeBuffered
	modeDead // not Thrift: the rest of the direction is dropped
)

// half is one direction of a connection: its bytes, how far they have been
// cut into messages, and the packets that carried them.
type half struct {
	x    *extractor
	flow string
	id   int // order among the directions that carried data; -1 before the first byte

	isn     reassembly.Sequence // sequence number of the SYN
	haveSYN bool
	minSeq  reassembly.Sequence // lowest payload sequence number seen before the first delivery
	haveMin bool
	started bool

	segs []segment // payload segments not yet wholly consumed

	buf    []byte              // bytes received, not yet cut into messages
	bufSeq reassembly.Sequence // sequence number of buf[0]
	bufOff int64               // stream offset of buf[0]

	mode     mode
	synced   bool   // buf[0] is where a message (or frame) starts
	lost     Reason // while not synced: why (Gap or StartedBefore)
	lostOnce bool   // StartedBefore has been counted for this direction
	skipLeft int64  // bytes of an oversized frame still to drop
	retryAt  int    // buffered: parse again only once buf holds this many bytes
	lastDone int    // largest Completed so far, to keep stream order
	done     bool
}

func newHalf(x *extractor, flow string) *half {
	return &half{x: x, flow: flow, id: -1}
}

func (h *half) transportName() string {
	if h.mode == modeFramed {
		return "framed"
	}
	return "buffered"
}

// drop discards the first n bytes of buf; bytes dropped while not synced
// (or in a dead stream) are added to the loss of their reason.
func (h *half) drop(n int) {
	switch {
	case h.mode == modeDead:
		h.x.stats.LostBytes[NotThrift] += int64(n)
	case !h.synced:
		if h.lost == StartedBefore && !h.lostOnce && n > 0 {
			h.lostOnce = true
			h.x.stats.lose(StartedBefore, 0, "%s: %d bytes before the first message start", h.flow, n)
		}
		h.x.stats.LostBytes[h.lost] += int64(n)
	}
	h.consume(n)
}

// advance moves past n bytes that were never captured.
func (h *half) advance(n int) {
	h.bufSeq = h.bufSeq.Add(n)
	h.bufOff += int64(n)
}

// gap handles skip bytes missing before the next delivery.
func (h *half) gap(skip int) {
	if h.skipLeft >= int64(skip) && len(h.buf) == 0 {
		// The hole is inside an oversized frame being dropped anyway.
		h.skipLeft -= int64(skip)
		h.advance(skip)
		return
	}
	if h.mode == modeDead {
		h.advance(skip)
		return
	}
	h.x.stats.lose(Gap, int64(skip), "%s: %d bytes missing at stream offset %d", h.flow, skip, h.bufOff+int64(len(h.buf)))
	h.lost, h.synced = Gap, false
	h.skipLeft = 0
	h.drop(len(h.buf))
	h.advance(skip)
	h.retryAt = 0
}

// dead gives up on a direction that is not Thrift.
func (h *half) dead(format string, args ...any) {
	h.x.stats.lose(NotThrift, 0, "%s: %s", h.flow, fmt.Sprintf(format, args...))
	h.mode = modeDead
	h.drop(len(h.buf))
}

// process cuts every complete message out of buf. final is set when no more
// bytes will come.
func (h *half) process(final bool) {
	for len(h.buf) > 0 {
		if h.skipLeft > 0 {
			k := int(min(h.skipLeft, int64(len(h.buf))))
			h.skipLeft -= int64(k)
			h.x.stats.LostBytes[TooLarge] += int64(k)
			h.buf = h.buf[k:]
			h.bufSeq = h.bufSeq.Add(k)
			h.bufOff += int64(k)
			h.trimSegs()
			continue
		}
		if h.mode == modeDead {
			h.drop(len(h.buf))
			return
		}
		if !h.synced && !h.resync() {
			return
		}
		if !h.cut(final) {
			return
		}
	}
}

// cut cuts one message (or frame) at buf[0], where one starts. It returns
// false when buf does not hold all of it yet.
func (h *half) cut(final bool) bool {
	if h.mode == modeUnknown {
		framed, buffered, more := transportOf(h.buf)
		switch {
		case more:
			return false
		case framed:
			h.mode = modeFramed
		case buffered:
			h.mode = modeBuffered
		default:
			h.dead("stream starts % x, neither a Thrift message nor a frame length then one", h.buf[:min(len(h.buf), 8)])
			return true
		}
		h.x.stats.Transports[h.transportName()]++
	}
	if h.mode == modeFramed {
		return h.frame()
	}
	return h.buffered(final)
}

// frame cuts one frame: a length word, then that many bytes of message.
func (h *half) frame() bool {
	if len(h.buf) < frameHeader {
		return false
	}
	l := int32(binary.BigEndian.Uint32(h.buf))
	switch {
	case l <= 0:
		h.dead("frame length %d at stream offset %d", l, h.bufOff)
		return true
	case l > maxFrame:
		h.x.stats.lose(TooLarge, frameHeader, "%s: frame of %d bytes at stream offset %d", h.flow, l, h.bufOff)
		h.buf = h.buf[frameHeader:]
		h.bufSeq = h.bufSeq.Add(frameHeader)
		h.bufOff += frameHeader
		h.skipLeft = int64(l)
		return true
	}
	n := frameHeader + int(l)
	if len(h.buf) < n {
		return false
	}
	payload := h.buf[frameHeader:n]
	p, _ := protocolOf(payload)
	size, hdr, err := 0, header{}, error(nil)
	if p != protoUnknown {
		size, hdr, err = parseMessage(payload, p)
	}
	switch {
	case p == protoUnknown:
		h.x.stats.lose(NotThrift, int64(n), "%s: frame at stream offset %d starts % x", h.flow, h.bufOff, payload[:min(len(payload), 8)])
	case err != nil || size != len(payload):
		reason := "message ends before the frame does"
		if err != nil {
			reason = err.Error()
		}
		h.x.stats.lose(NotThrift, int64(n), "%s: frame at stream offset %d is not one Thrift message: %s", h.flow, h.bufOff, reason)
	case p == protoCompact:
		h.x.stats.lose(Compact, int64(n), "%s: compact %s %q at stream offset %d", h.flow, TypeName(hdr.typ), hdr.name, h.bufOff)
	case !knownType(hdr.typ):
		h.x.stats.lose(NotThrift, int64(n), "%s: frame at stream offset %d has message type %d", h.flow, h.bufOff, hdr.typ)
	default:
		h.emit(n, payload, hdr)
	}
	h.consume(n)
	return true
}

// buffered cuts one message that is not framed.
func (h *half) buffered(final bool) bool {
	if !final && len(h.buf) < h.retryAt {
		return false
	}
	p, more := protocolOf(h.buf)
	if more {
		return false
	}
	if p == protoUnknown {
		h.dead("bytes at stream offset %d start % x, not a Thrift message", h.bufOff, h.buf[:min(len(h.buf), 8)])
		return true
	}
	n, hdr, err := parseMessage(h.buf, p)
	if err == errNeedMore {
		if len(h.buf) > maxFrame {
			h.x.stats.lose(TooLarge, 0, "%s: buffered message at stream offset %d is over %d bytes", h.flow, h.bufOff, maxFrame)
			h.mode = modeDead // its end cannot be kept track of without keeping it
			h.x.stats.LostBytes[TooLarge] += int64(len(h.buf))
			h.buf = nil
			return false
		}
		// Parse again only when the bytes have doubled (or at the end):
		// that bounds the work on a message that comes in many segments.
		h.retryAt = 2 * len(h.buf)
		return false
	}
	h.retryAt = 0
	switch {
	case err != nil:
		h.dead("message at stream offset %d: %v", h.bufOff, err)
		return true
	case p == protoCompact:
		h.x.stats.lose(Compact, int64(n), "%s: compact %s %q at stream offset %d", h.flow, TypeName(hdr.typ), hdr.name, h.bufOff)
	case !knownType(hdr.typ):
		h.dead("message at stream offset %d has message type %d", h.bufOff, hdr.typ)
		return true
	case n > maxFrame:
		h.x.stats.lose(TooLarge, int64(n), "%s: buffered message of %d bytes at stream offset %d", h.flow, n, h.bufOff)
	default:
		h.emit(n, h.buf[:n], hdr)
	}
	h.consume(n)
	return true
}

// consume drops n bytes that were accounted for.
func (h *half) consume(n int) {
	h.buf = h.buf[n:]
	h.bufSeq = h.bufSeq.Add(n)
	h.bufOff += int64(n)
	if len(h.buf) == 0 {
		h.buf = nil
	}
	h.trimSegs()
}

// resync looks for the next message start after a gap (or when the capture
// began inside the stream). Candidates are the starts of captured segments:
// writers send each message from its start, so a message start is the start
// of a segment. A candidate must hold a whole message, framed or buffered as
// the stream is, that Apache's reader reads exactly and whose header is
// plausible. It returns false if buf holds no start yet.
func (h *half) resync() bool {
	var cands []int
	for _, s := range h.segs {
		if off := seqDiff(h.bufSeq, s.seq); off >= 0 && off < len(h.buf) {
			cands = append(cands, off)
		}
	}
	sort.Ints(cands)
	prev := -1
	for _, off := range cands {
		if off == prev {
			continue
		}
		prev = off
		m, more := startsMessage(h.buf[off:], h.mode)
		if more {
			h.drop(off) // wait here for the rest
			return false
		}
		if m != modeUnknown {
			h.drop(off)
			if h.mode == modeUnknown {
				h.mode = m
				h.x.stats.Transports[h.transportName()]++
			}
			h.synced = true
			return true
		}
	}
	h.drop(len(h.buf))
	return false
}

// startsMessage reports whether b starts with a whole message in a stream
// of mode m (either transport if m is modeUnknown), and which transport.
func startsMessage(b []byte, m mode) (found mode, more bool) {
	if m != modeBuffered && len(b) >= frameHeader {
		l := int32(binary.BigEndian.Uint32(b))
		if l > 0 && l <= maxFrame && len(b) > frameHeader && b[frameHeader] == binaryFirst {
			if len(b) < frameHeader+int(l) {
				return modeUnknown, true
			}
			n, hdr, err := parseMessage(b[frameHeader:frameHeader+int(l)], protoBinary)
			if err == nil && n == int(l) && plausible(hdr) {
				return modeFramed, false
			}
		}
	}
	if m != modeFramed && len(b) > 0 && b[0] == binaryFirst {
		_, hdr, err := parseMessage(b, protoBinary)
		if err == errNeedMore {
			return modeUnknown, len(b) <= maxFrame
		}
		if err == nil && plausible(hdr) {
			return modeBuffered, false
		}
	}
	return modeUnknown, false
}

// emit records a message whose frame (or, buffered, the message itself)
// is buf[:n]; msg is the message without framing.
func (h *half) emit(n int, msg []byte, hdr header) {
	pkts, completed, ts := h.packetsFor(h.bufSeq, n)
	if completed < h.lastDone {
		completed = h.lastDone // stream order: never before the message before it
	}
	h.lastDone = completed
	m := Message{
		Flow: h.flow, Transport: h.transportName(), Type: hdr.typ, Method: hdr.name, SeqID: hdr.seqid,
		Packets: pkts, Completed: completed, Time: ts, Offset: h.bufOff,
		Msg: append([]byte(nil), msg...),
	}
	h.x.emit(m, msgOrder{completed: completed, half: h.id, offset: h.bufOff})
}

// packetsFor returns the packets whose payload overlaps [seq, seq+n), the
// packet with which the range was first wholly covered, and its time.
func (h *half) packetsFor(seq reassembly.Sequence, n int) ([]int, int, time.Time) {
	type span struct{ lo, hi int }
	var covered []span // disjoint, sorted
	var nums []int
	completed, ts := 0, time.Time{}
	for _, s := range h.segs { // in capture order
		lo := seqDiff(seq, s.seq)
		hi := lo + s.n
		if hi <= 0 || lo >= n {
			continue
		}
		nums = append(nums, s.num)
		if completed != 0 {
			continue
		}
		lo, hi = max(lo, 0), min(hi, n)
		// merge [lo, hi) into covered
		var out []span
		for _, c := range covered {
			if c.hi < lo || c.lo > hi {
				out = append(out, c)
				continue
			}
			lo, hi = min(lo, c.lo), max(hi, c.hi)
		}
		out = append(out, span{lo, hi})
		sort.Slice(out, func(i, j int) bool { return out[i].lo < out[j].lo })
		covered = out
		if len(covered) == 1 && covered[0].lo == 0 && covered[0].hi == n {
			completed, ts = s.num, s.ts
		}
	}
	sort.Ints(nums)
	return nums, completed, ts
}

// trimSegs forgets segments wholly before buf, once they are many.
func (h *half) trimSegs() {
	if len(h.segs) < 64 {
		return
	}
	keep := h.segs[:0]
	for _, s := range h.segs {
		if seqDiff(h.bufSeq, s.seq)+s.n > 0 {
			keep = append(keep, s)
		}
	}
	h.segs = keep
}

// finish ends the direction: a message still incomplete is cut off.
func (h *half) finish() {
	if h.done {
		return
	}
	h.process(true)
	switch {
	case len(h.buf) == 0 || h.mode == modeDead:
	case !h.synced:
		h.drop(len(h.buf))
	case h.mode == modeUnknown && !couldStart(h.buf):
		h.dead("%d bytes % x, not a Thrift message", len(h.buf), h.buf[:min(len(h.buf), 8)])
	default:
		h.x.stats.lose(CutOff, int64(len(h.buf)), "%s: %d bytes of a message at stream offset %d, then the stream ends", h.flow, len(h.buf), h.bufOff)
	}
	h.done = true
	h.buf, h.segs = nil, nil
}

// couldStart reports whether a few bytes at a stream's start could begin a
// Thrift message or frame.
func couldStart(b []byte) bool {
	return b[0] == binaryFirst || b[0] == compactFirst || b[0] == 0
}
