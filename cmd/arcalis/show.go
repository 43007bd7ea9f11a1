package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/vectors"
	"arcalis/vectors/pcap"
)

// Limits of what show prints (it still reads everything).
const (
	showBinaryBytes   = 32 // bytes of a binary value shown in hex
	showElements      = 8  // elements of a list, set or map shown
	showDumpBytes     = 64 // bytes dumped when a message does not parse
	showMaxDepth      = 64 // nesting depth, as Apache's Skip
	uuidType          = thrift.TType(16)
	showMessageIndent = "    "
)

// showRecord prints one record and its message, walked field by field with
// Apache Thrift's binary protocol reader.
func showRecord(w io.Writer, rec vectors.Record) {
	fmt.Fprintf(w, "record %d\n", rec.Index)
	fmt.Fprintf(w, "  source:  %s\n", rec.Source)
	if len(rec.Meta) > 0 {
		keys := slices.Sorted(maps.Keys(rec.Meta))
		for _, k := range keys {
			fmt.Fprintf(w, "  %-8s %v\n", k+":", rec.Meta[k])
		}
	}
	fmt.Fprintf(w, "  size:    %d bytes\n", len(rec.Msg))
	wk := newWalker(w, rec.Msg)
	if err := wk.message(); err != nil {
		paint(w, failColor, "  parse error")
		fmt.Fprintf(w, " at byte %d: %v\n", wk.at(), err)
		fmt.Fprintf(w, "  first %d of %d bytes:\n", min(showDumpBytes, len(rec.Msg)), len(rec.Msg))
		hexDump(w, rec.Msg[:min(showDumpBytes, len(rec.Msg))], "    ")
		return
	}
	if left := wk.buf.Len(); left > 0 {
		fmt.Fprintf(w, "  %d bytes after the message (from byte %d): %s\n", left, wk.at(), hexPrefix(rec.Msg[wk.at():]))
	}
}

type walker struct {
	ctx  context.Context
	w    io.Writer
	msg  []byte
	buf  *thrift.TMemoryBuffer
	prot *thrift.TBinaryProtocol
}

func newWalker(w io.Writer, msg []byte) *walker {
	buf := &thrift.TMemoryBuffer{Buffer: bytes.NewBuffer(msg)}
	return &walker{
		ctx:  context.Background(),
		w:    w,
		msg:  msg,
		buf:  buf,
		prot: thrift.NewTBinaryProtocolConf(buf, &thrift.TConfiguration{}),
	}
}

// at is the offset in the message of the next byte to read.
func (wk *walker) at() int { return len(wk.msg) - wk.buf.Len() }

