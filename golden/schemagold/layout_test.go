package schemagold_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"arcalis/golden"
	"arcalis/golden/schemagold"
	"arcalis/thriftidl"
	"arcalis/thriftidl/schema"
)

// image is an expected image, built by hand from docs/abi.md section 12: every byte
// 0xAA (what the buffer held before) except those written.
type image []byte

func newImage(c int) image { return image(bytes.Repeat([]byte{0xAA}, c)) }

func (m image) u64(off int, v uint64) image { binary.LittleEndian.PutUint64(m[off:], v); return m }

// desc writes a descriptor (offset, length).
func (m image) desc(off int, at, n uint32) image {
	binary.LittleEndian.PutUint32(m[off:], at)
	binary.LittleEndian.PutUint32(m[off+4:], n)
	return m
}

// str writes s at off, zero-padded to a multiple of 8.
func (m image) str(off int, s string) image {
	n := copy(m[off:], s)
	for ; n%8 != 0; n++ {
		m[off+n] = 0
	}
	return m
}

// zero writes n zero bytes at off.
func (m image) zero(off, n int) image { clear(m[off : off+n]); return m }

// header writes the header line: args record 64, size, area end, seqid, OK,
// CALL, method, offset.
func (m image) header(argsSize, areaEnd uint32, seq int32, method uint8, offset uint32) image {
	h := m[:64]
	clear(h)
	binary.LittleEndian.PutUint32(h[0:], 64)
	binary.LittleEndian.PutUint32(h[4:], argsSize)
	binary.LittleEndian.PutUint32(h[8:], areaEnd)
	binary.LittleEndian.PutUint32(h[24:], uint32(seq))
	h[28], h[29], h[31] = 0x01, 1, method
	binary.LittleEndian.PutUint32(h[32:], offset)
	return m
}

// checkImage runs Deserialize on a buffer of 0xAA bytes and compares every
// byte with want; then Apache must decode msg to what ReadBack reads.
func checkImage(t *testing.T, svc *service, msg []byte, want image) {
	t.Helper()
	tab := svc.table(t)
	img := newImage(len(want))
	r := schemagold.Deserialize(tab, msg, img)
	if r.Code != schemagold.CodeOK {
		t.Fatalf("Deserialize: %v at %d", r.Code, r.Offset)
	}
	if !bytes.Equal(img, want) {
		for i := range img {
			if img[i] != want[i] {
				t.Errorf("byte %d: %#02x, want %#02x", i, img[i], want[i])
			}
		}
		t.FailNow()
	}
	d, err := apacheDecode(svc, msg)
	if err != nil {
		t.Fatalf("Apache: %v", err)
	}
	checkAgree(t, tab, d, r, img)
}

// TestSchemagoldImageLayout checks every byte of two images against the
// layout of docs/abi.md section 12 worked out by hand: ComposeUniqueId's record, fixed
// slots and map entries with padded strings; StorePost's nested Post and
// Creator records and a list of UserMention records in their array.
func TestSchemagoldImageLayout(t *testing.T) {
	t.Run("ComposeUniqueId", func(t *testing.T) {
		msg := call("ComposeUniqueId", 7).i64(1, 0x0102030405060708).i32(2, -2).
			field(schema.Map, 3).mapHead(schema.String, schema.String, 2).
			u32(2).raw('a', 'b').u32(3).raw('x', 'y', 'z').u32(1).raw('k').u32(0).stop().b
		// Args record [64, 96): presence, req_id, post_type, carrier.
		want := newImage(256).header(32, 152, 7, 1, uint32(len(msg))).
			u64(64, 0b111).u64(72, 0x0102030405060708).u64(80, 0xFFFFFFFE).desc(88, 96, 2).
			desc(96, 128, 2).desc(104, 136, 3).desc(112, 144, 1).desc(120, 152, 0). // entries [96, 128)
			str(128, "ab").str(136, "xyz").str(144, "k")                            // strings from 128, padded; "" takes nothing
		checkImage(t, serviceNamed("UniqueIdService"), msg, want)
	})
	t.Run("StorePost", func(t *testing.T) {
		msg := call("StorePost", -1).
			field(schema.Struct, 2). // post
			str(4, "hi").
			field(schema.Struct, 2).str(2, "u").i64(1, 5).stop(). // creator, fields out of order
			field(schema.List, 5).list(schema.Struct, 2).         // user_mentions
			i64(1, 9).stop().
			str(2, "m").stop().
			stop().
			i64(1, 3). // req_id after the post
			stop().b
		want := newImage(320).header(32, 272, -1, 1, uint32(len(msg))).
			// StorePost_args [64, 96): presence (req_id, post), req_id, post, carrier.
			u64(64, 0b011).u64(72, 3).desc(80, 96, 80).u64(88, 0).
			// Post [96, 176): presence (creator 1, text 3, user_mentions 4), 4 fixed slots, 5 descriptors.
			u64(96, 0b11010).zero(104, 32).desc(136, 184, 24).desc(144, 176, 2).desc(152, 216, 2).zero(160, 16).
			str(176, "hi").
			// Creator [184, 208): presence (user_id, username), user_id, username.
			u64(184, 0b11).u64(192, 5).desc(200, 208, 1).str(208, "u").
			// user_mentions: two UserMention records [216, 264), then "m".
			u64(216, 0b01).u64(224, 9).u64(232, 0).
			u64(240, 0b10).u64(248, 0).desc(256, 264, 1).str(264, "m")
		checkImage(t, serviceNamed("PostStorageService"), msg, want)
	})
}

