package golden

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"arcalis/internal/perm"
)

const testCap = 1024 // capacity used unless a test says otherwise: value region 704 bytes

var (
	testKey   = []byte("memc-key")     // 8 bytes
	testValue = []byte("value-bytes!") // 12 bytes
)

// canonical is a Set CALL with all five fields in schema order; 75 bytes:
// header [0,15), req_id [15,26), key [26,41), value [41,60), flags [60,67),
// exptime [67,74), STOP at 74.
func canonical() *wire {
	return msg().call(9).
		i64(1, 0x1122334455667788).
		bin(2, testKey).
		bin(3, testValue).
		i32(4, -7).
		i32(5, 3600).
		stop()
}

// canonicalResult is what canonical() gives.
var canonicalResult = Result{
	Code: CodeOK, MsgType: MsgCall, Method: MethodSet, Present: 0x1F, SeqID: 9,
	ReqID: 0x1122334455667788, Flags: -7, Exptime: 3600, KeyLen: 8, ValueLen: 12, Offset: 75,
}

// hdr is the result after a valid Set header with seqid 9, before any field.
func hdr(code Code, off uint32) Result {
	return Result{Code: code, MsgType: MsgCall, Method: MethodSet, SeqID: 9, Offset: off}
}

type deserializeCase struct {
	name       string
	msg        []byte
	c          int // capacity; 0 means testCap
	want       Result
	key, value []byte // bytes written to the key and value regions; nil: none
}

func (tc deserializeCase) run(t *testing.T) {
	t.Helper()
	c := tc.c
	if c == 0 {
		c = testCap
	}
	got, img := run(tc.msg, c)
	if got != tc.want {
		t.Errorf("Deserialize:\n got %+v\nwant %+v", got, tc.want)
	}
	checkImage(t, img, wantImage(c, tc.want, tc.key, tc.value))
}

func runCases(t *testing.T, cases []deserializeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, tc.run)
	}
}

func TestDeserializeOK(t *testing.T) {
	oneway := canonicalResult
	oneway.MsgType = MsgOneway
	runCases(t, []deserializeCase{
		{name: "canonical", msg: canonical().bytes(), want: canonicalResult, key: testKey, value: testValue},
		{
			name: "oneway",
			msg: msg().head(0x80010004, "Set", 9).i64(1, 0x1122334455667788).bin(2, testKey).
				bin(3, testValue).i32(4, -7).i32(5, 3600).stop().bytes(),
			want: oneway, key: testKey, value: testValue,
		},
		{name: "no fields", msg: msg().call(9).stop().bytes(), want: hdr(CodeOK, 16)},
		{
			name: "missing fields stay zero",
			msg:  msg().call(9).bin(2, []byte("k")).stop().bytes(),
			want: Result{Code: CodeOK, MsgType: 1, Method: 1, SeqID: 9, Present: PresentKey, KeyLen: 1, Offset: 24},
			key:  []byte("k"),
		},
		{
			name: "empty key and value",
			msg:  msg().call(9).bin(2, nil).bin(3, nil).stop().bytes(),
			want: Result{Code: CodeOK, MsgType: 1, Method: 1, SeqID: 9, Present: PresentKey | PresentValue, Offset: 30},
		},
		{
			name: "extreme integers",
			msg: msg().head(0x80010001, "Set", math.MinInt32).i64(1, math.MinInt64).
				i32(4, math.MaxInt32).i32(5, -1).stop().bytes(),
			want: Result{
				Code: CodeOK, MsgType: 1, Method: 1, SeqID: math.MinInt32, ReqID: math.MinInt64,
				Flags: math.MaxInt32, Exptime: -1, Present: PresentReqID | PresentFlags | PresentExptime, Offset: 41,
			},
		},
		{
			name: "bytes after STOP ignored",
			msg:  msg().call(9).i32(4, 1).stop().raw(0xFF, typeStruct, 0, 1, 11, 0, 2, 0xFF, 0xFF, 0xFF, 0xFF).bytes(),
			want: Result{Code: CodeOK, MsgType: 1, Method: 1, SeqID: 9, Flags: 1, Present: PresentFlags, Offset: 23},
		},
		{
			name: "repeated fields: last wins, stale tails stay",
			msg: msg().call(9).
				i64(1, 1).bin(2, []byte("abcdef")).bin(3, []byte("0123456789")).i32(4, 4).i32(5, 5).
				i64(1, 2).bin(2, []byte("xy")).bin(3, []byte("ab")).i32(4, 40).i32(5, 50).
				stop().bytes(),
			want: Result{
				Code: CodeOK, MsgType: 1, Method: 1, SeqID: 9, Present: 0x1F,
				ReqID: 2, Flags: 40, Exptime: 50, KeyLen: 2, ValueLen: 2, Offset: 15 + 11 + 13 + 17 + 7 + 7 + 11 + 9 + 9 + 7 + 7 + 1,
			},
			key: []byte("xycdef"), value: []byte("ab23456789"),
		},
		{
			name: "repeated fields: longer second occurrence",
			msg:  msg().call(9).bin(2, []byte("xy")).bin(2, []byte("abcdef")).stop().bytes(),
			want: Result{Code: CodeOK, MsgType: 1, Method: 1, SeqID: 9, Present: PresentKey, KeyLen: 6, Offset: 15 + 9 + 13 + 1},
			key:  []byte("abcdef"),
		},
		{
			name: "repeated empty key keeps the old bytes",
			msg:  msg().call(9).bin(2, []byte("abc")).bin(2, nil).stop().bytes(),
			want: Result{Code: CodeOK, MsgType: 1, Method: 1, SeqID: 9, Present: PresentKey, KeyLen: 0, Offset: 15 + 10 + 7 + 1},
			key:  []byte("abc"),
		},
	})
}

