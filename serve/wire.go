package serve

import (
	"bufio"
	"bytes"
	"context"
	"fmt"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/golden"
	"arcalis/internal/memcached"
	"arcalis/serve/conn"
)

// MaxFrame is the longest request accepted, framed or not (conn.MaxFrame).
const MaxFrame = conn.MaxFrame

// Transports.
const (
	Framed   = "framed"   // a 4-byte big-endian length, then the message
	Buffered = "buffered" // the bare binary-protocol message
)

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
// A failure is a *conn.Fault with what Apache's TSimpleServer does for it:
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
		return c, &conn.Fault{Err: fmt.Errorf("unreadable message header: %w", err), Close: true}
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
		return c, &conn.Fault{Err: fmt.Errorf("unknown method %q (seqid %d)", c.name, c.seqid), Reply: conn.Exception(c.name, c.seqid, x, framed)}
	}
	if err != nil {
		x := thrift.NewTApplicationException(thrift.PROTOCOL_ERROR, err.Error())
		return c, &conn.Fault{Err: fmt.Errorf("unreadable %s arguments (seqid %d): %w", c.name, c.seqid, err), Reply: conn.Exception(c.name, c.seqid, x, framed), Close: true}
	}
	_ = p.ReadMessageEnd(ctx)
	return c, nil
}

// decode is the software stack's decoding of a whole message (readCall on
// its bytes).
func decode(msg []byte, framed bool) (call, error) {
	buf := thrift.NewTMemoryBuffer()
	buf.Buffer = bytes.NewBuffer(msg)
	return readCall(conn.Protocol(buf), framed)
}

// readBuffered reads one unframed request: readCall over the connection,
// recording the bytes it consumes, which are the message. The limit is
// MaxFrame here too.
func readBuffered(r *bufio.Reader) ([]byte, error) {
	t, err := conn.Unframed(r)
	if err != nil {
		return nil, err
	}
	if _, err := readCall(conn.Protocol(t), false); err != nil {
		if f := t.Refused(); f != nil {
			return nil, f
		}
		return nil, err
	}
	return t.Bytes(), nil
}

// apacheGetReply is Get's REPLY as the generated processor writes it.
func apacheGetReply(seqid int32, value []byte, framed bool) []byte {
	return conn.Message("Get", thrift.REPLY, seqid, &memcached.MemcachedServiceGetResult{Success: value}, framed)
}
