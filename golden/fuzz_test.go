package golden

import (
	"bytes"
	"testing"
)

// FuzzDeserialize checks the invariants that hold for every input: no panic,
// no write outside the image or into msg, a header line that is PutHeader of
// the result and parses back to it, and lengths and offsets within bounds.
// lines%80 is the capacity in 64-byte lines, so invalid capacities are
// fuzzed too.
func FuzzDeserialize(f *testing.F) {
	seeds := [][]byte{
		nil,
		canonical().bytes(),
		canonical().bytes()[:40],
		msg().head(0x80010004, "Set", 1).bin(3, bytes.Repeat([]byte{1}, 700)).stop().bytes(),
		msg().head(0x80010001, "Get", 1).bin(2, testKey).stop().bytes(),
		msg().head(0x80010002, "Set", 1).stop().bytes(),
		msg().head(0x80010001, "Sex", 1).stop().bytes(),
		msg().call(1).bin(2, bytes.Repeat([]byte{'k'}, 257)).stop().bytes(),
		msg().call(1).bin(2, []byte("abcdef")).bin(2, []byte("xy")).fixed(typeUUID, 6, 16).stop().raw(1, 2).bytes(),
		msg().call(1).field(typeList, 2).raw(typeByte, 0, 0, 0, 1, 'x').stop().bytes(),
		msg().call(1).field(typeBinary, 3).raw(be32(0xFFFFFFFF)...).bytes(),
		msg().call(1).field(typeBinary, 3).raw(be32(0x7FFFFFFF)...).bytes(),
		msg().call(1).raw(17, 0, 1).bytes(),
	}
	for i, s := range seeds {
		f.Add(s, uint16(16))
		f.Add(s, uint16(5+i))
	}
	f.Add(canonical().bytes(), uint16(4))

	f.Fuzz(func(t *testing.T, msg []byte, lines uint16) {
		const guard = 64
		c := int(lines%80) * 64
		buf := bytes.Repeat([]byte{fill}, guard+c+guard)
		img := buf[guard : guard+c : guard+c]
		in := bytes.Clone(msg)

		r := Deserialize(msg, img)

		if !bytes.Equal(msg, in) {
			t.Fatal("Deserialize wrote into msg")
		}
		for i := range guard {
			if buf[i] != fill || buf[guard+c+i] != fill {
				t.Fatalf("Deserialize wrote outside the image (guard byte %d)", i)
			}
		}
		if CheckCapacity(c) != nil {
			if r != (Result{}) || !bytes.Equal(img, pattern(c)) {
				t.Fatalf("capacity %d: result %+v, image touched: %v", c, r, !bytes.Equal(img, pattern(c)))
			}
			return
		}
		switch r.Code {
		case CodeOK, CodeTruncated, CodeBadVersion, CodeBadMsgType, CodeUnknownMethod,
			CodeBadLength, CodeBadType, CodeNestedUnsupported, CodeKeyTooLong, CodeValueTooLong, CodeMsgTooLarge:
		default:
			t.Fatalf("Deserialize returned code %v", r.Code)
		}
		if int(r.Offset) > len(msg) || r.KeyLen > KeyMax || int(r.ValueLen) > c-ValueOffset {
			t.Fatalf("out of bounds: %+v for %d bytes, C=%d", r, len(msg), c)
		}
		var line [HeaderSize]byte
		r.PutHeader(line[:])
		if !bytes.Equal(img[:HeaderSize], line[:]) {
			t.Fatalf("header line\n% x\nwant PutHeader(%+v)\n% x", img[:HeaderSize], r, line)
		}
		back, err := ParseHeader(img)
		if err != nil || back != r {
			t.Fatalf("ParseHeader = %+v, %v; want %+v", back, err, r)
		}
		// Deterministic: a second run into a fresh image gives the same bytes.
		img2 := pattern(c)
		if r2 := Deserialize(msg, img2); r2 != r || !bytes.Equal(img2, img) {
			t.Fatalf("second run: %+v, want %+v", r2, r)
		}
	})
}
