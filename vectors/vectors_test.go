package vectors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/sigurn/crc16"
)

// sampleRecords returns records with arbitrary bytes and metadata.
func sampleRecords() []Record {
	rng := rand.New(rand.NewPCG(1, 2))
	big := make([]byte, 70_000)
	for i := range big {
		big[i] = byte(rng.Uint32())
	}
	return []Record{
		{Source: "set/canonical", Msg: []byte{0x80, 0x01, 0x00, 0x01, 0, 0, 0, 3, 'S', 'e', 't', 0, 0, 0, 1, 0}},
		{Source: "empty message", Msg: []byte{}},
		{Source: "all bytes", Msg: func() []byte {
			b := make([]byte, 256)
			for i := range b {
				b[i] = byte(i)
			}
			return b
		}()},
		{Source: "big", Msg: big},
		{Source: "capture.pcap <&> \u00e9\u2603", Msg: []byte{0xff, 0x00, 0xff}, Meta: map[string]any{
			"flow":      "10.0.0.1:4242->10.0.0.2:11211",
			"packets":   []any{json.Number("3"), json.Number("4")},
			"timestamp": json.Number("1700000000123456789"),
			"ratio":     json.Number("0.25"),
			"nested":    map[string]any{"a": true, "b": nil, "c": "x"},
			"empty":     "",
		}},
	}
}

func encode(t *testing.T, recs []Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func decodeAll(t *testing.T, data []byte, name string) ([]Record, error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), name)
	if err != nil {
		return nil, err
	}
	return r.All()
}

func TestRoundTrip(t *testing.T) {
	want := sampleRecords()
	for i := range want {
		want[i].Index = i
	}
	path := filepath.Join(t.TempDir(), "rt.vec")
	if err := WriteFile(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
	}
	// Writing what was read gives the same bytes.
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if again := encode(t, got); !bytes.Equal(again, first) {
		t.Fatal("re-encoding the records read gives different bytes")
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("file mode: %v, %v", fi.Mode(), err)
	}
}

func TestRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for n := 0; n < 50; n++ {
		recs := make([]Record, rng.IntN(5))
		for i := range recs {
			msg := make([]byte, rng.IntN(300))
			for j := range msg {
				msg[j] = byte(rng.Uint32())
			}
			src := make([]byte, 1+rng.IntN(20))
			for j := range src {
				src[j] = byte(0x20 + rng.IntN(0x5f))
			}
			recs[i] = Record{Index: i, Source: string(src), Msg: msg}
			if rng.IntN(2) == 0 {
				recs[i].Meta = map[string]any{"k": json.Number("12"), "s": string(src) + "\"\\\n\t"}
			}
		}
		got, err := decodeAll(t, encode(t, recs), "random")
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) == 0 {
			recs = nil
		}
		if !reflect.DeepEqual(got, recs) {
			t.Fatalf("case %d: got %+v, want %+v", n, got, recs)
		}
	}
}

func TestWriteRejects(t *testing.T) {
	tests := []struct {
		name string
		rec  Record
		want string
	}{
		{"no source", Record{Msg: []byte{1}}, "empty source"},
		{"source in meta", Record{Source: "a", Meta: map[string]any{"source": "b"}}, `"source" key`},
		{"message too long", Record{Source: "a", Msg: make([]byte, MaxMessageSize+1)}, "over the limit"},
		{"bad meta value", Record{Source: "a", Meta: map[string]any{"f": func() {}}}, "metadata"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, err := NewWriter(io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			err = w.Write(tc.rec)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "record 0") {
				t.Fatalf("Write: got %v, want an error about record 0 containing %q", err, tc.want)
			}
		})
	}
}

func TestWriteFileLeavesNothingOnError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.vec")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(path, []Record{{Source: "ok", Msg: []byte{1}}, {Msg: []byte{2}}})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "record 1") {
		t.Fatalf("WriteFile: got %v, want an error naming %s and record 1", err, path)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("%s changed to %q", path, b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary file left behind: %v", ents)
	}
}

