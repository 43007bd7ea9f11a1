package golden

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"arcalis/internal/memcached"
	"arcalis/vectors"

	"github.com/apache/thrift/lib/go/thrift"
)

// apacheEncode serializes a Set message with Apache's binary protocol,
// strict write, as a client would.
func apacheEncode(t *testing.T, typ thrift.TMessageType, seq int32, args *memcached.MemcachedServiceSetArgs) []byte {
	t.Helper()
	buf := thrift.NewTMemoryBuffer()
	msg, err := vectors.EncodeMessage(vectors.StrictBinary(buf), buf, "Set", typ, seq, args)
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

// decoded is what Apache's generated code makes of a message, plus what the
// spy protocol saw on the way.
type decoded struct {
	name     string
	typ      thrift.TMessageType
	seq      int32
	args     memcached.MemcachedServiceSetArgs // for a message named Set (or any other name)
	getArgs  memcached.MemcachedServiceGetArgs // for a message named Get
	consumed int                               // bytes read up to and including the STOP
	present  uint8                             // Present* bits of the fields the generated code read
	maxKey   int                               // longest key among all occurrences
	maxValue int                               // longest value among all occurrences
	nested   bool                              // a top-level field of a nested type was skipped
}

// spy passes every call to Apache's binary protocol, and records which
// argument fields the generated code reads and whether it skips a nested value.
type spy struct {
	thrift.TProtocol
	d        *decoded
	id       int16 // id of the current top-level field
	skipping bool
}

func (s *spy) ReadFieldBegin(ctx context.Context) (string, thrift.TType, int16, error) {
	name, t, id, err := s.TProtocol.ReadFieldBegin(ctx)
	if !s.skipping {
		s.id = id
	}
	return name, t, id, err
}

func (s *spy) Skip(ctx context.Context, t thrift.TType) error {
	switch t {
	case thrift.STRUCT, thrift.MAP, thrift.SET, thrift.LIST:
		s.d.nested = true
	}
	s.skipping = true
	defer func() { s.skipping = false }()
	return thrift.SkipDefaultDepth(ctx, s, t) // recurse through s, not the wrapped protocol
}

// Outside Skip, only the generated ReadField1..5 read these types (Get's
// ReadField1 and 2; it skips 3 to 5).
func (s *spy) ReadI64(ctx context.Context) (int64, error) {
	v, err := s.TProtocol.ReadI64(ctx)
	if err == nil && !s.skipping {
		s.d.present |= PresentReqID
	}
	return v, err
}

func (s *spy) ReadI32(ctx context.Context) (int32, error) {
	v, err := s.TProtocol.ReadI32(ctx)
	if err == nil && !s.skipping {
		switch s.id {
		case 4:
			s.d.present |= PresentFlags
		case 5:
			s.d.present |= PresentExptime
		}
	}
	return v, err
}

func (s *spy) ReadBinary(ctx context.Context) ([]byte, error) {
	v, err := s.TProtocol.ReadBinary(ctx)
	if err == nil && !s.skipping {
		switch s.id {
		case 2:
			s.d.present |= PresentKey
			s.d.maxKey = max(s.d.maxKey, len(v))
		case 3:
			s.d.present |= PresentValue
			s.d.maxValue = max(s.d.maxValue, len(v))
		}
	}
	return v, err
}

// apacheDecode reads msg as Apache's server side would: ReadMessageBegin,
// then the generated Get args Read for a Get, else Set's (for any other name
// too, to see its fields). strict is TBinaryStrictRead.
func apacheDecode(msg []byte, strict bool) (decoded, error) {
	ctx := context.Background()
	var d decoded
	buf := thrift.NewTMemoryBuffer()
	buf.Write(msg)
	p := &spy{TProtocol: thrift.NewTBinaryProtocolConf(buf, &thrift.TConfiguration{TBinaryStrictRead: thrift.BoolPtr(strict)}), d: &d}
	var err error
	if d.name, d.typ, d.seq, err = p.ReadMessageBegin(ctx); err != nil {
		return d, err
	}
	args := thrift.TStruct(&d.args)
	if d.name == "Get" {
		args = &d.getArgs
	}
	if err := args.Read(ctx, p); err != nil {
		return d, err
	}
	if err := p.ReadMessageEnd(ctx); err != nil {
		return d, err
	}
	d.consumed = len(msg) - buf.Len()
	return d, nil
}

// checkAgree fails unless Deserialize's OK result and image hold exactly
// what Apache decoded.
func checkAgree(t *testing.T, d decoded, r Result, img []byte) {
	t.Helper()
	want := Result{
		Code: CodeOK, MsgType: uint8(d.typ), Method: MethodSet, Present: d.present, SeqID: d.seq,
		ReqID: d.args.ReqID, Flags: d.args.Flags, Exptime: d.args.Exptime,
		KeyLen: uint32(len(d.args.Key)), ValueLen: uint32(len(d.args.Value)), Offset: uint32(d.consumed),
	}
	key := d.args.Key
	if d.name == "Get" {
		want.Method, want.ReqID, want.KeyLen, key = MethodGet, d.getArgs.ReqID, uint32(len(d.getArgs.Key)), d.getArgs.Key
	}
	if r != want {
		t.Fatalf("Deserialize and Apache disagree:\n golden %+v\n apache %+v", r, want)
	}
	if got := img[KeyOffset : KeyOffset+r.KeyLen]; !bytes.Equal(got, key) {
		t.Fatalf("image key %q, Apache key %q", got, key)
	}
	if value := img[ValueOffset : ValueOffset+r.ValueLen]; !bytes.Equal(value, d.args.Value) {
		t.Fatalf("image value differs from Apache's (%d bytes)", len(value))
	}
}

func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// TestApacheRoundTrip encodes random Set arguments with Apache and checks that
// Apache and Deserialize decode the same bytes to the same values.
func TestApacheRoundTrip(t *testing.T) {
	const c = ValueOffset + 64<<10 // room for a 64 KiB value
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 400 {
		args := &memcached.MemcachedServiceSetArgs{
			ReqID: int64(rng.Uint64()), Flags: int32(rng.Uint32()), Exptime: int32(rng.Uint32()),
		}
		switch i % 4 {
		case 0:
			args.Key = []byte{}
		case 1:
			args.Key = randBytes(rng, KeyMax)
		case 2:
			// nil: Apache writes an empty binary
		default:
			args.Key = randBytes(rng, rng.IntN(KeyMax+1))
		}
		switch i % 5 {
		case 0:
			args.Value = []byte{}
		case 1:
			args.Value = randBytes(rng, 64<<10)
		case 2:
			args.Value = randBytes(rng, rng.IntN(64<<10+1))
		default:
			args.Value = randBytes(rng, rng.IntN(600))
		}
		typ := thrift.TMessageType(thrift.CALL)
		if i%3 == 0 {
			typ = thrift.ONEWAY
		}
		seq := int32(rng.Uint32())
		t.Run(fmt.Sprintf("%d/key=%d/value=%d", i, len(args.Key), len(args.Value)), func(t *testing.T) {
			m := apacheEncode(t, typ, seq, args)
			// Apache's encoder writes what the hand builder writes.
			hand := msg().head(0x80010000|uint32(typ), "Set", seq).i64(1, args.ReqID).bin(2, args.Key).
				bin(3, args.Value).i32(4, args.Flags).i32(5, args.Exptime).stop().bytes()
			if !bytes.Equal(m, hand) {
				t.Fatalf("Apache wrote %d bytes that differ from the hand-built message", len(m))
			}
			d, err := apacheDecode(m, true)
			if err != nil {
				t.Fatalf("Apache cannot read its own message: %v", err)
			}
			r, img := run(m, c)
			checkAgree(t, d, r, img)
			if r.Present != 0x1F || int(r.Offset) != len(m) {
				t.Fatalf("present %#x offset %d, want 0x1f and %d", r.Present, r.Offset, len(m))
			}
			checkImage(t, img, wantImage(c, r, args.Key, args.Value))
		})
	}
}

// randomSet builds a random message that is often a valid Set: known fields,
// unknown and wrong-typed fields, nested values Apache can skip, UUIDs,
// repeated fields, sometimes long keys and values, sometimes trailing bytes.
func randomSet(rng *rand.Rand) []byte {
	w := msg()
	seq := int32(rng.Uint32())
	switch rng.IntN(12) {
	case 0:
		w.head(0x80010004, "Set", seq)
	case 1:
		w.head(0x80010001, "Get", seq)
	default:
		w.call(seq)
	}
	id := func() int16 { return int16(rng.IntN(9) - 1) } // -1..7: mostly near the known ids
	for range rng.IntN(9) {
		switch rng.IntN(11) {
		case 0:
			w.i64(1, int64(rng.Uint64()))
		case 1:
			n := rng.IntN(24)
			if rng.IntN(6) == 0 {
				n = KeyMax - 3 + rng.IntN(7)
			}
			w.bin(2, randBytes(rng, n))
		case 2:
			n := rng.IntN(80)
			if rng.IntN(6) == 0 {
				n = rng.IntN(2000)
			}
			w.bin(3, randBytes(rng, n))
		case 3:
			w.i32(4, int32(rng.Uint32()))
		case 4:
			w.i32(5, int32(rng.Uint32()))
		case 5:
			ts := []byte{typeBool, typeByte, typeDouble, typeI16, typeI32, typeI64}
			ty := ts[rng.IntN(len(ts))]
			w.field(ty, id()).raw(randBytes(rng, fixedSize[ty])...)
		case 6:
			w.bin(id(), randBytes(rng, rng.IntN(5)))
		case 7:
			if rng.IntN(4) == 0 {
				w.field(typeUUID, id()).raw(randBytes(rng, 16)...)
			}
		case 8: // a nested value Apache can skip
			switch rng.IntN(4) {
			case 0:
				w.field(typeStruct, id()).raw(typeI32, 0, 1, 0, 0, 0, 1, typeStop)
			case 1:
				w.field(typeList, id()).raw(typeI16, 0, 0, 0, 2, 0, 1, 0, 2)
			case 2:
				w.field(typeSet, id()).raw(typeBinary, 0, 0, 0, 1, 0, 0, 0, 1, 'x')
			default:
				w.field(typeMap, id()).raw(typeByte, typeBool, 0, 0, 0, 1, 7, 1)
			}
		default:
			w.field(byte(rng.IntN(18)), id()).raw(randBytes(rng, rng.IntN(9))...)
		}
	}
	w.stop()
	if rng.IntN(4) == 0 {
		w.raw(randBytes(rng, rng.IntN(8))...)
	}
	return w.bytes()
}

var interesting32 = []uint32{0, 1, 2, 3, 4, 7, 8, 255, 256, 257, 704, 705, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x80010001, 0x80010004}

// mutate applies up to three random byte-level changes to m.
func mutate(rng *rand.Rand, m []byte) []byte {
	m = bytes.Clone(m)
	for range rng.IntN(4) {
		if len(m) == 0 {
			return m
		}
		i := rng.IntN(len(m))
		switch rng.IntN(7) {
		case 0:
			m[i] ^= 1 << rng.IntN(8)
		case 1:
			m[i] = byte(rng.Uint32())
		case 2:
			m[i] = []byte{0, 1, 2, 3, 4, 5, 8, 10, 11, 12, 15, 16, 17, 0x7F, 0x80, 0xFF}[rng.IntN(16)]
		case 3:
			m = m[:i]
		case 4:
			m = append(m[:i:i], append(randBytes(rng, 1+rng.IntN(4)), m[i:]...)...)
		case 5:
			m = append(m[:i:i], m[min(len(m), i+1+rng.IntN(8)):]...)
		default:
			if i+4 <= len(m) {
				copy(m[i:], be32(interesting32[rng.IntN(len(interesting32))]))
			}
		}
	}
	return m
}

// isUUIDDivergence reports whether err is Apache 0.17 rejecting a field of
// type 16, which abi.md section 5 skips as a 16-byte UUID.
func isUUIDDivergence(err error) bool {
	var pe thrift.TProtocolException
	return errors.As(err, &pe) && pe.TypeId() == thrift.INVALID_DATA &&
		strings.Contains(err.Error(), "Unknown data type 16")
}

// TestApacheProperty checks random and mutated messages both ways: whenever
// Apache decodes a message that is within the documented limits, Deserialize
// returns OK with the same values; whenever Deserialize returns OK, Apache
// decodes the same values (but for the UUID divergence).
func TestApacheProperty(t *testing.T) {
	const n = 100000
	rng := rand.New(rand.NewPCG(3, 4))
	caps := []int{MinCapacity, 384, 1024, 2048}
	var bothOK, apacheOnly, goldenOnly, neither int
	for i := range n {
		m := randomSet(rng)
		if i%4 != 0 {
			m = mutate(rng, m)
		}
		c := caps[rng.IntN(len(caps))]
		r, img := run(m, c)
		d, err := apacheDecode(m, false)
		within := err == nil &&
			len(m) >= 4 && m[0] == 0x80 && m[1] == 0x01 && m[2] == 0 && // strict header, reserved byte 0
			(d.typ == thrift.CALL || d.typ == thrift.ONEWAY) && (d.name == "Set" || d.name == "Get") &&
			!d.nested && d.maxKey <= KeyMax && d.maxValue <= c-ValueOffset && len(m) <= MaxMessage
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("case %d, C=%d, message\n% x\n%s", i, c, m, fmt.Sprintf(format, args...))
		}
		switch {
		case within && r.Code != CodeOK:
			fail("Apache decodes %+v within the limits; Deserialize says %v at %d", d, r.Code, r.Offset)
		case r.Code == CodeOK && err != nil && !isUUIDDivergence(err):
			fail("Deserialize says OK; Apache fails: %v", err)
		case r.Code == CodeOK && err == nil && !within:
			fail("Deserialize says OK for a message outside the limits (Apache: %+v)", d)
		}
		if r.Code == CodeOK && err == nil {
			checkAgree(t, d, r, img)
		}
		switch {
		case r.Code == CodeOK && err == nil:
			bothOK++
		case err == nil:
			apacheOnly++
		case r.Code == CodeOK:
			goldenOnly++
		default:
			neither++
		}
	}
	t.Logf("%d messages: both OK %d, Apache only %d, golden only (UUID) %d, neither %d", n, bothOK, apacheOnly, goldenOnly, neither)
	if bothOK < n/10 || apacheOnly == 0 || goldenOnly == 0 || neither < n/10 {
		t.Fatalf("the generator does not exercise every outcome: %d %d %d %d", bothOK, apacheOnly, goldenOnly, neither)
	}
}

