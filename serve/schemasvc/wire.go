package schemasvc

import (
	"bufio"
	"bytes"
	"context"
	"fmt"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/serve/conn"
	"arcalis/thriftidl/schema"
)

// header is a message's header as Apache's TBinaryProtocol reads it
// (strict or not, as its default lenient reader), and where the args
// begin; or the same fields of recv_header's result, which dispatches the
// request when it agrees (engine.header).
type header struct {
	name   string
	typ    thrift.TMessageType
	seqid  int32
	method int // index in the tables' methods
	start  int // the message offset of the args struct
}

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
// yet, and checks the method against the tables. A failure is a
// *conn.Fault, a request answered without the RTL: an unreadable header
// closes the connection without a reply; an unknown method is Apache's
// UNKNOWN_METHOD exception with its args struct skipped (the skip's own
// error ignored, as Apache's processor ignores it), the connection kept.
func readHeader(p thrift.TProtocol, t *schema.Table, framed bool) (header, error) {
	ctx := context.Background()
	var h header
	var err error
	h.name, h.typ, h.seqid, err = p.ReadMessageBegin(ctx)
	if err != nil {
		return h, &conn.Fault{Err: fmt.Errorf("unreadable message header: %w", err), Close: true}
	}
	if h.method = methodIndex(t, h.name); h.method < 0 {
		_ = p.Skip(ctx, thrift.STRUCT)
		_ = p.ReadMessageEnd(ctx)
		x := thrift.NewTApplicationException(thrift.UNKNOWN_METHOD, "Unknown function "+h.name)
		return h, &conn.Fault{Err: fmt.Errorf("unknown method %q (seqid %d)", h.name, h.seqid), Reply: conn.Exception(h.name, h.seqid, x, framed)}
	}
	return h, nil
}

// parseFramed reads the header of a framed message, whole in msg.
func parseFramed(msg []byte, t *schema.Table) (header, error) {
	buf := thrift.NewTMemoryBuffer()
	buf.Buffer = bytes.NewBuffer(msg)
	h, err := readHeader(conn.Protocol(buf), t, true)
	h.start = len(msg) - buf.Len()
	return h, err
}

// readBuffered reads one unframed message and its header: the header, then
// the args struct skipped with Apache's thrift.Skip over a transport that
// records what it consumes, so that the recorded bytes are exactly the
// message. Args Apache cannot skip are its generated processor's
// PROTOCOL_ERROR (then the connection closes): they never reach the RTL,
// since where the message ends is unknown.
func readBuffered(r *bufio.Reader, t *schema.Table) ([]byte, header, error) {
	rec, err := conn.Unframed(r)
	if err != nil {
		return nil, header{}, err
	}
	p := conn.Protocol(rec)
	h, err := readHeader(p, t, false)
	if err != nil {
		if f := rec.Refused(); f != nil {
			return nil, h, f
		}
		return nil, h, err
	}
	h.start = len(rec.Bytes())
	ctx := context.Background()
	if err := p.Skip(ctx, thrift.STRUCT); err != nil {
		if f := rec.Refused(); f != nil {
			return nil, h, f
		}
		x := thrift.NewTApplicationException(thrift.PROTOCOL_ERROR, err.Error())
		return nil, h, &conn.Fault{Err: fmt.Errorf("unreadable %s arguments (seqid %d): %w", h.name, h.seqid, err), Reply: conn.Exception(h.name, h.seqid, x, false), Close: true}
	}
	_ = p.ReadMessageEnd(ctx)
	return rec.Bytes(), h, nil
}
