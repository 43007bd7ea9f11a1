package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/golden"
	"arcalis/internal/memcached"
	"arcalis/vectors"
)

// MaxFrame is the longest request accepted, framed or not: Apache Thrift's
// DEFAULT_MAX_FRAME_SIZE (16,384,000 bytes), which is also the engine's
// MSG_TOO_LARGE limit (golden.MaxMessage). A longer frame is refused from
// its length word, before any of it is read or allocated.
const MaxFrame = golden.MaxMessage

// Transports.
const (
	Framed   = "framed"   // a 4-byte big-endian length, then the message
	Buffered = "buffered" // the bare binary-protocol message
)

// fault is a request the server cannot answer with a reply of its method:
// what Apache's TSimpleServer does instead. reply, if not nil, is an
// EXCEPTION message to send first; close ends the connection.
type fault struct {
	err   error
	reply []byte
	close bool
}

func (f *fault) Error() string { return f.err.Error() }

// call is a request as the software stack decoded it.
type call struct {
	name   string
	typ    thrift.TMessageType
	seqid  int32
	method uint8 // golden.MethodSet, golden.MethodGet, or 0 for another name
	set    memcached.MemcachedServiceSetArgs
	get    memcached.MemcachedServiceGetArgs
}

// readCall reads one message with Apache's binary protocol and generated
// argument structs, as the generated processor does (Process): the header,
// then Set's or Get's arguments, or for another name the struct skipped.
// A failure is a *fault with what Apache's TSimpleServer does for it:
//
//   - an unreadable header: the connection is closed, no reply;
//   - an unknown method: an UNKNOWN_METHOD exception, and the connection
//     stays open (the skip's own error is ignored, as Apache ignores it);
//   - unreadable Set or Get arguments: a PROTOCOL_ERROR exception, then the
//     connection is closed.
func readCall(p thrift.TProtocol, framed bool) (call, error) {
	ctx := context.Background()
	var c call
	var err error
	c.name, c.typ, c.seqid, err = p.ReadMessageBegin(ctx)
	if err != nil {
		return c, &fault{err: fmt.Errorf("unreadable message header: %w", err), close: true}
	}
	switch c.name {
	case "Set":
		c.method, err = golden.MethodSet, c.set.Read(ctx, p)
	case "Get":
		c.method, err = golden.MethodGet, c.get.Read(ctx, p)
	default:
		_ = p.Skip(ctx, thrift.STRUCT)
		_ = p.ReadMessageEnd(ctx)
		x := thrift.NewTApplicationException(thrift.UNKNOWN_METHOD, "Unknown function "+c.name)
		return c, &fault{err: fmt.Errorf("unknown method %q (seqid %d)", c.name, c.seqid), reply: exception(c.name, c.seqid, x, framed)}
	}
	if err != nil {
		x := thrift.NewTApplicationException(thrift.PROTOCOL_ERROR, err.Error())
		return c, &fault{err: fmt.Errorf("unreadable %s arguments (seqid %d): %w", c.name, c.seqid, err), reply: exception(c.name, c.seqid, x, framed), close: true}
	}
	_ = p.ReadMessageEnd(ctx)
	return c, nil
}

// decode is the software stack's decoding of a whole message (readCall on
// its bytes).
func decode(msg []byte, framed bool) (call, error) {
	buf := thrift.NewTMemoryBuffer()
	buf.Buffer = bytes.NewBuffer(msg)
	return readCall(thrift.NewTBinaryProtocolConf(buf, protoConf), framed)
}

// protoConf is Apache's defaults (strict write, lenient read) with the
// message limit at MaxFrame.
var protoConf = &thrift.TConfiguration{MaxMessageSize: MaxFrame, MaxFrameSize: MaxFrame}

// exception serializes x as Apache's processor writes it: an EXCEPTION
// message named name with seqid, framed if the request was.
func exception(name string, seqid int32, x thrift.TApplicationException, framed bool) []byte {
	return apacheMessage(name, thrift.EXCEPTION, seqid, x, framed)
}

