package schemasvc

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
	"arcalis/serve"
	"arcalis/thriftidl/schema"
	"arcalis/vectors"
)

// fault is a request answered without the RTL: what Apache's TSimpleServer
// with the generated processor does. reply, if not nil, is an EXCEPTION
// message to send first; close ends the connection.
type fault struct {
	err   error
	reply []byte
	close bool
}

func (f *fault) Error() string { return f.err.Error() }

// header is a message's header as Apache's TBinaryProtocol reads it
// (strict or not, as its default lenient reader), and where the args
// begin.
type header struct {
	name   string
	typ    thrift.TMessageType
	seqid  int32
	method int // index in the tables' methods
	start  int // the message offset of the args struct
}

// protoConf is Apache's defaults (strict write, lenient read) with the
// message limit at serve.MaxFrame.
var protoConf = &thrift.TConfiguration{MaxMessageSize: serve.MaxFrame, MaxFrameSize: serve.MaxFrame}

// methodIndex is the index of the method named name in t, or -1 (a method
// past the 255th has no App.Recv method byte: unknown, as schemagold says).
func methodIndex(t *schema.Table, name string) int {
	for i, m := range t.Methods {
		if m.Name == name && i < 255 {
			return i
		}
	}
	return -1
}

// readHeader reads the message header from p, which has consumed nothing
// yet, and checks the method against the tables. An unreadable header
// closes the connection without a reply; an unknown method is Apache's
// UNKNOWN_METHOD exception with its args struct skipped (the skip's own
// error ignored, as Apache's processor ignores it), the connection kept.
func readHeader(p thrift.TProtocol, t *schema.Table, framed bool) (header, error) {
	ctx := context.Background()
	var h header
	var err error
	h.name, h.typ, h.seqid, err = p.ReadMessageBegin(ctx)
	if err != nil {
		return h, &fault{err: fmt.Errorf("unreadable message header: %w", err), close: true}
	}
	if h.method = methodIndex(t, h.name); h.method < 0 {
		_ = p.Skip(ctx, thrift.STRUCT)
		_ = p.ReadMessageEnd(ctx)
		x := thrift.NewTApplicationException(thrift.UNKNOWN_METHOD, "Unknown function "+h.name)
		return h, &fault{err: fmt.Errorf("unknown method %q (seqid %d)", h.name, h.seqid), reply: exception(h.name, h.seqid, x, framed)}
	}
	return h, nil
}

// parseFramed reads the header of a framed message, whole in msg.
func parseFramed(msg []byte, t *schema.Table) (header, error) {
	buf := thrift.NewTMemoryBuffer()
	buf.Buffer = bytes.NewBuffer(msg)
	h, err := readHeader(thrift.NewTBinaryProtocolConf(buf, protoConf), t, true)
	h.start = len(msg) - buf.Len()
	return h, err
}

// exception is x as Apache's processor writes it: an EXCEPTION message
// named name with seqid, framed if the request was.
func exception(name string, seqid int32, x thrift.TApplicationException, framed bool) []byte {
	buf := thrift.NewTMemoryBuffer()
	var tr thrift.TTransport = buf
	if framed {
		tr = thrift.NewTFramedTransportConf(buf, protoConf)
	}
	msg, _ := vectors.EncodeMessage(thrift.NewTBinaryProtocolConf(tr, protoConf), buf, name, thrift.EXCEPTION, seqid, x)
	return msg
}

// frame prepends the 4-byte big-endian length to msg.
func frame(msg []byte) []byte {
	return append(binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(msg)), uint32(len(msg))), msg...)
}

// readFrame reads one framed message: its length, then that many bytes
// into a buffer that grows as they arrive, so that a length alone
// allocates nothing. io.EOF before the first byte is a clean end.
func readFrame(r *bufio.Reader) ([]byte, error) {
	var hdr [golden.FrameHeaderSize]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &fault{err: errors.New("frame length cut short"), close: true}
		}
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > serve.MaxFrame {
		return nil, &fault{err: fmt.Errorf("frame length %d is over the limit of %d bytes", n, serve.MaxFrame), close: true}
	}
	var msg bytes.Buffer
	if got, err := io.CopyN(&msg, r, int64(n)); err != nil {
		return nil, &fault{err: fmt.Errorf("frame of %d bytes cut short after %d: %v", n, got, err), close: true}
	}
	return msg.Bytes(), nil
}

// readBuffered reads one unframed message and its header: the header, then
// the args struct skipped with Apache's thrift.Skip over a transport that
// records what it consumes, so that the recorded bytes are exactly the
// message. Args Apache cannot skip are its generated processor's
// PROTOCOL_ERROR (then the connection closes): they never reach the RTL,
// since where the message ends is unknown.
func readBuffered(r *bufio.Reader, t *schema.Table) ([]byte, header, error) {
	if _, err := r.Peek(1); err != nil {
		return nil, header{}, err // io.EOF: the client closed between requests
	}
	// A first word that is not a strict version is a non-strict name
	// length: over the limit it is refused unread.
	if w, err := r.Peek(4); err == nil {
		if n := int32(binary.BigEndian.Uint32(w)); n > serve.MaxFrame-4 {
			return nil, header{}, &fault{err: fmt.Errorf("unframed message: non-strict name length %d is over the limit of %d bytes", n, serve.MaxFrame), close: true}
		}
	}
	rec := &recorder{r: r}
	p := thrift.NewTBinaryProtocolConf(rec, protoConf)
	h, err := readHeader(p, t, false)
	if err != nil {
		if rec.err != nil {
			return nil, h, &fault{err: rec.err, close: true}
		}
		return nil, h, err
	}
	h.start = len(rec.rec)
	ctx := context.Background()
	if err := p.Skip(ctx, thrift.STRUCT); err != nil {
		if rec.err != nil {
			return nil, h, &fault{err: rec.err, close: true}
		}
		x := thrift.NewTApplicationException(thrift.PROTOCOL_ERROR, err.Error())
		return nil, h, &fault{err: fmt.Errorf("unreadable %s arguments (seqid %d): %w", h.name, h.seqid, err), reply: exception(h.name, h.seqid, x, false), close: true}
	}
	_ = p.ReadMessageEnd(ctx)
	return rec.rec, h, nil
}

// recorder is a read-only TTransport over the connection's reader that
// keeps every byte read. It never reads ahead of what the protocol asks.
type recorder struct {
	r   *bufio.Reader
	rec []byte
	err error
}

func (t *recorder) Read(p []byte) (int, error) {
	if room := serve.MaxFrame - len(t.rec); len(p) > room {
		if room == 0 {
			t.err = fmt.Errorf("unframed message longer than %d bytes", serve.MaxFrame)
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
