package vectors

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/sigurn/crc16"
)

// Reader reads the records of a vector file from a stream.
//
// Next returns io.EOF only after the end marker, with the record count it
// holds matching and nothing after it. Every damage is a *FormatError. After a
// damaged record whose lengths were sound (CRC mismatch, bad metadata JSON,
// missing source) Next may be called again and goes on with the next record;
// after any other error it keeps returning that error.
type Reader struct {
	br    *bufio.Reader
	name  string
	off   int64 // bytes consumed so far
	index int   // index of the next record
	err   error // sticky error (io.EOF at the clean end)
}

// NewReader reads and checks the file header from r. name identifies the
// stream in error messages (a path, usually).
func NewReader(r io.Reader, name string) (*Reader, error) {
	vr := &Reader{br: bufio.NewReaderSize(r, 64<<10), name: name}
	var hdr [HeaderSize]byte
	n, err := io.ReadFull(vr.br, hdr[:])
	vr.off = int64(n)
	switch {
	case err == nil:
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		if !bytes.HasPrefix([]byte(Magic), hdr[:min(n, len(Magic))]) {
			return nil, vr.headerError(ErrBadMagic, "got %q, want %q", hdr[:min(n, len(Magic))], Magic)
		}
		return nil, vr.headerError(ErrTruncatedHeader, "%d of %d bytes", n, HeaderSize)
	default:
		return nil, fmt.Errorf("%s: file header: %w", name, err)
	}
	if string(hdr[:len(Magic)]) != Magic {
		return nil, vr.headerError(ErrBadMagic, "got %q, want %q", hdr[:len(Magic)], Magic)
	}
	if v := binary.BigEndian.Uint16(hdr[len(Magic):]); v != Version {
		return nil, vr.headerError(ErrVersion, "file has version %d, this reader handles %d", v, Version)
	}
	return vr, nil
}

func (r *Reader) headerError(kind error, format string, args ...any) error {
	return &FormatError{File: r.name, Record: -1, Offset: 0, Err: kind, Detail: fmt.Sprintf(format, args...)}
}

// readN reads exactly n bytes. It grows its buffer as data arrives, so a
// declared length larger than the input does not allocate it.
func (r *Reader) readN(n uint32) ([]byte, error) {
	var b []byte
	var err error
	if n <= 64<<10 {
		b = make([]byte, n)
		var got int
		got, err = io.ReadFull(r.br, b)
		b = b[:got]
	} else {
		b, err = io.ReadAll(io.LimitReader(r.br, int64(n)))
	}
	r.off += int64(len(b))
	if err == nil && len(b) < int(n) {
		err = io.ErrUnexpectedEOF
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return b, err
}

// Next returns the next record, or io.EOF after the last one.
func (r *Reader) Next() (Record, error) {
	if r.err != nil {
		return Record{}, r.err
	}
	rec, err := r.next()
	if err != nil {
		var fe *FormatError
		if errors.As(err, &fe) && fe.Resumable() {
			r.index++
		} else {
			r.err = err
		}
		return Record{}, err
	}
	r.index++
	return rec, nil
}

func (r *Reader) next() (Record, error) {
	start := r.off
	fail := func(kind error, format string, args ...any) *FormatError {
		return &FormatError{File: r.name, Record: r.index, Offset: start, Err: kind, Detail: fmt.Sprintf(format, args...)}
	}
	ioFail := func(what string, err error) error {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil
		}
		return fmt.Errorf("%s: record %d (byte offset %d): reading %s: %w", r.name, r.index, start, what, err)
	}

	var hdr [RecordHeaderSize]byte
	n, err := io.ReadFull(r.br, hdr[:])
	r.off += int64(n)
	if err != nil {
		if n == 0 && errors.Is(err, io.EOF) {
			e := fail(ErrMissingEnd, "file ends after %d records without the end marker (truncated?)", r.index)
			e.atEnd = true
			return Record{}, e
		}
		if e := ioFail("record header", err); e != nil {
			return Record{}, e
		}
		return Record{}, fail(ErrTruncatedRecord, "%d of %d bytes", n, RecordHeaderSize)
	}
	metaLen := binary.BigEndian.Uint32(hdr[0:])
	msgLen := binary.BigEndian.Uint32(hdr[4:])

	if metaLen == endMarker {
		return Record{}, r.end(hdr, start, fail)
	}
	if metaLen > MaxMetaSize {
		return Record{}, fail(ErrMetaTooLong, "declared %d bytes, limit %d", metaLen, MaxMetaSize)
	}
	if msgLen > MaxMessageSize {
		return Record{}, fail(ErrMessageTooLong, "declared %d bytes, limit %d", msgLen, MaxMessageSize)
	}
	meta, err := r.readN(metaLen)
	if err != nil {
		if e := ioFail("metadata", err); e != nil {
			return Record{}, e
		}
		return Record{}, fail(ErrTruncatedMeta, "declared %d bytes at byte offset %d, %d present", metaLen, start+RecordHeaderSize, len(meta))
	}
	msgOff := r.off
	msg, err := r.readN(msgLen)
	if err != nil {
		if e := ioFail("message", err); e != nil {
			return Record{}, e
		}
		return Record{}, fail(ErrTruncatedMessage, "declared %d bytes at byte offset %d, %d present", msgLen, msgOff, len(msg))
	}
	var crcb [CRCSize]byte
	n, err = io.ReadFull(r.br, crcb[:])
	r.off += int64(n)
	if err != nil {
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return Record{}, fmt.Errorf("%s: record %d (byte offset %d): reading CRC: %w", r.name, r.index, start, err)
		}
		return Record{}, fail(ErrTruncatedCRC, "%d of %d bytes at byte offset %d", n, CRCSize, r.off-int64(n))
	}
	crc := crc16.Init(crcTable)
	crc = crc16.Update(crc, hdr[:], crcTable)
	crc = crc16.Update(crc, meta, crcTable)
	crc = crc16.Update(crc, msg, crcTable)
	crc = crc16.Complete(crc, crcTable)
	if stored := binary.BigEndian.Uint16(crcb[:]); stored != crc {
		return Record{}, fail(ErrCRCMismatch, "stored 0x%04x, computed 0x%04x", stored, crc)
	}

	rec := Record{Index: r.index, Msg: msg}
	if detail, kind := decodeMeta(meta, &rec); kind != nil {
		return Record{}, fail(kind, "%s", detail)
	}
	return rec, nil
}