// TestFieldOrder checks all 5! = 120 orders of the five Set fields.
func TestFieldOrder(t *testing.T) {
	fields := []func(*wire){
		func(w *wire) { w.i64(1, 0x1122334455667788) },
		func(w *wire) { w.bin(2, testKey) },
		func(w *wire) { w.bin(3, testValue) },
		func(w *wire) { w.i32(4, -7) },
		func(w *wire) { w.i32(5, 3600) },
	}
	orders := perm.All(5)
	if len(orders) != 120 {
		t.Fatalf("%d permutations, want 120", len(orders))
	}
	for _, order := range orders {
		t.Run(fmt.Sprint(order), func(t *testing.T) {
			w := msg().call(9)
			for _, f := range order {
				fields[f](w)
			}
			deserializeCase{msg: w.stop().bytes(), want: canonicalResult, key: testKey, value: testValue}.run(t)
		})
	}
}

// TestSkip checks that fields Set does not know are skipped, whatever their
// fixed-size or binary type, and that the parser lands on the next field.
func TestSkip(t *testing.T) {
	types := []struct {
		name string
		t    byte
		size int
	}{
		{"bool", typeBool, 1}, {"byte", typeByte, 1}, {"double", typeDouble, 8}, {"i16", typeI16, 2},
		{"i32", typeI32, 4}, {"i64", typeI64, 8}, {"uuid", typeUUID, 16}, {"binary", typeBinary, -1},
	}
	for _, ty := range types {
		for _, id := range []int16{0, 6, 7, 100, -1, -2, math.MaxInt16, math.MinInt16} {
			t.Run(fmt.Sprintf("%s/id=%d", ty.name, id), func(t *testing.T) {
				w := msg().call(9)
				skipped := 3 + ty.size
				if ty.size < 0 {
					w.bin(id, []byte("skip me"))
					skipped = 7 + 7
				} else {
					w.fixed(ty.t, id, ty.size)
				}
				w.bin(2, testKey).stop()
				want := Result{
					Code: CodeOK, MsgType: 1, Method: 1, SeqID: 9, Present: PresentKey, KeyLen: 8,
					Offset: uint32(15 + skipped + 15 + 1),
				}
				deserializeCase{msg: w.bytes(), want: want, key: testKey}.run(t)
			})
		}
	}
}

