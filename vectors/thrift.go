package vectors

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"github.com/apache/thrift/lib/go/thrift"
)

// CheckMessage reports whether msg is exactly one Thrift binary-protocol
// message as Apache Thrift's Go library reads it: ReadMessageBegin, Skip of
// the argument struct, ReadMessageEnd, with no byte left over. It uses the
// library's default configuration (old-style, non-strict headers are
// accepted; nesting depth limit 64), which is what an Apache server does.
//
// The accelerator accepts less than this (docs/abi.md, section 7) and ignores
// bytes after the closing STOP, which CheckMessage reports.
func CheckMessage(msg []byte) error {
	ctx := context.Background()
	buf := &thrift.TMemoryBuffer{Buffer: bytes.NewBuffer(msg)}
	prot := thrift.NewTBinaryProtocolConf(buf, &thrift.TConfiguration{})
	at := func() int { return len(msg) - buf.Len() }
	if _, _, _, err := prot.ReadMessageBegin(ctx); err != nil {
		return fmt.Errorf("message header (stopped at byte %d): %w", at(), err)
	}
	if err := prot.Skip(ctx, thrift.STRUCT); err != nil {
		return fmt.Errorf("arguments (stopped at byte %d): %w", at(), err)
	}
	if err := prot.ReadMessageEnd(ctx); err != nil {
		return fmt.Errorf("message end (byte %d): %w", at(), err)
	}
	if left := buf.Len(); left > 0 {
		return fmt.Errorf("%d bytes left over after the message, which ends at byte %d", left, at())
	}
	return nil
}

// EncodeMessage writes one message (name, type, seqid, then args) through
// prot, a protocol over buf (Apache's binary protocol, strict write, as
// Apache's generated client and processor write), and returns a copy of
// its bytes: buf is reset first, and a framed transport between prot and buf
// puts the frame length in them.
func EncodeMessage(prot thrift.TProtocol, buf *thrift.TMemoryBuffer, name string, typ thrift.TMessageType, seqid int32, args thrift.TStruct) ([]byte, error) {
	ctx := context.Background()
	buf.Reset()
	if err := errors.Join(
		prot.WriteMessageBegin(ctx, name, typ, seqid),
		args.Write(ctx, prot),
		prot.WriteMessageEnd(ctx),
		prot.Flush(ctx),
	); err != nil {
		return nil, fmt.Errorf("serializing %s with Apache Thrift: %w", name, err)
	}
	return append([]byte(nil), buf.Bytes()...), nil
}

// StrictBinary is Apache's binary protocol over buf with strict write.
func StrictBinary(buf thrift.TTransport) thrift.TProtocol {
	return thrift.NewTBinaryProtocolConf(buf, &thrift.TConfiguration{TBinaryStrictWrite: thrift.BoolPtr(true)})
}
