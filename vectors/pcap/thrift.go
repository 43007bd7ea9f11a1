package pcap

import (
	"context"
	"encoding/binary"
	"errors"
	"io"

	"github.com/apache/thrift/lib/go/thrift"
)

// protocol is a Thrift wire protocol.
type protocol int

const (
	protoUnknown protocol = iota
	protoBinary
	protoCompact
)

// Thrift framing: a strict binary-protocol header starts 0x80 0x01 (its
// first big-endian i32 is 0x8001_00mm, version 1 and message type mm), a
// compact-protocol one 0x82; the framed transport puts a big-endian i32
// length before each message, the message's bytes only, at most Apache's
// MaxFrameSize of 16,384,000.
const (
	binaryFirst  = 0x80
	compactFirst = 0x82
	frameHeader  = 4
	maxFrame     = 16_384_000 // Apache Thrift's default MaxFrameSize
	maxNameLen   = 255        // longest method name taken as an old-style (non-strict) header
)

// header is a message header as Apache's reader returns it.
type header struct {
	name  string
	typ   thrift.TMessageType
	seqid int32
}

// errNeedMore says the bytes end before the message does.
var errNeedMore = errors.New("message continues past the bytes seen so far")

// sliceTransport is a read-only Thrift transport over a byte slice that
// remembers whether a read ran past the end (the message needs more bytes)
// rather than failing on what it read.
type sliceTransport struct {
	b     []byte
	pos   int
	short bool
}

func (t *sliceTransport) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if t.pos >= len(t.b) {
		t.short = true
		return 0, io.EOF
	}
	n := copy(p, t.b[t.pos:])
	t.pos += n
	return n, nil
}

func (t *sliceTransport) ReadByte() (byte, error) {
	if t.pos >= len(t.b) {
		t.short = true
		return 0, io.EOF
	}
	t.pos++
	return t.b[t.pos-1], nil
}

var errReadOnly = errors.New("read-only transport")

func (t *sliceTransport) Write([]byte) (int, error)                { return 0, errReadOnly }
func (t *sliceTransport) WriteByte(byte) error                     { return errReadOnly }
func (t *sliceTransport) WriteString(string) (int, error)          { return 0, errReadOnly }
func (t *sliceTransport) Flush(context.Context) error              { return nil }
func (t *sliceTransport) RemainingBytes() uint64                   { return ^uint64(0) } // unknown: the stream goes on
func (t *sliceTransport) Open() error                              { return nil }
func (t *sliceTransport) IsOpen() bool                             { return true }
func (t *sliceTransport) Close() error                             { return nil }
func (t *sliceTransport) SetTConfiguration(*thrift.TConfiguration) {}

// parseMessage reads one message in protocol p from the start of b with
// Apache Thrift's Go library (ReadMessageBegin, Skip of the argument or
// result struct, ReadMessageEnd; default configuration, as an Apache server
// reads). It returns the message's length in bytes, or errNeedMore if b
// ends first, or the library's error if the bytes are not such a message.
func parseMessage(b []byte, p protocol) (int, header, error) {
	t := &sliceTransport{b: b}
	var prot thrift.TProtocol
	conf := &thrift.TConfiguration{}
	if p == protoCompact {
		prot = thrift.NewTCompactProtocolConf(t, conf)
	} else {
		prot = thrift.NewTBinaryProtocolConf(t, conf)
	}
	ctx := context.Background()
	var h header
	var err error
	h.name, h.typ, h.seqid, err = prot.ReadMessageBegin(ctx)
	if err == nil {
		err = prot.Skip(ctx, thrift.STRUCT)
	}
	if err == nil {
		err = prot.ReadMessageEnd(ctx)
	}
	switch {
	case err != nil && t.short:
		return 0, h, errNeedMore
	case err != nil:
		return 0, h, err
	}
	return t.pos, h, nil
}

// protocolOf tells from a message's first bytes which protocol it is in:
// a strict binary header, a compact header, or an old-style (non-strict)
// binary header (name length, a plausible name, a message type). more is
// true when b is too short to tell.
func protocolOf(b []byte) (p protocol, more bool) {
	if len(b) == 0 {
		return protoUnknown, true
	}
	switch b[0] {
	case binaryFirst:
		return protoBinary, false
	case compactFirst:
		return protoCompact, false
	}
	ok, more := oldStyle(b)
	if ok {
		return protoBinary, false
	}
	return protoUnknown, more
}

// oldStyle reports whether b starts with an old-style binary header: i32
// name length 1..255, that many identifier characters, a type byte 1..4.
func oldStyle(b []byte) (ok, more bool) {
	if len(b) < 4 {
		// A length of 1..255 has three zero bytes first.
		for _, c := range b[:min(len(b), 3)] {
			if c != 0 {
				return false, false
			}
		}
		return false, true
	}
	n := int(binary.BigEndian.Uint32(b))
	if n < 1 || n > maxNameLen {
		return false, false
	}
	for i := 4; i < 4+n; i++ {
		if i >= len(b) {
			return false, true
		}
		if !identChar(b[i]) {
			return false, false
		}
	}
	if len(b) < 4+n+1 {
		return false, true
	}
	t := b[4+n]
	return t >= 1 && t <= 4, false
}

func identChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == ':'
}

// knownType reports whether t is one of the four message types.
func knownType(t thrift.TMessageType) bool {
	return t >= thrift.CALL && t <= thrift.ONEWAY
}

// plausible is the stricter test a message found by resynchronising (after a
// gap, or in a stream whose start was not captured) must pass: a known type
// and a non-empty name of identifier characters.
func plausible(h header) bool {
	if !knownType(h.typ) || h.name == "" {
		return false
	}
	for i := 0; i < len(h.name); i++ {
		if !identChar(h.name[i]) {
			return false
		}
	}
	return true
}

// transportOf tells at the start of a stream whether its messages are
// framed (a length word, then a message header) or buffered (a header
// right away). more is true when b is too short to tell.
func transportOf(b []byte) (framed, buffered, more bool) {
	if len(b) == 0 {
		return false, false, true
	}
	if b[0] == binaryFirst || b[0] == compactFirst {
		return false, true, false
	}
	if ok, m := oldStyle(b); ok {
		return false, true, false
	} else if m {
		return false, false, true
	}
	if len(b) < frameHeader+1 {
		return false, false, true
	}
	if p, m := protocolOf(b[frameHeader:]); p != protoUnknown {
		return true, false, false
	} else if m {
		return false, false, true
	}
	return false, false, false
}