// TestWrongTypeSkipped checks that a known field id with another type is
// skipped like an unknown field: it sets nothing and writes nothing.
func TestWrongTypeSkipped(t *testing.T) {
	cases := []struct {
		id   int16
		t    byte
		size int // -1: binary
	}{
		{1, typeI32, 4}, {1, typeDouble, 8}, {1, typeUUID, 16}, {1, typeBinary, -1},
		{2, typeI64, 8}, {2, typeBool, 1}, {2, typeUUID, 16},
		{3, typeI32, 4}, {3, typeByte, 1}, {3, typeUUID, 16},
		{4, typeI64, 8}, {4, typeI16, 2}, {4, typeBinary, -1},
		{5, typeI64, 8}, {5, typeDouble, 8}, {5, typeBinary, -1},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("id=%d/type=%d", tc.id, tc.t), func(t *testing.T) {
			w := msg().call(9)
			n := 3 + tc.size
			if tc.size < 0 {
				w.field(typeBinary, tc.id).raw(be32(4)...).raw('a', 'b', 'c', 'd')
				n = 11
			} else {
				w.fixed(tc.t, tc.id, tc.size)
			}
			deserializeCase{msg: w.stop().bytes(), want: hdr(CodeOK, uint32(15+n+1))}.run(t)
		})
	}
}