// end checks the end marker whose first 8 bytes are hdr, and that nothing follows it.
func (r *Reader) end(hdr [RecordHeaderSize]byte, start int64, failRec func(error, string, ...any) *FormatError) error {
	fail := func(kind error, format string, args ...any) error {
		e := failRec(kind, format, args...)
		e.atEnd = true
		return e
	}
	var crcb [CRCSize]byte
	n, err := io.ReadFull(r.br, crcb[:])
	r.off += int64(n)
	if err != nil {
		if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%s: record %d (byte offset %d): reading end marker: %w", r.name, r.index, start, err)
		}
		return fail(ErrTruncatedEnd, "%d of %d CRC bytes", n, CRCSize)
	}
	if stored, crc := binary.BigEndian.Uint16(crcb[:]), crc16.Checksum(hdr[:], crcTable); stored != crc {
		return fail(ErrCRCMismatch, "end marker: stored 0x%04x, computed 0x%04x", stored, crc)
	}
	if count := binary.BigEndian.Uint32(hdr[4:]); int64(count) != int64(r.index) {
		return fail(ErrCountMismatch, "end marker says %d records, file holds %d", count, r.index)
	}
	extra, err := io.Copy(io.Discard, r.br)
	if err != nil {
		return fmt.Errorf("%s: after the end marker: %w", r.name, err)
	}
	if extra > 0 {
		return fail(ErrTrailingGarbage, "%d bytes after the end marker, from byte offset %d", extra, r.off)
	}
	return io.EOF
}

// decodeMeta parses the metadata JSON into rec.Source and rec.Meta. On
// failure it returns what exactly is wrong and the kind of damage (ErrBadMeta
// or ErrMissingSource).
func decodeMeta(meta []byte, rec *Record) (detail string, kind error) {
	dec := json.NewDecoder(bytes.NewReader(meta))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return err.Error(), ErrBadMeta
	}
	if m == nil {
		return "null, want a JSON object", ErrBadMeta
	}
	if _, err := dec.Token(); err != io.EOF {
		return "data after the JSON object", ErrBadMeta
	}
	src, ok := m["source"]
	if !ok {
		return `no "source" key`, ErrMissingSource
	}
	s, ok := src.(string)
	if !ok || s == "" {
		return fmt.Sprintf(`"source" is %s, want a non-empty string`, jsonText(src)), ErrMissingSource
	}
	delete(m, "source")
	rec.Source = s
	if len(m) > 0 {
		rec.Meta = m
	}
	return "", nil
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// ReadFile reads every record of the vector file at path. Any damage is an
// error; it never returns a partial set of records.
func ReadFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := NewReader(f, path)
	if err != nil {
		return nil, err
	}
	recs, err := r.All()
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// All reads the records left: all of them and a nil error, or those before
// the first damage and its error.
func (r *Reader) All() ([]Record, error) {
	var recs []Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return recs, err
		}
		recs = append(recs, rec)
	}
}