// result runs Deserialize with capacity c and checks the header line.
func result(t *testing.T, tab *schema.Table, msg []byte, c int) schemagold.Result {
	t.Helper()
	img := make([]byte, c)
	r := schemagold.Deserialize(tab, msg, img)
	if h, err := schemagold.ParseHeader(img); err != nil || h != r {
		t.Fatalf("header line %+v, %v; Deserialize returned %+v", h, err, r)
	}
	return r
}

// TestSchemagoldLimits checks every limit's code and offset at its boundary,
// and what Apache's generated code makes of the same message.
func TestSchemagoldLimits(t *testing.T) {
	svc := serviceNamed("UniqueIdService")
	tab := svc.table(t)
	const p = 12 + len("ComposeUniqueId") // the first field header
	manyBools := func(n int) []byte {
		w := call("ComposeUniqueId", 1).field(schema.List, 99).list(schema.Bool, int32(n))
		return w.raw(bytes.Repeat([]byte{1}, n)...).stop().b
	}
	manyEntries := func(n int) []byte {
		w := call("ComposeUniqueId", 1).field(schema.Map, 3).mapHead(schema.String, schema.String, int32(n))
		return w.raw(make([]byte, 8*n)...).stop().b // n entries "" -> ""
	}
	carrier := func(key string) []byte {
		return call("ComposeUniqueId", 1).field(schema.Map, 3).mapHead(schema.String, schema.String, 1).
			u32(uint32(len(key))).raw([]byte(key)...).u32(0).stop().b
	}
	cases := []struct {
		name   string
		msg    []byte
		c      int
		code   schemagold.Code
		off    int
		apache bool // Apache's generated code decodes it
	}{
		{"8 levels", call("ComposeUniqueId", 1).nestedLists(7).stop().b, 4096, schemagold.CodeOK, -1, true},
		{"9 levels", call("ComposeUniqueId", 1).nestedLists(8).stop().b, 4096, schemagold.CodeDepthExceeded, p + 3 + 7*5, true},
		{"9 levels, struct", call("ComposeUniqueId", 1).field(schema.Struct, 99).
			field(schema.Struct, 1).field(schema.Struct, 1).field(schema.Struct, 1).field(schema.Struct, 1).
			field(schema.Struct, 1).field(schema.Struct, 1).field(schema.Struct, 1).
			stop().stop().stop().stop().stop().stop().stop().stop().stop().b, 4096, schemagold.CodeDepthExceeded, p + 8*3, true},
		{"65535 skipped", manyBools(65535), 4096, schemagold.CodeOK, -1, true},
		{"65536 skipped", manyBools(65536), 4096, schemagold.CodeTooManyElements, p + 4, true},
		{"65535 entries", manyEntries(65535), 1 << 21, schemagold.CodeOK, -1, true},
		{"65536 entries", manyEntries(65536), 1 << 21, schemagold.CodeTooManyElements, p + 5, true},
		{"area full", carrier("0123456789abcdef"), 128, schemagold.CodeOK, -1, true},
		{"area overflow", carrier("0123456789abcdefg"), 128, schemagold.CodeAreaOverflow, p + 9, true},
		{"entries overflow", manyEntries(3), 128, schemagold.CodeAreaOverflow, p + 3, true},
		{"UUID field", call("ComposeUniqueId", 1).field(16, 1).u64(1).u64(2).stop().b, 128, schemagold.CodeBadType, p, false},
		{"type 1", call("ComposeUniqueId", 1).field(1, 1).stop().b, 128, schemagold.CodeBadType, p, false},
		{"skipped map of UUIDs", call("ComposeUniqueId", 1).field(schema.Map, 9).mapHead(schema.I32, 16, 1).u32(0).u64(0).u64(0).stop().b, 128, schemagold.CodeBadType, p + 4, false},
		{"empty map of UUIDs", call("ComposeUniqueId", 1).field(schema.Map, 9).mapHead(16, 16, 0).stop().b, 128, schemagold.CodeOK, -1, true},
		{"list of STOPs", call("ComposeUniqueId", 1).field(schema.List, 9).list(0, 1).stop().b, 128, schemagold.CodeBadType, p + 3, false},
		{"known map, other types", call("ComposeUniqueId", 1).field(schema.Map, 3).mapHead(16, 1, 1).u32(1).raw('k').u32(0).stop().b, 128, schemagold.CodeOK, -1, true},
		{"negative string", call("ComposeUniqueId", 1).field(schema.String, 9).u32(0xFFFFFFFF).stop().b, 128, schemagold.CodeBadLength, p + 3, false},
		{"negative count", call("ComposeUniqueId", 1).field(schema.List, 9).list(schema.I64, -1).stop().b, 128, schemagold.CodeBadLength, p + 4, false},
		{"string past the end", call("ComposeUniqueId", 1).field(schema.String, 9).u32(2).raw('x').b, 128, schemagold.CodeTruncated, p + 7, false},
		{"no STOP", call("ComposeUniqueId", 1).i64(1, 2).b, 128, schemagold.CodeTruncated, p + 11, false},
		{"too large", append(call("ComposeUniqueId", 1).stop().b, make([]byte, golden.MaxMessage)...), 128, schemagold.CodeMsgTooLarge, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := result(t, tab, c.msg, c.c)
			off := c.off
			if off < 0 {
				off = len(c.msg)
			}
			if r.Code != c.code || int(r.Offset) != off {
				t.Errorf("Deserialize: %v at %d, want %v at %d", r.Code, r.Offset, c.code, off)
			}
			d, err := apacheDecode(svc, c.msg)
			if (err == nil) != c.apache {
				t.Errorf("Apache decodes it: %v (%v), want %v", err == nil, err, c.apache)
			}
			if err == nil && r.Code == schemagold.CodeOK {
				img := make([]byte, c.c)
				checkAgree(t, tab, d, schemagold.Deserialize(tab, c.msg, img), img)
			}
		})
	}
}