func TestDeserializeErrors(t *testing.T) {
	setHead := func() *wire { return msg().call(9) }
	// withKey is the result after a valid header and the 15-byte key field of testKey.
	withKey := func(code Code, off uint32) Result {
		r := hdr(code, off)
		r.KeyLen, r.Present = 8, PresentKey
		return r
	}
	runCases(t, []deserializeCase{
		// Rule 2: version and message type.
		{name: "nil message", msg: nil, want: Result{Code: CodeTruncated}},
		{name: "3 bytes", msg: []byte{0x80, 0x01, 0x00}, want: Result{Code: CodeTruncated}},
		{name: "version 2", msg: msg().head(0x80020001, "Set", 9).stop().bytes(), want: Result{Code: CodeBadVersion}},
		{name: "version bits 15:8 set", msg: msg().head(0x80010101, "Set", 9).stop().bytes(), want: Result{Code: CodeBadVersion}},
		{name: "version bit 15 set", msg: msg().head(0x80018001, "Set", 9).stop().bytes(), want: Result{Code: CodeBadVersion}},
		{name: "version alone", msg: []byte{0x80, 0x02, 0x00, 0x01}, want: Result{Code: CodeBadVersion}},
		{
			name: "old-style header",
			msg:  msg().raw(be32(3)...).raw('S', 'e', 't', 1).raw(be32(9)...).stop().bytes(),
			want: Result{Code: CodeBadVersion},
		},
		{name: "compact protocol", msg: []byte{0x82, 0x21, 0x09, 0x03, 'S', 'e', 't', 0}, want: Result{Code: CodeBadVersion}},
		{name: "all ones", msg: []byte{0xFF, 0xFF, 0xFF, 0xFF}, want: Result{Code: CodeBadVersion}},
		{name: "type 0", msg: msg().head(0x80010000, "Set", 9).stop().bytes(), want: Result{Code: CodeBadMsgType, MsgType: 0}},
		{name: "REPLY", msg: msg().head(0x80010002, "Set", 9).stop().bytes(), want: Result{Code: CodeBadMsgType, MsgType: 2}},
		{name: "EXCEPTION", msg: msg().head(0x80010003, "Set", 9).stop().bytes(), want: Result{Code: CodeBadMsgType, MsgType: 3}},
		{name: "type 5", msg: msg().head(0x80010005, "Set", 9).stop().bytes(), want: Result{Code: CodeBadMsgType, MsgType: 5}},
		{name: "type 255", msg: []byte{0x80, 0x01, 0x00, 0xFF}, want: Result{Code: CodeBadMsgType, MsgType: 255}},

		// Rules 3 and 4: method name.
		{name: "name length missing", msg: []byte{0x80, 0x01, 0x00, 0x01, 0, 0, 0}, want: Result{Code: CodeTruncated, MsgType: 1, Offset: 4}},
		{name: "name length -1", msg: msg().raw(be32(0x80010001)...).raw(be32(math.MaxUint32)...).bytes(), want: Result{Code: CodeBadLength, MsgType: 1, Offset: 4}},
		{name: "name length MinInt32", msg: msg().raw(be32(0x80010001)...).raw(be32(1<<31)...).raw('S', 'e', 't').bytes(), want: Result{Code: CodeBadLength, MsgType: 1, Offset: 4}},
		{name: "name length 0", msg: msg().head(0x80010001, "", 9).stop().bytes(), want: Result{Code: CodeUnknownMethod, MsgType: 1, Offset: 4}},
		{name: "name length 2", msg: msg().head(0x80010001, "Se", 9).stop().bytes(), want: Result{Code: CodeUnknownMethod, MsgType: 1, Offset: 4}},
		{name: "name length 4", msg: msg().head(0x80010001, "Sets", 9).stop().bytes(), want: Result{Code: CodeUnknownMethod, MsgType: 1, Offset: 4}},
		{name: "name length MaxInt32 before truncation", msg: msg().raw(be32(0x80010001)...).raw(be32(math.MaxInt32)...).bytes(), want: Result{Code: CodeUnknownMethod, MsgType: 1, Offset: 4}},
		{name: "name truncated", msg: msg().raw(be32(0x80010001)...).raw(be32(3)...).raw('S', 'e').bytes(), want: Result{Code: CodeTruncated, MsgType: 1, Offset: 8}},
		{name: "name set", msg: msg().head(0x80010001, "set", 9).stop().bytes(), want: Result{Code: CodeUnknownMethod, MsgType: 1, Offset: 8}},
		{name: "name SET", msg: msg().head(0x80010001, "SET", 9).stop().bytes(), want: Result{Code: CodeUnknownMethod, MsgType: 1, Offset: 8}},
		{name: "name Del", msg: msg().head(0x80010001, "Del", 9).stop().bytes(), want: Result{Code: CodeUnknownMethod, MsgType: 1, Offset: 8}},
		{name: "name NULs", msg: msg().head(0x80010001, "\x00\x00\x00", 9).stop().bytes(), want: Result{Code: CodeUnknownMethod, MsgType: 1, Offset: 8}},
		{name: "unknown method before seqid", msg: msg().raw(be32(0x80010001)...).raw(be32(3)...).raw('G', 'e', 'x').bytes(), want: Result{Code: CodeUnknownMethod, MsgType: 1, Offset: 8}},

		// Rule 5: seqid and Get.
		{name: "seqid truncated", msg: msg().raw(be32(0x80010001)...).raw(be32(3)...).raw('S', 'e', 't', 0, 0, 0).bytes(), want: Result{Code: CodeTruncated, MsgType: 1, Method: MethodSet, Offset: 11}},
		{name: "Get seqid truncated", msg: msg().raw(be32(0x80010001)...).raw(be32(3)...).raw('G', 'e', 't', 0).bytes(), want: Result{Code: CodeTruncated, MsgType: 1, Method: MethodGet, Offset: 11}},
		// A Get's fields are checked as a Set's (rule 6), with its own two slots.
		{name: "Get with garbage args", msg: msg().head(0x80010001, "Get", 9).raw(0xFF, 0xFF).bytes(), want: Result{Code: CodeTruncated, MsgType: 1, Method: MethodGet, SeqID: 9, Offset: 15}},
		{name: "Get with a bad type", msg: msg().head(0x80010001, "Get", 9).raw(0xFF, 0, 1).bytes(), want: Result{Code: CodeBadType, MsgType: 1, Method: MethodGet, SeqID: 9, Offset: 15}},
		{name: "Get with a huge key", msg: msg().head(0x80010001, "Get", 9).bin(2, bytes.Repeat([]byte{1}, 300)).stop().bytes(), want: Result{Code: CodeKeyTooLong, MsgType: 1, Method: MethodGet, SeqID: 9, Offset: 18}},

		// Rule 6: fields.
		{name: "no STOP", msg: setHead().bytes(), want: hdr(CodeTruncated, 15)},
		{name: "no STOP after key", msg: setHead().bin(2, testKey).bytes(), want: withKey(CodeTruncated, 30), key: testKey},
		{name: "field id cut", msg: setHead().raw(typeI32, 0).bytes(), want: hdr(CodeTruncated, 15)},
		{name: "bad type byte alone is TRUNCATED", msg: setHead().raw(1).bytes(), want: hdr(CodeTruncated, 15)},
		{name: "i64 payload cut", msg: setHead().field(typeI64, 1).raw(1, 2, 3, 4, 5, 6, 7).bytes(), want: hdr(CodeTruncated, 18)},
		{name: "uuid payload cut", msg: setHead().fixed(typeUUID, 9, 15).bytes(), want: hdr(CodeTruncated, 18)},
		{name: "binary length cut", msg: setHead().field(typeBinary, 2).raw(0, 0, 0).bytes(), want: hdr(CodeTruncated, 18)},
		{name: "key bytes cut", msg: setHead().field(typeBinary, 2).raw(be32(8)...).raw('m', 'e', 'm', 'c', '-', 'k', 'e').bytes(), want: hdr(CodeTruncated, 22)},
		{name: "key length MaxInt32", msg: setHead().field(typeBinary, 2).raw(be32(math.MaxInt32)...).raw(1, 2, 3).bytes(), want: hdr(CodeTruncated, 22)},
		{name: "value length MaxInt32", msg: setHead().field(typeBinary, 3).raw(be32(math.MaxInt32)...).bytes(), want: hdr(CodeTruncated, 22)},
		{name: "unknown binary length MaxInt32", msg: setHead().field(typeBinary, 9).raw(be32(math.MaxInt32)...).stop().bytes(), want: hdr(CodeTruncated, 22)},
		{name: "key 257 truncated is TRUNCATED", msg: setHead().field(typeBinary, 2).raw(be32(257)...).raw(make([]byte, 256)...).bytes(), want: hdr(CodeTruncated, 22)},
		{name: "key length -1", msg: setHead().field(typeBinary, 2).raw(be32(math.MaxUint32)...).stop().bytes(), want: hdr(CodeBadLength, 18)},
		{name: "value length -1", msg: setHead().bin(2, testKey).field(typeBinary, 3).raw(be32(math.MaxUint32)...).stop().bytes(), want: withKey(CodeBadLength, 33), key: testKey},
		{name: "unknown binary length MinInt32", msg: setHead().field(typeBinary, 77).raw(be32(1 << 31)...).stop().bytes(), want: hdr(CodeBadLength, 18)},
		{name: "key 257", msg: setHead().bin(2, bytes.Repeat([]byte{'k'}, 257)).stop().bytes(), want: hdr(CodeKeyTooLong, 18)},
		{name: "key 257 after value", msg: setHead().bin(3, testValue).bin(2, bytes.Repeat([]byte{'k'}, 257)).stop().bytes(), want: Result{Code: CodeKeyTooLong, MsgType: 1, Method: 1, SeqID: 9, Present: PresentValue, ValueLen: 12, Offset: 37}, value: testValue},
		{name: "value 705 in 1024", msg: setHead().bin(2, testKey).bin(3, make([]byte, 705)).stop().bytes(), want: withKey(CodeValueTooLong, 33), key: testKey},
		{name: "value 1 in 320", c: 320, msg: setHead().bin(3, []byte{1}).stop().bytes(), want: hdr(CodeValueTooLong, 18)},
		{name: "value 0 in 320", c: 320, msg: setHead().bin(3, nil).stop().bytes(), want: Result{Code: CodeOK, MsgType: 1, Method: 1, SeqID: 9, Present: PresentValue, Offset: 23}},
		{
			name: "earlier fields keep their values",
			msg:  setHead().i64(1, 5).bin(2, testKey).i32(4, 8).raw(7, 0, 9).bytes(),
			want: Result{Code: CodeBadType, MsgType: 1, Method: 1, SeqID: 9, ReqID: 5, Flags: 8, KeyLen: 8, Present: PresentReqID | PresentKey | PresentFlags, Offset: 48},
			key:  testKey,
		},
	})
}