// rawRecord builds a record's bytes from parts, with a correct CRC unless crc is given.
func rawRecord(meta string, msg []byte, crc ...uint16) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(meta)))
	b = binary.BigEndian.AppendUint32(b, uint32(len(msg)))
	b = append(b, meta...)
	b = append(b, msg...)
	c := crc16.Checksum(b, crcTable)
	if len(crc) > 0 {
		c = crc[0]
	}
	return binary.BigEndian.AppendUint16(b, c)
}

func rawEnd(count uint32) []byte {
	b := binary.BigEndian.AppendUint32(nil, endMarker)
	b = binary.BigEndian.AppendUint32(b, count)
	return binary.BigEndian.AppendUint16(b, crc16.Checksum(b, crcTable))
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestDamage(t *testing.T) {
	hdr := []byte("ARCVEC\x00\x01")
	good := rawRecord(`{"source":"a"}`, []byte("hello"))
	goodLen := int64(len(hdr) + len(good))
	lenHdr := func(meta, msg uint32) []byte {
		return binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, meta), msg)
	}
	flip := func(b []byte, i int) []byte {
		c := bytes.Clone(b)
		c[i] ^= 0x40
		return c
	}
	tests := []struct {
		name   string
		data   []byte
		kind   error
		record int
		offset int64
		want   []string // more text the message must hold
	}{
		{"empty file", nil, ErrTruncatedHeader, -1, 0, []string{"file header", "0 of 8"}},
		{"bad magic", cat([]byte("ARCVEX\x00\x01"), good, rawEnd(1)), ErrBadMagic, -1, 0, []string{`"ARCVEX"`}},
		{"not a vector file", []byte("hi"), ErrBadMagic, -1, 0, nil},
		{"truncated file header", []byte("ARCV"), ErrTruncatedHeader, -1, 0, []string{"4 of 8"}},
		{"unsupported version", cat([]byte("ARCVEC\x00\x02"), good, rawEnd(1)), ErrVersion, -1, 0, []string{"version 2"}},
		{"truncated record header", cat(hdr, good, []byte{0, 0, 0}), ErrTruncatedRecord, 1, goodLen, []string{"3 of 8"}},
		{"message length over the limit", cat(hdr, good, lenHdr(14, MaxMessageSize+1), []byte(`{"source":"a"}`)), ErrMessageTooLong, 1, goodLen, []string{"16384001"}},
		{"message length 0xffffffff", cat(hdr, lenHdr(14, 0xFFFF_FFFF)), ErrMessageTooLong, 0, 8, nil},
		{"metadata length over the limit", cat(hdr, lenHdr(MaxMetaSize+1, 0)), ErrMetaTooLong, 0, 8, nil},
		{"truncated metadata", cat(hdr, good[:10]), ErrTruncatedMeta, 0, 8, []string{"declared 14 bytes", "2 present"}},
		{"truncated message", cat(hdr, good, good[:len(good)-4]), ErrTruncatedMessage, 1, goodLen, []string{"declared 5 bytes", "3 present"}},
		{"truncated CRC", cat(hdr, good[:len(good)-1]), ErrTruncatedCRC, 0, 8, []string{"1 of 2"}},
		{"CRC mismatch in message", cat(hdr, good, flip(good, len(good)-4), rawEnd(2)), ErrCRCMismatch, 1, goodLen,
			[]string{"stored 0x" + hex4(good[len(good)-2:]), "computed 0x"}},
		{"CRC mismatch in CRC", cat(hdr, rawRecord(`{"source":"a"}`, []byte("x"), 0x1234), rawEnd(1)), ErrCRCMismatch, 0, 8,
			[]string{"stored 0x1234, computed 0x"}},
		{"bad metadata JSON", cat(hdr, rawRecord(`{"source":`, nil), rawEnd(1)), ErrBadMeta, 0, 8, []string{"unexpected EOF"}},
		{"metadata not an object", cat(hdr, rawRecord(`["source"]`, nil), rawEnd(1)), ErrBadMeta, 0, 8, nil},
		{"metadata null", cat(hdr, rawRecord(`null`, nil), rawEnd(1)), ErrBadMeta, 0, 8, nil},
		{"metadata with trailing data", cat(hdr, rawRecord(`{"source":"a"}{}`, nil), rawEnd(1)), ErrBadMeta, 0, 8, []string{"after the JSON object"}},
		{"missing source", cat(hdr, rawRecord(`{"flow":"x"}`, nil), rawEnd(1)), ErrMissingSource, 0, 8, []string{`no "source"`}},
		{"source not a string", cat(hdr, rawRecord(`{"source":3}`, nil), rawEnd(1)), ErrMissingSource, 0, 8, []string{`"source" is 3`}},
		{"empty source", cat(hdr, rawRecord(`{"source":""}`, nil), rawEnd(1)), ErrMissingSource, 0, 8, nil},
		{"missing end marker", cat(hdr, good), ErrMissingEnd, 1, goodLen, []string{"after 1 records"}},
		{"truncated end marker", cat(hdr, good, rawEnd(1)[:9]), ErrTruncatedEnd, 1, goodLen, nil},
		{"end marker CRC mismatch", cat(hdr, good, flip(rawEnd(1), 7)), ErrCRCMismatch, 1, goodLen, []string{"end marker"}},
		{"record count mismatch", cat(hdr, good, rawEnd(2)), ErrCountMismatch, 1, goodLen, []string{"says 2 records, file holds 1"}},
		{"trailing garbage", cat(hdr, good, rawEnd(1), []byte("xyz")), ErrTrailingGarbage, 1, goodLen, []string{"3 bytes after the end marker, from byte offset " + itoa(int(goodLen)+10)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "damaged.vec")
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			recs, err := ReadFile(path)
			if err == nil {
				t.Fatalf("ReadFile: no error, %d records", len(recs))
			}
			if recs != nil {
				t.Errorf("ReadFile returned %d records along with the error", len(recs))
			}
			var fe *FormatError
			if !errors.As(err, &fe) || !errors.Is(err, tc.kind) {
				t.Fatalf("error %q (%T) is not a FormatError of kind %q", err, err, tc.kind)
			}
			if fe.File != path || fe.Record != tc.record || fe.Offset != tc.offset {
				t.Errorf("error at %s record %d offset %d, want %s record %d offset %d", fe.File, fe.Record, fe.Offset, path, tc.record, tc.offset)
			}
			where := "record " + itoa(tc.record) + " (byte offset " + itoa(int(tc.offset)) + ")"
			atEnd := map[error]bool{ErrMissingEnd: true, ErrTruncatedEnd: true, ErrCountMismatch: true, ErrTrailingGarbage: true}[tc.kind] ||
				tc.name == "end marker CRC mismatch"
			if fe.InRecord() != (tc.record >= 0 && !atEnd) {
				t.Errorf("InRecord() = %v", fe.InRecord())
			}
			switch {
			case tc.record < 0:
				where = "file header (byte offset 0)"
			case !atEnd:
			default:
				where = "end marker (after " + itoa(tc.record) + " records, byte offset " + itoa(int(tc.offset)) + ")"
			}
			for _, s := range append([]string{path + ": ", where, tc.kind.Error()}, tc.want...) {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
		})
	}
}