// TestSchemagoldRequired checks REQUIRED_MISSING on a service whose args and
// nested struct have required fields, with the struct index and field id in
// the header.
func TestSchemagoldRequired(t *testing.T) {
	dir := t.TempDir()
	src := "struct T { 1: i32 a, 2: required i32 b }\nservice S { void M(1: required i64 x, 2: list<T> ts) }\n"
	if err := os.WriteFile(filepath.Join(dir, "s.thrift"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	prog, err := thriftidl.Load(filepath.Join(dir, "s.thrift"))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := schema.Build(prog, "S")
	if err != nil {
		t.Fatal(err)
	}
	tStruct := -1
	for i, s := range tab.Structs {
		if s.Name == "T" {
			tStruct = i
		}
	}
	const p = 12 + 1
	elem := func(w *wire) *wire { return w.field(schema.List, 2).list(schema.Struct, 1) }
	cases := []struct {
		name    string
		msg     []byte
		code    schemagold.Code
		off     int
		st      int
		fieldID int16
	}{
		{"present", call("M", 1).i64(1, 5).stop().b, schemagold.CodeOK, -1, 0, 0},
		{"args lack x", call("M", 1).stop().b, schemagold.CodeRequiredMissing, p, 0, 1},
		{"x of another type", call("M", 1).i32(1, 5).stop().b, schemagold.CodeRequiredMissing, p + 7, 0, 1},
		{"element lacks b", elem(call("M", 1).i64(1, 5)).i32(1, 2).stop().stop().b, schemagold.CodeRequiredMissing, p + 11 + 8 + 7, tStruct, 2},
		{"element has b", elem(call("M", 1).i64(1, 5)).i32(2, 2).stop().stop().b, schemagold.CodeOK, -1, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := result(t, tab, c.msg, 256)
			off := c.off
			if off < 0 {
				off = len(c.msg)
			}
			if r.Code != c.code || int(r.Offset) != off || int(r.Struct) != c.st || r.FieldID != c.fieldID {
				t.Errorf("Deserialize: %v at %d, struct %d field %d; want %v at %d, struct %d field %d",
					r.Code, r.Offset, r.Struct, r.FieldID, c.code, off, c.st, c.fieldID)
			}
		})
	}
}

// TestSchemagoldHeaderAsGolden checks that, for the Memcached tables, the
// header rules give golden's code, offset, message type, method and seqid
// on every malformed header and on Sets and Gets of scalar fields.
func TestSchemagoldHeaderAsGolden(t *testing.T) {
	tab := serviceNamed("MemcachedService").table(t)
	msgs := [][]byte{
		nil, {0x80}, {0x80, 0x01, 0x00},
		head(0x80020001, "Set", 1).stop().b,
		head(0x80010101, "Set", 1).stop().b,
		head(0x00010001, "Set", 1).stop().b,
		head(0x80010002, "Set", 1).stop().b,
		head(0x80010003, "Get", 1).stop().b,
		head(0x80010001, "Sets", 1).stop().b,
		head(0x80010001, "Del", 1).stop().b,
		head(0x80010001, "", 1).stop().b,
		head(0x80010001, "Set", 1).b[:10],
		head(0x80010001, "Set", 1).b[:13],
		head(0x80010004, "Get", -9).b,
		(&wire{}).u32(0x80010001).u32(0xFFFFFFFF).b,
		(&wire{}).u32(0x80010001).u32(0xFFFFFFFF).b[:6],
		call("Set", 3).i64(1, 7).i32(4, 1).i32(5, 2).stop().b,
		call("Get", 3).i64(1, 7).i32(4, 1).stop().raw(9, 9).b,
		call("Get", 3).i64(1, 7).field(9, 1).stop().b,
	}
	for i, m := range msgs {
		g := golden.Deserialize(m, make([]byte, golden.MinCapacity))
		r := result(t, tab, m, schemagold.MinCapacity)
		if uint8(r.Code) != uint8(g.Code) || r.Offset != g.Offset || r.MsgType != g.MsgType || r.Method != g.Method || r.SeqID != g.SeqID {
			t.Errorf("message %d % x: schemagold %v at %d type %d method %d seq %d; golden %v at %d type %d method %d seq %d",
				i, m, r.Code, r.Offset, r.MsgType, r.Method, r.SeqID, g.Code, g.Offset, g.MsgType, g.Method, g.SeqID)
		}
		if r.Code.String() != g.Code.String() {
			t.Errorf("message %d: code name %s, golden's %s", i, r.Code, g.Code)
		}
	}
}

// TestSchemagoldCapacity checks that a capacity CheckCapacity refuses and a
// nil table write nothing, and that Deserialize writes no byte past the
// image whatever the message (the image is a window on a larger buffer).
func TestSchemagoldCapacity(t *testing.T) {
	tab := serviceNamed("PostStorageService").table(t)
	msg := call("StorePost", 1).field(schema.Struct, 2).str(4, strings.Repeat("x", 500)).stop().stop().b
	for _, c := range []int{0, 64, 127, 130, schemagold.MaxCapacity + 64} {
		buf := bytes.Repeat([]byte{0xAA}, c)
		if r := schemagold.Deserialize(tab, msg, buf); r != (schemagold.Result{}) || bytes.Count(buf, []byte{0xAA}) != c {
			t.Errorf("capacity %d: %+v, and the buffer was written", c, r)
		}
	}
	if r := schemagold.Deserialize(nil, msg, make([]byte, 128)); r != (schemagold.Result{}) {
		t.Errorf("nil table: %+v", r)
	}
	for c := 128; c <= 1024; c += 64 {
		buf := bytes.Repeat([]byte{0xAA}, c+64)
		r := schemagold.Deserialize(tab, msg, buf[:c])
		if !bytes.Equal(buf[c:], bytes.Repeat([]byte{0xAA}, 64)) {
			t.Errorf("capacity %d: bytes past the image written", c)
		}
		want := schemagold.CodeAreaOverflow
		if c >= 64+32+80+504 {
			want = schemagold.CodeOK
		}
		if r.Code != want {
			t.Errorf("capacity %d: %v, want %v", c, r.Code, want)
		}
	}
}

// TestSchemagoldManyMethods checks the header's method byte on a service of
// 256 methods: the 255th is method 255, the 256th UNKNOWN_METHOD at 8.
func TestSchemagoldManyMethods(t *testing.T) {
	var b strings.Builder
	b.WriteString("service S {\n")
	for i := range 256 {
		fmt.Fprintf(&b, "  void m%03d(1: i64 x)\n", i)
	}
	b.WriteString("}\n")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.thrift"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	prog, err := thriftidl.Load(filepath.Join(dir, "s.thrift"))
	if err != nil {
		t.Fatal(err)
	}
	tab, err := schema.Build(prog, "S")
	if err != nil {
		t.Fatal(err)
	}
	if r := result(t, tab, call("m254", 1).i64(1, 2).stop().b, 128); r.Code != schemagold.CodeOK || r.Method != 255 {
		t.Errorf("m254: %v, method %d; want OK, 255", r.Code, r.Method)
	}
	if r := result(t, tab, call("m255", 1).i64(1, 2).stop().b, 128); r.Code != schemagold.CodeUnknownMethod || r.Offset != 8 || r.Method != 0 {
		t.Errorf("m255: %v at %d, method %d; want UNKNOWN_METHOD at 8, 0", r.Code, r.Offset, r.Method)
	}
}
