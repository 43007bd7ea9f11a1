package conn

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
	"arcalis/vectors"
)

// MaxFrame is the longest request accepted, framed or not: Apache Thrift's
// DEFAULT_MAX_FRAME_SIZE (16,384,000 bytes), which is also the engine's
// MSG_TOO_LARGE limit (golden.MaxMessage). A longer frame is refused from
// its length word, before any of it is read or allocated.
const MaxFrame = golden.MaxMessage

// Fault is a request the server cannot answer with a reply of its method:
// what Apache's TSimpleServer with the generated processor does instead.
// Reply, if not nil, is an EXCEPTION message to send first; Close ends the
// connection.
type Fault struct {
	Err   error
	Reply []byte
	Close bool
}

func (f *Fault) Error() string { return f.Err.Error() }

// Action says what the server does about f, for its log line.
func (f *Fault) Action() string {
	switch {
	case f.Reply != nil && f.Close:
		return "; sent an exception and closed the connection"
	case f.Reply != nil:
		return "; sent an exception"
	case f.Close:
		return "; closed the connection"
	}
	return ""
}

// protoConf is Apache's defaults (strict write, lenient read) with the
// message limit at MaxFrame.
var protoConf = &thrift.TConfiguration{MaxMessageSize: MaxFrame, MaxFrameSize: MaxFrame}

// Protocol is Apache's binary protocol over t as the servers read and
// write it.
func Protocol(t thrift.TTransport) thrift.TProtocol {
	return thrift.NewTBinaryProtocolConf(t, protoConf)
}

// Exception is x as Apache's processor writes it: an EXCEPTION message
// named name with seqid, framed if the request was.
func Exception(name string, seqid int32, x thrift.TApplicationException, framed bool) []byte {
	return Message(name, thrift.EXCEPTION, seqid, x, framed)
}

// Message is one message with body st as Apache's binary protocol writes
// it, framed or not.
func Message(name string, typ thrift.TMessageType, seqid int32, st thrift.TStruct, framed bool) []byte {
	buf := thrift.NewTMemoryBuffer()
	var t thrift.TTransport = buf
	if framed {
		t = thrift.NewTFramedTransportConf(buf, protoConf)
	}
	msg, _ := vectors.EncodeMessage(Protocol(t), buf, name, typ, seqid, st)
	return msg
}

// Frame prepends the 4-byte big-endian length to msg.
func Frame(msg []byte) []byte {
	return append(binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(msg)), uint32(len(msg))), msg...)
}

// ReadFrame reads one framed request: its length, then that many bytes
// into a buffer that grows as they arrive (a length alone allocates
// nothing). io.EOF before the first byte is a clean end.
func ReadFrame(r *bufio.Reader) ([]byte, error) {
	var hdr [golden.FrameHeaderSize]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &Fault{Err: fmt.Errorf("frame length cut short after %d bytes", len(hdr)), Close: true}
		}
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > MaxFrame {
		// Apache: "Incorrect frame size", a transport error that ends the connection.
		return nil, &Fault{Err: fmt.Errorf("frame length %d is over the limit of %d bytes", n, MaxFrame), Close: true}
	}
	var msg bytes.Buffer
	if got, err := io.CopyN(&msg, r, int64(n)); err != nil {
		return nil, &Fault{Err: fmt.Errorf("frame of %d bytes cut short after %d: %v", n, got, err), Close: true}
	}
	return msg.Bytes(), nil
}

// Unframed is the start of reading one unframed request: it waits for its
// first byte (io.EOF: the client closed between requests), refuses a
// non-strict name length over the limit, and returns a Recorder over r,
// whose protocol is read to the message's end.
func Unframed(r *bufio.Reader) (*Recorder, error) {
	if _, err := r.Peek(1); err != nil {
		return nil, err
	}
	// A first word that is not a strict version is a non-strict header's
	// name length: Apache's reader waits for that many bytes, whatever
	// their number. Over the limit it is refused here, unread.
	if w, err := r.Peek(4); err == nil {
		if n := int32(binary.BigEndian.Uint32(w)); n > MaxFrame-4 {
			return nil, &Fault{Err: fmt.Errorf("unframed message: non-strict name length %d is over the limit of %d bytes", n, MaxFrame), Close: true}
		}
	}
	return &Recorder{r: r}, nil
}

// Recorder is a read-only TTransport over the connection's reader that
// keeps every byte read: it never reads ahead, so what it recorded when
// the protocol is done is exactly one message.
type Recorder struct {
	r   *bufio.Reader
	rec []byte
	err error
}

// Bytes are the bytes read so far.
func (t *Recorder) Bytes() []byte { return t.rec }

// Refused is, if t refused to read past MaxFrame, the Fault that closes
// the connection for it (whatever error the protocol made of it); else nil.
func (t *Recorder) Refused() error {
	if t.err != nil {
		return &Fault{Err: t.err, Close: true}
	}
	return nil
}

var errTooLong = fmt.Errorf("unframed message longer than %d bytes", MaxFrame)

func (t *Recorder) Read(p []byte) (int, error) {
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

func (t *Recorder) Write([]byte) (int, error)   { return 0, errors.New("recorder: read only") }
func (t *Recorder) Close() error                { return nil }
func (t *Recorder) Flush(context.Context) error { return nil }
func (t *Recorder) Open() error                 { return nil }
func (t *Recorder) IsOpen() bool                { return true }
func (t *Recorder) RemainingBytes() uint64      { return ^uint64(0) } // unknown