func hex4(b []byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[b[0]>>4], digits[b[0]&15], digits[b[1]>>4], digits[b[1]&15]})
}

func itoa(i int) string { return strconv.Itoa(i) }

// A damaged record whose lengths are sound does not stop a Reader: the next
// call goes on with the next record (verify relies on this to list every bad
// record). ReadFile still fails.
func TestReaderContinuesAfterCRCMismatch(t *testing.T) {
	bad := rawRecord(`{"source":"b"}`, []byte("x"), 0)
	data := cat([]byte("ARCVEC\x00\x01"), rawRecord(`{"source":"a"}`, nil), bad, rawRecord(`{"source":"c"}`, nil), rawEnd(3))
	r, err := NewReader(bytes.NewReader(data), "mem")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if !errors.Is(err, ErrCRCMismatch) || !strings.Contains(err.Error(), "record 1") {
				t.Fatalf("unexpected error %v", err)
			}
			got = append(got, "!")
			continue
		}
		got = append(got, rec.Source+itoa(rec.Index))
	}
	if strings.Join(got, " ") != "a0 ! c2" {
		t.Errorf("got %v, want [a0 ! c2]", got)
	}
}

// Damage at the end marker is final: Next keeps returning it.
func TestReaderStopsAtBadEndMarker(t *testing.T) {
	end := rawEnd(1)
	end[9] ^= 1
	r, err := NewReader(bytes.NewReader(cat([]byte("ARCVEC\x00\x01"), rawRecord(`{"source":"a"}`, nil), end)), "mem")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	_, err1 := r.Next()
	_, err2 := r.Next()
	if !errors.Is(err1, ErrCRCMismatch) || err2 != err1 {
		t.Errorf("got %v then %v, want the end marker's CRC mismatch twice", err1, err2)
	}
}

