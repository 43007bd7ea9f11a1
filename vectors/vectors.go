// Package vectors reads and writes Arcalís vector files (docs/vectors.md): one Thrift
// message per record, as on the wire without transport framing, with its provenance.
package vectors

//go:generate go run ./defaultset -o default.vec

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/sigurn/crc16"
)

// Format constants. The layout (docs/vectors.md), all integers big-endian:
//
//	file    = header record* end
//	header  = "ARCVEC" version:u16            (8 bytes)
//	record  = metaLen:u32 msgLen:u32 meta msg crc:u16
//	end     = 0xFFFFFFFF count:u32 crc:u16   (10 bytes, then end of file)
//
// meta is a JSON object holding at least "source"; crc is CRC-16/CCITT-FALSE
// over every byte of the record (or end marker) before it.
const (
	// Magic opens every vector file.
	Magic = "ARCVEC"
	// Version is the only format version this package reads and writes.
	Version = 1
	// HeaderSize is the size of the file header: Magic then the version (u16).
	HeaderSize = len(Magic) + 2
	// RecordHeaderSize is the size of a record's two length words.
	RecordHeaderSize = 8
	// CRCSize is the size of the CRC that closes every record and the end marker.
	CRCSize = 2
	// MaxMessageSize is the largest message a record may hold: Apache Thrift's
	// MaxFrameSize (16,384,000 bytes), the accelerator's MSG_TOO_LARGE limit.
	MaxMessageSize = 16_384_000
	// MaxMetaSize is the largest metadata JSON a record may hold (1 MiB).
	MaxMetaSize = 1 << 20
	// endMarker in the metadata-length position marks the end of the records.
	endMarker = 0xFFFF_FFFF
)

// CRCName names the CRC-16 parameter set used by the format.
const CRCName = "CRC-16/CCITT-FALSE"

var crcTable = crc16.MakeTable(crc16.CRC16_CCITT_FALSE)

// Record is one vector: a Thrift message and where it came from.
type Record struct {
	Index  int            // 0-based position in its file (set by readers, ignored by writers)
	Source string         // metadata "source": where the message came from (required)
	Meta   map[string]any // every other metadata key, round-tripped (may be nil); numbers are json.Number
	Msg    []byte         // the message, transport framing removed
}

// What can be wrong with a vector file. A *FormatError wraps exactly one of
// these, so callers can test for a kind with errors.Is.
var (
	ErrBadMagic         = errors.New("bad magic")
	ErrVersion          = errors.New("unsupported version")
	ErrTruncatedHeader  = errors.New("truncated file header")
	ErrTruncatedRecord  = errors.New("truncated record header")
	ErrMetaTooLong      = errors.New("metadata length over the limit")
	ErrMessageTooLong   = errors.New("message length over the limit")
	ErrTruncatedMeta    = errors.New("truncated metadata")
	ErrTruncatedMessage = errors.New("truncated message")
	ErrTruncatedCRC     = errors.New("truncated CRC")
	ErrCRCMismatch      = errors.New("CRC mismatch")
	ErrBadMeta          = errors.New("bad metadata JSON")
	ErrMissingSource    = errors.New("missing source")
	ErrMissingEnd       = errors.New("missing end marker")
	ErrTruncatedEnd     = errors.New("truncated end marker")
	ErrCountMismatch    = errors.New("record count mismatch")
	ErrTrailingGarbage  = errors.New("trailing garbage")
)

// FormatError reports damage in a vector file: which file, which record, where.
type FormatError struct {
	File   string // the name given to NewReader (the path for ReadFile)
	Record int    // index of the damaged record; -1 for the file header; the record count at the end marker
	Offset int64  // byte offset in the file where the record (or header) starts
	Err    error  // one of the Err* kinds above
	Detail string // what exactly is wrong

	atEnd bool // the damage is in or after the end marker (or the marker is missing)
}

func (e *FormatError) Error() string {
	var where string
	switch {
	case e.Record < 0:
		where = fmt.Sprintf("file header (byte offset %d)", e.Offset)
	case e.atEnd:
		where = fmt.Sprintf("end marker (after %d records, byte offset %d)", e.Record, e.Offset)
	default:
		where = fmt.Sprintf("record %d (byte offset %d)", e.Record, e.Offset)
	}
	if e.Detail == "" {
		return fmt.Sprintf("%s: %s: %v", e.File, where, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v: %s", e.File, where, e.Err, e.Detail)
}

func (e *FormatError) Unwrap() error { return e.Err }

// InRecord reports whether the damage is inside record e.Record, rather than
// in the file header or at the end of the records.
func (e *FormatError) InRecord() bool {
	return e.Record >= 0 && !e.atEnd
}

// Resumable reports whether Reader.Next can go on with the next record after
// this error: the damaged record's lengths were sound (CRC mismatch, bad
// metadata JSON, missing source).
func (e *FormatError) Resumable() bool {
	return e.InRecord() && (e.Err == ErrCRCMismatch || e.Err == ErrBadMeta || e.Err == ErrMissingSource)
}

// MetaReplySHA256 is the metadata key of a request's recorded reply: the
// SHA-256 (64 hex digits) of the reply message a server sent for it,
// transport framing removed (from a capture, or Apache's processor).
const MetaReplySHA256 = "reply_sha256"

// MetaReply is the metadata key of the recorded reply message itself (hex,
// framing removed), beside its MetaReplySHA256: what `arcalis run` gives the
// TxEngine to write again (the application answers as the server did).
const MetaReply = "reply"

// Reply returns the record's recorded reply message, if it has one. A value
// that is not hex, or whose SHA-256 is not the record's MetaReplySHA256, is
// an error naming the record and key.
func (r Record) Reply() ([]byte, bool, error) {
	v, ok := r.Meta[MetaReply]
	if !ok {
		return nil, false, nil
	}
	s, isString := v.(string)
	b, derr := hex.DecodeString(s)
	if !isString || derr != nil {
		return nil, false, fmt.Errorf("record %d (%s): metadata %q is %s, want hex digits", r.Index, r.Source, MetaReply, jsonText(v))
	}
	if sum, has, err := r.ReplySHA256(); err == nil && has && sum != sha256.Sum256(b) {
		return nil, false, fmt.Errorf("record %d (%s): metadata %q is not the reply whose SHA-256 %q gives", r.Index, r.Source, MetaReply, MetaReplySHA256)
	}
	return b, true, nil
}

// ReplySHA256 returns the record's recorded reply hash, if it has one. A
// value that is not 64 hex digits is an error naming the record and key.
func (r Record) ReplySHA256() (sum [32]byte, ok bool, err error) {
	v, ok := r.Meta[MetaReplySHA256]
	if !ok {
		return sum, false, nil
	}
	s, isString := v.(string)
	if b, derr := hex.DecodeString(s); isString && derr == nil && len(b) == len(sum) {
		copy(sum[:], b)
		return sum, true, nil
	}
	return sum, false, fmt.Errorf("record %d (%s): metadata %q is %s, want 64 hex digits", r.Index, r.Source, MetaReplySHA256, jsonText(v))
}
