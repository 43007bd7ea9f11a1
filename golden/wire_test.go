package golden

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// wire builds Thrift binary-protocol messages by hand, independently of both
// Deserialize and Apache's encoder. It also records the message as the
// "need k bytes at p" chunks of abi.md section 5, each with what the parser
// knows once the whole chunk has arrived, so a test can say what any prefix of
// the message must give.
type wire struct {
	b      []byte
	chunks []chunk
	get    bool // the header named Get: fields 3 to 5 are not its arguments
}

type chunk struct {
	start, end int
	done       func(r *Result, img []byte) // nil: the chunk sets nothing
}

func msg() *wire { return new(wire) }

func (w *wire) add(done func(*Result, []byte), b ...byte) *wire {
	w.chunks = append(w.chunks, chunk{len(w.b), len(w.b) + len(b), done})
	w.b = append(w.b, b...)
	return w
}

func be16(v uint16) []byte { return binary.BigEndian.AppendUint16(nil, v) }
func be32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
func be64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

// raw appends bytes that no rule gives a meaning to (as one chunk).
func (w *wire) raw(b ...byte) *wire { return w.add(nil, b...) }

// head appends a strict header: version word ver, name, seqid.
func (w *wire) head(ver uint32, name string, seq int32) *wire {
	method := uint8(MethodUnknown)
	switch name {
	case "Set":
		method = MethodSet
	case "Get":
		method = MethodGet
	}
	w.get = method == MethodGet
	w.add(func(r *Result, _ []byte) { r.MsgType = uint8(ver) }, be32(ver)...)
	w.add(nil, be32(uint32(len(name)))...)
	w.add(func(r *Result, _ []byte) { r.Method = method }, []byte(name)...)
	return w.add(func(r *Result, _ []byte) { r.SeqID = seq }, be32(uint32(seq))...)
}

// call appends the strict header of a CALL to Set.
func (w *wire) call(seq int32) *wire { return w.head(0x80010001, "Set", seq) }

// field appends a field header.
func (w *wire) field(t byte, id int16) *wire {
	return w.add(nil, append([]byte{t}, be16(uint16(id))...)...)
}

func (w *wire) i64(id int16, v int64) *wire {
	w.field(typeI64, id)
	return w.add(func(r *Result, _ []byte) {
		if id == 1 {
			r.ReqID = v
			r.Present |= PresentReqID
		}
	}, be64(uint64(v))...)
}

func (w *wire) i32(id int16, v int32) *wire {
	w.field(typeI32, id)
	get := w.get
	return w.add(func(r *Result, _ []byte) {
		switch {
		case get:
		case id == 4:
			r.Flags = v
			r.Present |= PresentFlags
		case id == 5:
			r.Exptime = v
			r.Present |= PresentExptime
		}
	}, be32(uint32(v))...)
}

// fixed appends a field of fixed-size type t whose payload is size bytes of 0x5A.
// It must not be one of the three fixed-size fields Set knows.
func (w *wire) fixed(t byte, id int16, size int) *wire {
	w.field(t, id)
	return w.add(nil, bytes.Repeat([]byte{0x5A}, size)...)
}

func (w *wire) bin(id int16, b []byte) *wire {
	w.field(typeBinary, id)
	w.add(nil, be32(uint32(len(b)))...)
	get := w.get
	return w.add(func(r *Result, img []byte) {
		switch {
		case id == 2:
			copy(img[KeyOffset:], b)
			r.KeyLen = uint32(len(b))
			r.Present |= PresentKey
		case id == 3 && !get:
			copy(img[ValueOffset:], b)
			r.ValueLen = uint32(len(b))
			r.Present |= PresentValue
		}
	}, b...)
}

func (w *wire) stop() *wire { return w.raw(typeStop) }

func (w *wire) bytes() []byte { return w.b }

// expect returns the result and image that the first k bytes of a valid Set
// message must give with capacity c: TRUNCATED at the start of the chunk
// that holds byte k, or OK at k for the whole message.
func (w *wire) expect(k, c int) (Result, []byte) {
	img := pattern(c)
	var r Result
	r.Code, r.Offset = CodeOK, uint32(k)
	for _, ch := range w.chunks {
		if ch.end <= k {
			if ch.done != nil {
				ch.done(&r, img)
			}
		} else if ch.start <= k {
			r.Code, r.Offset = CodeTruncated, uint32(ch.start)
			break
		}
	}
	r.PutHeader(img)
	return r, img
}

const fill = 0xA5

// pattern returns an image of c bytes that Deserialize has not touched.
func pattern(c int) []byte { return bytes.Repeat([]byte{fill}, c) }

// wantImage returns the image Deserialize must leave: key and value are the bytes
// written to the two regions (nil: none), then the header of r.
func wantImage(c int, r Result, key, value []byte) []byte {
	img := pattern(c)
	copy(img[KeyOffset:], key)
	copy(img[ValueOffset:], value)
	r.PutHeader(img)
	return img
}

// checkImage reports the first bytes where got and want differ.
func checkImage(t *testing.T, got, want []byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("image is %d bytes, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			end := min(i+16, len(got))
			t.Fatalf("image byte %d: got % x..., want % x...", i, got[i:end], want[i:end])
		}
	}
}

// run deserializes msg into a fresh patterned image of c bytes. msg is passed
// with its capacity cut to its length, so a read past the end would panic.
func run(msg []byte, c int) (Result, []byte) {
	img := pattern(c)
	return Deserialize(msg[:len(msg):len(msg)], img), img
}

func TestWireBuilder(t *testing.T) {
	got := msg().call(7).i64(1, -2).bin(2, []byte("k")).i32(4, 3).stop().bytes()
	want := []byte{
		0x80, 0x01, 0x00, 0x01, 0, 0, 0, 3, 'S', 'e', 't', 0, 0, 0, 7,
		10, 0, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
		11, 0, 2, 0, 0, 0, 1, 'k',
		8, 0, 4, 0, 0, 0, 3,
		0,
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("builder wrote\n% x\nwant\n% x", got, want)
	}
}