// TestApacheDivergences shows, for each difference from Apache's Go library
// (abi.md section 7, and two that section 7 does not list), what each side does.
func TestApacheDivergences(t *testing.T) {
	big := make([]byte, MaxMessage+1)
	copy(big, msg().call(9).i64(1, 5).field(typeBinary, 7).raw(be32(uint32(MaxMessage+1-15-11-7-1))...).bytes())
	big[MaxMessage] = typeStop

	cases := []struct {
		name   string
		msg    []byte
		c      int
		golden Code
		apache func(t *testing.T, d decoded, err error) // what Apache (strict read off) does
	}{
		{
			name: "non-strict header", golden: CodeBadVersion,
			msg: msg().raw(be32(3)...).raw('S', 'e', 't', MsgCall).raw(be32(9)...).i64(1, 5).stop().bytes(),
			apache: func(t *testing.T, d decoded, err error) {
				if err != nil || d.name != "Set" || d.args.ReqID != 5 {
					t.Errorf("Apache: %+v, %v; want Set with req_id 5", d, err)
				}
			},
		},
		{
			name: "version bits 15:8 not zero (not in section 7)", golden: CodeBadVersion,
			msg: msg().head(0x80010101, "Set", 9).i64(1, 5).stop().bytes(),
			apache: func(t *testing.T, d decoded, err error) {
				if err != nil || d.typ != thrift.CALL || d.args.ReqID != 5 {
					t.Errorf("Apache: %+v, %v; want a CALL with req_id 5", d, err)
				}
			},
		},
		{
			name: "REPLY", golden: CodeBadMsgType,
			msg: msg().head(0x80010002, "Set", 9).i64(1, 5).stop().bytes(),
			apache: func(t *testing.T, d decoded, err error) {
				if err != nil || d.typ != thrift.REPLY || d.args.ReqID != 5 {
					t.Errorf("Apache: %+v, %v; want a REPLY with req_id 5", d, err)
				}
			},
		},
		{
			name: "EXCEPTION", golden: CodeBadMsgType,
			msg: msg().head(0x80010003, "Set", 9).stop().bytes(),
			apache: func(t *testing.T, d decoded, err error) {
				if err != nil || d.typ != thrift.EXCEPTION {
					t.Errorf("Apache: %+v, %v; want an EXCEPTION", d, err)
				}
			},
		},
		{
			name: "method Del", golden: CodeUnknownMethod,
			msg: msg().head(0x80010001, "Del", 9).i64(1, 5).stop().bytes(),
			apache: func(t *testing.T, d decoded, err error) {
				if err != nil || d.name != "Del" {
					t.Errorf("Apache: %+v, %v; want method Del read", d, err)
				}
			},
		},
		{
			name: "unknown struct field", golden: CodeNestedUnsupported,
			msg:    msg().call(9).field(typeStruct, 9).raw(typeI64, 0, 1, 0, 0, 0, 0, 0, 0, 0, 7, typeStop).i64(1, 5).stop().bytes(),
			apache: skipsNested(5),
		},
		{
			name: "key as list", golden: CodeNestedUnsupported,
			msg:    msg().call(9).field(typeList, 2).raw(typeByte, 0, 0, 0, 2, 'h', 'i').i64(1, 5).stop().bytes(),
			apache: skipsNested(5),
		},
		{
			name: "unknown map field", golden: CodeNestedUnsupported,
			msg:    msg().call(9).field(typeMap, -4).raw(typeI16, typeBool, 0, 0, 0, 1, 0, 3, 1).i64(1, 5).stop().bytes(),
			apache: skipsNested(5),
		},
		{
			name: "value as set", golden: CodeNestedUnsupported,
			msg:    msg().call(9).field(typeSet, 3).raw(typeI32, 0, 0, 0, 0).i64(1, 5).stop().bytes(),
			apache: skipsNested(5),
		},
		{
			name: "key 257 bytes", golden: CodeKeyTooLong,
			msg: msg().call(9).bin(2, bytes.Repeat([]byte{'k'}, 257)).stop().bytes(),
			apache: func(t *testing.T, d decoded, err error) {
				if err != nil || len(d.args.Key) != 257 {
					t.Errorf("Apache: key %d bytes, %v; want 257", len(d.args.Key), err)
				}
			},
		},
		{
			name: "value one over the region", c: 384, golden: CodeValueTooLong,
			msg: msg().call(9).bin(3, make([]byte, 65)).stop().bytes(),
			apache: func(t *testing.T, d decoded, err error) {
				if err != nil || len(d.args.Value) != 65 {
					t.Errorf("Apache: value %d bytes, %v; want 65", len(d.args.Value), err)
				}
			},
		},
		{
			name: "bytes after STOP", golden: CodeOK,
			msg: msg().call(9).i64(1, 5).stop().raw(0xDE, 0xAD).bytes(),
			apache: func(t *testing.T, d decoded, err error) {
				// Apache also stops at STOP; the two bytes stay in the transport
				// for whatever reads next, where Deserialize drops them.
				if err != nil || d.consumed != 27 || d.args.ReqID != 5 {
					t.Errorf("Apache: %+v, %v; want req_id 5 and 27 bytes consumed", d, err)
				}
			},
		},
		{
			name: "UUID field (not in section 7)", golden: CodeOK,
			msg: msg().call(9).fixed(typeUUID, 9, 16).i64(1, 5).stop().bytes(),
			apache: func(t *testing.T, d decoded, err error) {
				// Apache Go 0.17.0 predates UUID: type 16 is "UTF8" and cannot be skipped.
				if !isUUIDDivergence(err) {
					t.Errorf("Apache: %v; want INVALID_DATA \"Unknown data type 16\"", err)
				}
			},
		},
		{
			name: "message over MaxMessage", golden: CodeMsgTooLarge, msg: big,
			apache: func(t *testing.T, d decoded, err error) {
				// MaxFrameSize bounds frames of the framed transport only; one
				// unframed message of this size is read whole.
				if err != nil || d.args.ReqID != 5 || d.consumed != MaxMessage+1 {
					t.Errorf("Apache: req_id %d, %d bytes, %v; want 5 and %d", d.args.ReqID, d.consumed, err, MaxMessage+1)
				}
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			if c == 0 {
				c = testCap
			}
			if r, _ := run(tc.msg, c); r.Code != tc.golden {
				t.Errorf("Deserialize: %v at %d, want %v", r.Code, r.Offset, tc.golden)
			}
			d, err := apacheDecode(tc.msg, false)
			tc.apache(t, d, err)
		})
	}

	t.Run("non-strict header with strict read", func(t *testing.T) {
		m := msg().raw(be32(3)...).raw('S', 'e', 't', MsgCall).raw(be32(9)...).stop().bytes()
		var pe thrift.TProtocolException
		if _, err := apacheDecode(m, true); !errors.As(err, &pe) || pe.TypeId() != thrift.BAD_VERSION {
			t.Errorf("Apache with strict read: %v, want BAD_VERSION", err)
		}
	})
}

// skipsNested returns a check that Apache skipped a nested field and read the
// req_id after it.
func skipsNested(reqID int64) func(*testing.T, decoded, error) {
	return func(t *testing.T, d decoded, err error) {
		t.Helper()
		if err != nil || !d.nested || d.args.ReqID != reqID || d.args.Key != nil || d.args.Value != nil {
			t.Errorf("Apache: %+v, %v; want the nested field skipped and req_id %d", d, err, reqID)
		}
	}
}