func TestBadType(t *testing.T) {
	for _, ty := range []byte{1, 5, 7, 9, 17, 18, 0x7F, 0x80, 0xFF} {
		t.Run(fmt.Sprintf("type=%d", ty), func(t *testing.T) {
			runCases(t, []deserializeCase{
				{name: "first", msg: msg().call(9).field(ty, 1).raw(make([]byte, 16)...).stop().bytes(), want: hdr(CodeBadType, 15)},
				{name: "no payload", msg: msg().call(9).field(ty, 2).bytes(), want: hdr(CodeBadType, 15)},
				{
					name: "after key", msg: msg().call(9).bin(2, testKey).field(ty, 99).stop().bytes(),
					want: Result{Code: CodeBadType, MsgType: 1, Method: 1, SeqID: 9, KeyLen: 8, Present: PresentKey, Offset: 30}, key: testKey,
				},
			})
		})
	}
}

func TestNested(t *testing.T) {
	for _, ty := range []byte{typeStruct, typeMap, typeSet, typeList} {
		for _, id := range []int16{1, 2, 3, 99, -1} {
			t.Run(fmt.Sprintf("type=%d/id=%d", ty, id), func(t *testing.T) {
				// A valid empty nested value: struct STOP; map key/value types and count 0; list/set element type and count 0.
				var empty []byte
				switch ty {
				case typeStruct:
					empty = []byte{0}
				case typeMap:
					empty = []byte{typeI32, typeI32, 0, 0, 0, 0}
				default:
					empty = []byte{typeI32, 0, 0, 0, 0}
				}
				runCases(t, []deserializeCase{
					{name: "first", msg: msg().call(9).field(ty, id).raw(empty...).stop().bytes(), want: hdr(CodeNestedUnsupported, 15)},
					{name: "no payload", msg: msg().call(9).field(ty, id).bytes(), want: hdr(CodeNestedUnsupported, 15)},
					{
						name: "after key", msg: msg().call(9).bin(2, testKey).field(ty, id).raw(empty...).stop().bytes(),
						want: Result{Code: CodeNestedUnsupported, MsgType: 1, Method: 1, SeqID: 9, KeyLen: 8, Present: PresentKey, Offset: 30}, key: testKey,
					},
				})
			})
		}
	}
}