func (wk *walker) message() error {
	name, typ, seqid, err := wk.prot.ReadMessageBegin(wk.ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(wk.w, "  message: method %q, type %s, seqid %d\n", name, pcap.TypeName(typ), seqid)
	if err := wk.structFields(showMessageIndent, showMaxDepth); err != nil {
		return err
	}
	return wk.prot.ReadMessageEnd(wk.ctx)
}

// structFields prints the fields of a struct up to and including its STOP.
func (wk *walker) structFields(indent string, depth int) error {
	if depth <= 0 {
		return errors.New("nesting depth limit exceeded")
	}
	if _, err := wk.prot.ReadStructBegin(wk.ctx); err != nil {
		return err
	}
	for {
		at := wk.at()
		_, typ, id, err := wk.prot.ReadFieldBegin(wk.ctx)
		if err != nil {
			return err
		}
		if typ == thrift.STOP {
			fmt.Fprintf(wk.w, "%s@%d STOP\n", indent, at)
			break
		}
		fmt.Fprintf(wk.w, "%s@%d field %d %s", indent, at, id, typeName(typ))
		if err := wk.value(typ, indent, depth); err != nil {
			fmt.Fprintln(wk.w)
			return err
		}
		if err := wk.prot.ReadFieldEnd(wk.ctx); err != nil {
			return err
		}
	}
	return wk.prot.ReadStructEnd(wk.ctx)
}

// value prints one value of type typ. Scalars go on the current line; the
// elements of nested values go on their own lines, indented.
func (wk *walker) value(typ thrift.TType, indent string, depth int) error {
	p, ctx, w := wk.prot, wk.ctx, wk.w
	switch typ {
	case thrift.BOOL:
		v, err := p.ReadBool(ctx)
		if err == nil {
			fmt.Fprintf(w, ": %v\n", v)
		}
		return err
	case thrift.BYTE:
		v, err := p.ReadByte(ctx)
		if err == nil {
			fmt.Fprintf(w, ": %d\n", v)
		}
		return err
	case thrift.I16:
		v, err := p.ReadI16(ctx)
		if err == nil {
			fmt.Fprintf(w, ": %d\n", v)
		}
		return err
	case thrift.I32:
		v, err := p.ReadI32(ctx)
		if err == nil {
			fmt.Fprintf(w, ": %d (0x%08x)\n", v, uint32(v))
		}
		return err
	case thrift.I64:
		v, err := p.ReadI64(ctx)
		if err == nil {
			fmt.Fprintf(w, ": %d (0x%016x)\n", v, uint64(v))
		}
		return err
	case thrift.DOUBLE:
		v, err := p.ReadDouble(ctx)
		if err == nil {
			fmt.Fprintf(w, ": %g\n", v)
		}
		return err
	case thrift.STRING:
		v, err := p.ReadBinary(ctx)
		if err == nil {
			fmt.Fprintf(w, ": %d bytes %s\n", len(v), hexPrefix(v))
		}
		return err
	case uuidType:
		// Apache Thrift v0.17.0 has no UUID type (its Skip rejects it); the
		// accelerator skips 16 bytes, so show reads them raw.
		var v [16]byte
		if _, err := io.ReadFull(wk.buf, v[:]); err != nil {
			return fmt.Errorf("UUID: %w", err)
		}
		fmt.Fprintf(w, ": %x (read raw: Apache v0.17.0 has no UUID type)\n", v)
		return nil
	case thrift.STRUCT:
		fmt.Fprintln(w)
		return wk.structFields(indent+"  ", depth-1)
	case thrift.LIST, thrift.SET:
		var et thrift.TType
		var n int
		var err error
		if typ == thrift.LIST {
			et, n, err = p.ReadListBegin(ctx)
		} else {
			et, n, err = p.ReadSetBegin(ctx)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "<%s>: %d elements\n", typeName(et), n)
		for i := 0; i < n; i++ {
			if err := wk.element(i, "", et, indent, depth); err != nil {
				return err
			}
		}
		if n > showElements {
			fmt.Fprintf(w, "%s  ... %d more\n", indent, n-showElements)
		}
		if typ == thrift.LIST {
			return p.ReadListEnd(ctx)
		}
		return p.ReadSetEnd(ctx)
	case thrift.MAP:
		kt, vt, n, err := p.ReadMapBegin(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "<%s, %s>: %d entries\n", typeName(kt), typeName(vt), n)
		for i := 0; i < n; i++ {
			if err := wk.element(i, " key", kt, indent, depth); err != nil {
				return err
			}
			if err := wk.element(i, " value", vt, indent, depth); err != nil {
				return err
			}
		}
		if n > showElements {
			fmt.Fprintf(w, "%s  ... %d more\n", indent, n-showElements)
		}
		return p.ReadMapEnd(ctx)
	default:
		return thrift.NewTProtocolExceptionWithType(thrift.INVALID_DATA, fmt.Errorf("unknown data type %d", typ))
	}
}

// element prints element i of a container (label tells a map's key from its
// value), or skips it past showElements.
func (wk *walker) element(i int, label string, typ thrift.TType, indent string, depth int) error {
	if depth <= 1 {
		return errors.New("nesting depth limit exceeded")
	}
	if i >= showElements {
		if typ == uuidType {
			_, err := io.ReadFull(wk.buf, make([]byte, 16))
			return err
		}
		return thrift.Skip(wk.ctx, wk.prot, typ, depth-1)
	}
	fmt.Fprintf(wk.w, "%s  @%d [%d]%s", indent, wk.at(), i, label)
	return wk.value(typ, indent+"  ", depth-1)
}

var typeNames = map[thrift.TType]string{
	thrift.STOP: "STOP", thrift.VOID: "VOID", thrift.BOOL: "BOOL", thrift.BYTE: "BYTE",
	thrift.DOUBLE: "DOUBLE", thrift.I16: "I16", thrift.I32: "I32", thrift.I64: "I64",
	thrift.STRING: "BINARY", thrift.STRUCT: "STRUCT", thrift.MAP: "MAP", thrift.SET: "SET",
	thrift.LIST: "LIST", uuidType: "UUID",
}

func typeName(t thrift.TType) string {
	if s, ok := typeNames[t]; ok {
		return s
	}
	return fmt.Sprintf("type-%d", t)
}

// hexPrefix is the hex of b's first showBinaryBytes bytes, with "..." if there are more.
func hexPrefix(b []byte) string {
	if len(b) == 0 {
		return "(empty)"
	}
	s := hex.EncodeToString(b[:min(len(b), showBinaryBytes)])
	if len(b) > showBinaryBytes {
		s += "..."
	}
	return s
}

// hexDump prints b 16 bytes a line, with offsets and printable characters.
func hexDump(w io.Writer, b []byte, indent string) {
	for off := 0; off < len(b); off += 16 {
		line := b[off:min(off+16, len(b))]
		var hx, asc strings.Builder
		for i := 0; i < 16; i++ {
			if i < len(line) {
				fmt.Fprintf(&hx, "%02x ", line[i])
				if c := line[i]; c >= 0x20 && c < 0x7f {
					asc.WriteByte(c)
				} else {
					asc.WriteByte('.')
				}
			} else {
				hx.WriteString("   ")
			}
			if i == 7 {
				hx.WriteByte(' ')
			}
		}
		fmt.Fprintf(w, "%s%04x  %s |%s|\n", indent, off, hx.String(), asc.String())
	}
}
