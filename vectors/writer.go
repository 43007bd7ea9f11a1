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
	"path/filepath"

	"github.com/sigurn/crc16"
)

// Writer writes a vector file to a stream. Close writes the end marker; a file
// without it is reported as truncated by readers.
type Writer struct {
	bw     *bufio.Writer
	n      int // records written
	buf    []byte
	err    error // sticky I/O error
	closed bool
}

// NewWriter writes the file header to w and returns a Writer for the records.
func NewWriter(w io.Writer) (*Writer, error) {
	vw := &Writer{bw: bufio.NewWriterSize(w, 64<<10)}
	var hdr [HeaderSize]byte
	copy(hdr[:], Magic)
	binary.BigEndian.PutUint16(hdr[len(Magic):], Version)
	if _, err := vw.bw.Write(hdr[:]); err != nil {
		return nil, fmt.Errorf("vector file header: %w", err)
	}
	return vw, nil
}

// Write appends rec as the next record. rec.Index is ignored.
func (w *Writer) Write(rec Record) error {
	if w.closed {
		return errors.New("vectors: Write after Close")
	}
	if w.err != nil {
		return w.err
	}
	b, err := appendRecord(w.buf[:0], rec)
	if err != nil {
		return fmt.Errorf("record %d (%s): %w", w.n, rec.Source, err)
	}
	w.buf = b[:0]
	if _, err := w.bw.Write(b); err != nil {
		w.err = fmt.Errorf("record %d (%s): %w", w.n, rec.Source, err)
		return w.err
	}
	w.n++
	return nil
}

// Flush writes buffered data to the underlying writer.
func (w *Writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if err := w.bw.Flush(); err != nil {
		w.err = err
	}
	return w.err
}

// Close writes the end marker (with the record count) and flushes. It does not
// close the underlying writer. Closing twice is a no-op.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.err != nil {
		return w.err
	}
	var end [RecordHeaderSize + CRCSize]byte
	binary.BigEndian.PutUint32(end[0:], endMarker)
	binary.BigEndian.PutUint32(end[4:], uint32(w.n))
	binary.BigEndian.PutUint16(end[8:], crc16.Checksum(end[:8], crcTable))
	if _, err := w.bw.Write(end[:]); err != nil {
		w.err = fmt.Errorf("end marker: %w", err)
		return w.err
	}
	return w.Flush()
}

// EncodeMeta returns the metadata JSON the writer stores for rec: one object
// with "source" and every Meta key, keys sorted, no HTML escaping.
func EncodeMeta(rec Record) ([]byte, error) {
	if rec.Source == "" {
		return nil, errors.New("empty source")
	}
	if _, ok := rec.Meta["source"]; ok {
		return nil, errors.New(`record Meta holds a "source" key; use Record.Source`)
	}
	m := make(map[string]any, len(rec.Meta)+1)
	for k, v := range rec.Meta {
		m[k] = v
	}
	m["source"] = rec.Source
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// appendRecord appends rec's encoding to dst.
func appendRecord(dst []byte, rec Record) ([]byte, error) {
	if len(rec.Msg) > MaxMessageSize {
		return dst, fmt.Errorf("message of %d bytes is over the limit of %d", len(rec.Msg), MaxMessageSize)
	}
	meta, err := EncodeMeta(rec)
	if err != nil {
		return dst, err
	}
	if len(meta) > MaxMetaSize {
		return dst, fmt.Errorf("metadata of %d bytes is over the limit of %d", len(meta), MaxMetaSize)
	}
	start := len(dst)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(meta)))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(rec.Msg)))
	dst = append(dst, meta...)
	dst = append(dst, rec.Msg...)
	return binary.BigEndian.AppendUint16(dst, crc16.Checksum(dst[start:], crcTable)), nil
}

// WriteFile writes recs as a complete vector file at path. It writes a
// temporary file in the same directory and renames it, so path is either
// left as it was or replaced whole.
func WriteFile(path string, recs []Record) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w, err := NewWriter(f)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