func TestKeyLength(t *testing.T) {
	for n := 0; n <= KeyMax+1; n++ {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			key := make([]byte, n)
			for i := range key {
				key[i] = byte(i*7 + n)
			}
			m := msg().call(9).bin(2, key).stop().bytes()
			if n > KeyMax {
				deserializeCase{msg: m, want: hdr(CodeKeyTooLong, 18)}.run(t)
				return
			}
			want := hdr(CodeOK, uint32(15+7+n+1))
			want.KeyLen, want.Present = uint32(n), PresentKey
			deserializeCase{msg: m, want: want, key: key}.run(t)
		})
	}
}

func TestValueCapacity(t *testing.T) {
	for _, c := range []int{MinCapacity, 384, 1024, 4096, 65856, MaxCapacity} {
		region := c - ValueOffset
		for _, n := range []int{region, region + 1} {
			t.Run(fmt.Sprintf("C=%d/value=%d", c, n), func(t *testing.T) {
				value := bytes.Repeat([]byte{0x3C}, n)
				m := msg().call(9).bin(3, value).stop().bytes()
				if n > region {
					deserializeCase{msg: m, c: c, want: hdr(CodeValueTooLong, 18)}.run(t)
					return
				}
				want := hdr(CodeOK, uint32(15+7+n+1))
				want.ValueLen, want.Present = uint32(n), PresentValue
				deserializeCase{msg: m, c: c, want: want, value: value}.run(t)
			})
		}
	}
}

// TestTruncation cuts valid messages at every byte: each prefix must give
// TRUNCATED at the start of the item it cuts, with the fields before it set.
func TestTruncation(t *testing.T) {
	messages := []struct {
		name string
		w    *wire
	}{
		{"canonical", canonical()},
		{"oneway", msg().head(0x80010004, "Set", -1).bin(3, testValue).i64(1, -1).stop()},
		{"empty key and value", msg().call(9).bin(2, nil).bin(3, nil).stop()},
		{
			"unknown and repeated fields",
			msg().call(9).fixed(typeBool, 7, 1).bin(2, []byte("abcdef")).fixed(typeUUID, 2, 16).
				i32(4, 1).bin(200, []byte("skipped")).fixed(typeDouble, -1, 8).fixed(typeI16, 3, 2).
				bin(2, []byte("xy")).fixed(typeByte, 0, 1).i32(4, 2).i32(5, 3).i64(1, 4).i64(9, 5).stop(),
		},
		{"Get", msg().head(0x80010001, "Get", 77).i64(1, 5).bin(2, testKey).stop()},
		{"Get oneway, no args", msg().head(0x80010004, "Get", -3).stop()},
		// Set's fields 3 to 5 are unknown to Get_args: skipped, not written.
		{"Get with Set's other fields", msg().head(0x80010001, "Get", 8).bin(3, testValue).i32(4, 1).bin(2, testKey).i32(5, 2).i64(1, -9).stop()},
	}
	for _, m := range messages {
		full := m.w.bytes()
		for k := 0; k <= len(full); k++ {
			t.Run(fmt.Sprintf("%s/%d", m.name, k), func(t *testing.T) {
				want, wantImg := m.w.expect(k, testCap)
				if k < len(full) && want.Code != CodeTruncated {
					t.Fatalf("test bug: expected code %v for a cut message", want.Code)
				}
				got, img := run(full[:k], testCap)
				if got != want {
					t.Errorf("Deserialize:\n got %+v\nwant %+v", got, want)
				}
				checkImage(t, img, wantImg)
			})
		}
	}
}