// A declared length far beyond the data must not be allocated.
func TestNoAllocationFromDeclaredLength(t *testing.T) {
	data := cat([]byte("ARCVEC\x00\x01"), binary.BigEndian.AppendUint32([]byte{0, 0, 0, 14}, MaxMessageSize), []byte(`{"source":"a"}`), []byte("short"))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := decodeAll(t, data, "mem")
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTruncatedMessage) {
		t.Fatalf("got %v, want a truncated message", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("reading allocated %d bytes for a 16 MB declared message of 5 bytes", n)
	}
}

// The format names CRC-16/CCITT-FALSE: pin the library's parameters to its check value.
func TestCRCParameters(t *testing.T) {
	if got := crc16.Checksum([]byte("123456789"), crcTable); got != 0x29B1 || CRCName != "CRC-16/CCITT-FALSE" {
		t.Errorf("%s check value 0x%04x, want 0x29b1", CRCName, got)
	}
}

func TestCheckMessage(t *testing.T) {
	set := []byte{0x80, 0x01, 0x00, 0x01, 0, 0, 0, 3, 'S', 'e', 't', 0, 0, 0, 7,
		8, 0, 4, 0, 0, 0, 1, // flags
		0}
	tests := []struct {
		name string
		msg  []byte
		want string // "" for no error
	}{
		{"minimal Set", set, ""},
		{"leftover byte", append(bytes.Clone(set), 0), "1 bytes left over"},
		{"truncated", set[:20], "stopped at byte"},
		{"bad version", append([]byte{0x80, 0x02}, set[2:]...), "version"},
		{"unknown type", append(append(bytes.Clone(set[:15]), 1, 0, 9), 0), "Unknown data type 1"},
		{"empty", nil, "message header"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckMessage(tc.msg)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("CheckMessage: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckMessage: got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func FuzzReader(f *testing.F) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf)
	for _, rec := range sampleRecords()[:3] {
		w.Write(rec)
	}
	w.Close()
	f.Add(buf.Bytes())
	f.Add(cat([]byte("ARCVEC\x00\x01"), rawRecord(`{"source":"a","x":[1,{"y":null}]}`, []byte{0x80, 1, 0, 1}), rawEnd(1)))
	f.Add(cat([]byte("ARCVEC\x00\x01"), binary.BigEndian.AppendUint32([]byte{0, 0, 0, 2}, MaxMessageSize)))
	f.Add([]byte("ARCVEC\x00\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		var recs []Record
		total := 0
		for i := 0; ; i++ {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				var fe *FormatError
				if !errors.As(err, &fe) {
					t.Fatalf("error %v is not a *FormatError", err)
				}
				if fe.Resumable() {
					continue
				}
				return
			}
			if rec.Index != i {
				t.Fatalf("record %d has Index %d", i, rec.Index)
			}
			total += len(rec.Msg)
			if total > len(data) {
				t.Fatalf("records hold %d message bytes, input has %d", total, len(data))
			}
			recs = append(recs, rec)
		}
		// A file that reads cleanly re-encodes to records that read the same.
		got, err := decodeAll(t, encode(t, recs), "again")
		if err != nil {
			t.Fatalf("re-encoded file: %v", err)
		}
		if len(got) != len(recs) {
			t.Fatalf("re-encoded file has %d records, want %d", len(got), len(recs))
		}
		for i := range got {
			if got[i].Source != recs[i].Source || !bytes.Equal(got[i].Msg, recs[i].Msg) {
				t.Fatalf("record %d differs after re-encoding", i)
			}
		}
	})
}