// apacheMessage is one message with body st as Apache's binary protocol
// writes it, framed or not.
func apacheMessage(name string, typ thrift.TMessageType, seqid int32, st thrift.TStruct, framed bool) []byte {
	buf := thrift.NewTMemoryBuffer()
	var t thrift.TTransport = buf
	if framed {
		t = thrift.NewTFramedTransportConf(buf, protoConf)
	}
	msg, _ := vectors.EncodeMessage(thrift.NewTBinaryProtocolConf(t, protoConf), buf, name, typ, seqid, st)
	return msg
}

// readFrame reads one framed request: its length, then that many bytes
// into a buffer that grows as they arrive (a length alone allocates
// nothing). io.EOF before the first byte is a clean end.
func readFrame(r *bufio.Reader) ([]byte, error) {
	var hdr [golden.FrameHeaderSize]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &fault{err: fmt.Errorf("frame length cut short after %d bytes", len(hdr)), close: true}
		}
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > MaxFrame {
		// Apache: "Incorrect frame size", a transport error that ends the connection.
		return nil, &fault{err: fmt.Errorf("frame length %d is over the limit of %d bytes", n, MaxFrame), close: true}
	}
	var msg bytes.Buffer
	if got, err := io.CopyN(&msg, r, int64(n)); err != nil {
		return nil, &fault{err: fmt.Errorf("frame of %d bytes cut short after %d: %v", n, got, err), close: true}
	}
	return msg.Bytes(), nil
}

// readBuffered reads one unframed request: readCall over the connection,
// recording the bytes it consumes, which are the message. The limit is
// MaxFrame here too.
func readBuffered(r *bufio.Reader) ([]byte, error) {
	if _, err := r.Peek(1); err != nil {
		return nil, err // io.EOF: the client closed between requests
	}
	// A first word that is not a strict version is a non-strict header's
	// name length: Apache's reader waits for that many bytes, whatever
	// their number. Over the limit it is refused here, unread.
	if w, err := r.Peek(4); err == nil {
		if n := int32(binary.BigEndian.Uint32(w)); n > MaxFrame-4 {
			return nil, &fault{err: fmt.Errorf("unframed message: non-strict name length %d is over the limit of %d bytes", n, MaxFrame), close: true}
		}
	}
	t := &recorder{r: r}
	if _, err := readCall(thrift.NewTBinaryProtocolConf(t, protoConf), false); err != nil {
		if t.err != nil {
			return nil, &fault{err: t.err, close: true}
		}
		return nil, err
	}
	return t.rec, nil
}

// recorder is a read-only TTransport over the connection's reader that
// keeps every byte read: it never reads ahead, so what it recorded when
// the protocol is done is exactly one message.
type recorder struct {
	r   *bufio.Reader
	rec []byte
	err error
}

var errTooLong = fmt.Errorf("unframed message longer than %d bytes", MaxFrame)

func (t *recorder) Read(p []byte) (int, error) {
	if room := MaxFrame - len(t.rec); len(p) > room {
		if room == 0 {
			t.err = errTooLong
			return 0, t.err
		}
		p = p[:room]
	}
	n, err := t.r.Read(p)
	t.rec = append(t.rec, p[:n]...)
	return n, err
}

func (t *recorder) Write([]byte) (int, error)   { return 0, errors.New("recorder: read only") }
func (t *recorder) Close() error                { return nil }
func (t *recorder) Flush(context.Context) error { return nil }
func (t *recorder) Open() error                 { return nil }
func (t *recorder) IsOpen() bool                { return true }
func (t *recorder) RemainingBytes() uint64      { return ^uint64(0) } // unknown

// apacheGetReply is Get's REPLY as the generated processor writes it.
func apacheGetReply(seqid int32, value []byte, framed bool) []byte {
	return apacheMessage("Get", thrift.REPLY, seqid, &memcached.MemcachedServiceGetResult{Success: value}, framed)
}