func TestMsgTooLarge(t *testing.T) {
	// One buffer of MaxMessage+1 bytes: a Set with a key, an unknown binary
	// field that pads the message to exactly MaxMessage bytes, and STOP.
	prefix := msg().call(9).bin(2, []byte("k")).field(typeBinary, 7).bytes()
	pad := MaxMessage - len(prefix) - 4 - 1
	big := make([]byte, MaxMessage+1)
	copy(big, prefix)
	copy(big[len(prefix):], be32(uint32(pad)))
	big[MaxMessage-1] = typeStop
	big[MaxMessage] = 0xEE

	t.Run("exactly MaxMessage", func(t *testing.T) {
		want := hdr(CodeOK, MaxMessage)
		want.KeyLen, want.Present = 1, PresentKey
		deserializeCase{msg: big[:MaxMessage], want: want, key: []byte("k")}.run(t)
	})
	t.Run("MaxMessage+1", func(t *testing.T) {
		// Nothing is loaded: no key bytes, every header field zero but the code.
		deserializeCase{msg: big, want: Result{Code: CodeMsgTooLarge}}.run(t)
	})
}

func TestCheckCapacity(t *testing.T) {
	for _, tc := range []struct {
		n  int
		ok bool
	}{
		{-64, false}, {0, false}, {64, false}, {256, false}, {319, false}, {320, true}, {321, false},
		{352, false}, {384, true}, {1024, true}, {MaxCapacity - 64, true}, {MaxCapacity, true}, {MaxCapacity + 64, false},
	} {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			if err := CheckCapacity(tc.n); (err == nil) != tc.ok {
				t.Fatalf("CheckCapacity(%d) = %v, want ok=%v", tc.n, err, tc.ok)
			}
		})
	}
}

// TestBadCapacity checks that Deserialize writes nothing for a capacity the
// RTL would refuse.
func TestBadCapacity(t *testing.T) {
	for _, c := range []int{0, 63, 64, 256, 319, 321, 400, MaxCapacity + 64} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			got, img := run(canonical().bytes(), c)
			if got != (Result{}) {
				t.Errorf("Deserialize = %+v, want Result{}", got)
			}
			checkImage(t, img, pattern(c))
		})
	}
	if got := Deserialize(canonical().bytes(), nil); got != (Result{}) {
		t.Errorf("Deserialize(nil image) = %+v, want Result{}", got)
	}
}

func TestDeserializeAllocs(t *testing.T) {
	big := make([]byte, MaxMessage+1)
	img := pattern(testCap)
	for _, tc := range []struct {
		name string
		msg  []byte
	}{
		{"OK", canonical().bytes()},
		{"Get", msg().head(0x80010001, "Get", 1).i64(1, 2).bin(2, testKey).stop().bytes()},
		{"BAD_TYPE", msg().call(1).raw(1, 0, 1).bytes()},
		{"TRUNCATED", canonical().bytes()[:40]},
		{"MSG_TOO_LARGE", big},
		{"nil", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if n := testing.AllocsPerRun(100, func() { Deserialize(tc.msg, img) }); n != 0 {
				t.Fatalf("Deserialize allocates %v times per run, want 0", n)
			}
		})
	}
}
