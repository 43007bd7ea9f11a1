package schemagold_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"arcalis/golden/schemagold"
	"arcalis/internal/social_network"
	"arcalis/internal/unique_id"
	"arcalis/internal/url_shorten"
	"arcalis/thriftidl"
	"arcalis/thriftidl/schema"
)

// respCase is one image given to Serialize and the code and offset it must
// give; for RESP_OK, want is the reply (from Apache or hand-written) and
// the offset its length.
type respCase struct {
	name   string
	tab    *schema.Table
	method int
	seq    int32
	img    []byte
	code   schemagold.Code
	off    int
	want   []byte
}

func (c respCase) run(t *testing.T) {
	t.Helper()
	img := c.img[:len(c.img):len(c.img)]
	reply, code, off := schemagold.Serialize(c.tab, img, c.method, c.seq)
	if c.code == schemagold.CodeRespOK {
		c.off = len(c.want)
	}
	if code != c.code || off != c.off {
		t.Errorf("%s: Serialize says %v at %d, want %v at %d", c.name, code, off, c.code, c.off)
		return
	}
	if code != schemagold.CodeRespOK && reply != nil {
		t.Errorf("%s: %v with a reply of %d bytes", c.name, code, len(reply))
	}
	if code == schemagold.CodeRespOK && !bytes.Equal(reply, c.want) {
		t.Errorf("%s: reply\n% x\nwant\n% x", c.name, reply, c.want)
	}
}

var le = binary.LittleEndian

// edit returns a copy of img changed by f.
func edit(img []byte, f func(b []byte)) []byte {
	b := append([]byte{}, img...)
	f(b)
	return b
}

func put32(at int, v uint32) func([]byte) { return func(b []byte) { le.PutUint32(b[at:], v) } }
func orByte(at int, v byte) func([]byte)  { return func(b []byte) { b[at] |= v } }
func setByte(at int, v byte) func([]byte) { return func(b []byte) { b[at] = v } }

// TestSchemagoldRespCorrupt: every header field, presence word and
// descriptor of two images whose layout TestSchemagoldRespLayout pins,
// altered, gives its code at the offset docs/abi.md section 13 documents.
func TestSchemagoldRespCorrupt(t *testing.T) {
	// UniqueId ComposeUniqueId, seqid 7, throwing ServiceException{6, "boom"}:
	// result record [64, 88) with se's descriptor at 80; the exception's
	// record [88, 112): errorCode at 96, message's descriptor at 104, the
	// string at 112; area end 120, capacity 128.
	uid := serviceNamed("UniqueIdService").table(t)
	se := &schemagold.Struct{Fields: []schemagold.FieldValue{{ID: 1, Value: int32(6)}, {ID: 2, Value: "boom"}}}
	a, err := schemagold.BuildResp(uid, 0, 7, &schemagold.Struct{Fields: []schemagold.FieldValue{{ID: 1, Value: se}}})
	if err != nil {
		t.Fatal(err)
	}
	emptyMsg := unique_id.NewUniqueIdServiceComposeUniqueIdResult()
	emptyMsg.Se = &social_network.ServiceException{ErrorCode: 6}

	// UrlShorten ComposeUrls, seqid 3, returning [Url{"a", "bb"}, Url{"ccc",
	// "dddd"}]: result record [64, 88), success's descriptor at 72; the
	// array [88, 136): Url 0 at 88 (descriptors at 96, 104), Url 1 at 112
	// (120, 128); the strings at 136, 144, 152, 160; area end 168, capacity 192.
	us := serviceNamed("UrlShortenService").table(t)
	url := func(s, e string) *schemagold.Struct {
		return &schemagold.Struct{Fields: []schemagold.FieldValue{{ID: 1, Value: s}, {ID: 2, Value: e}}}
	}
	b, err := schemagold.BuildResp(us, 0, 3, &schemagold.Struct{Fields: []schemagold.FieldValue{{ID: 0, Value: []any{url("a", "bb"), url("ccc", "dddd")}}}})
	if err != nil {
		t.Fatal(err)
	}
	emptyList := url_shorten.NewUrlShortenServiceComposeUrlsResult()
	emptyList.Success = []*social_network.URL{}
	noExpanded := url_shorten.NewUrlShortenServiceComposeUrlsResult()
	noExpanded.Success = []*social_network.URL{{ShortenedURL: "a"}, {ShortenedURL: "ccc", ExpandedURL: "dddd"}}

	A := func(name string, f func([]byte), code schemagold.Code, off int) respCase {
		return respCase{name: "unique_id " + name, tab: uid, seq: 7, img: edit(a, f), code: code, off: off}
	}
	B := func(name string, f func([]byte), code schemagold.Code, off int) respCase {
		return respCase{name: "url_shorten " + name, tab: us, seq: 3, img: edit(b, f), code: code, off: off}
	}
	const (
		ok     = schemagold.CodeRespOK
		header = schemagold.CodeRespBadImage
		desc   = schemagold.CodeBadDescriptor
		over   = schemagold.CodeOverlap
		pres   = schemagold.CodeBadPresence
	)
	cases := []respCase{
		{name: "capacity 100", tab: uid, seq: 7, img: a[:100], code: schemagold.CodeNone, off: 0},
		{name: "capacity 64", tab: uid, seq: 7, img: a[:64], code: schemagold.CodeNone, off: 0},
		{name: "no table", seq: 7, img: a, code: schemagold.CodeNone, off: 0},
		{name: "method 1 of 1", tab: uid, method: 1, seq: 7, img: a, code: schemagold.CodeUnknownMethod, off: 31},
		{name: "method -1", tab: uid, method: -1, seq: 7, img: a, code: schemagold.CodeUnknownMethod, off: 31},
		{name: "another seqid", tab: uid, seq: 8, img: a, code: header, off: 24},
		{name: "another method", tab: us, method: 1, seq: 3, img: b, code: header, off: 31},

		A("result offset 72", put32(0, 72), header, 0),
		A("result offset 0", put32(0, 0), header, 0),
		A("result size 16", put32(4, 16), header, 4),
		A("area end unaligned", put32(8, 116), header, 8),
		A("area end inside the result record", put32(8, 80), header, 8),
		A("area end past the capacity", put32(8, 136), header, 8),
		A("area end 0", put32(8, 0), header, 8),
		A("byte 12", setByte(12, 1), header, 12),
		A("byte 23", setByte(23, 0x80), header, 23),
		A("seqid", put32(24, 8), header, 24),
		A("byte 28", setByte(28, 1), header, 28),
		A("byte 29", setByte(29, 2), header, 29),
		A("byte 30", setByte(30, 1), header, 30),
		A("method byte 2", setByte(31, 2), header, 31),
		A("method byte 0", setByte(31, 0), header, 31),
		A("byte 32", setByte(32, 1), header, 32),
		A("byte 63", setByte(63, 1), header, 63),

		A("presence bit 2 of a 2-field result", orByte(64, 4), pres, 64),
		A("presence bit 63", orByte(71, 0x80), pres, 64),
		A("success and se both present", setByte(64, 3), pres, 64),
		A("exception presence bit 5", orByte(88, 0x20), pres, 88),

		A("se record past the area", put32(80, 4096), desc, 80),
		A("se record unaligned", put32(80, 92), desc, 80),
		A("se record in the header", put32(80, 0), desc, 80),
		A("se record of 16 bytes", put32(84, 16), desc, 80),
		A("se record on the result record", put32(80, 64), over, 80),
		A("se record moved onto its own slots", put32(80, 96), pres, 96),
		A("message past the area end", put32(108, 9), desc, 104),
		A("message of 0xFFFFFFFF bytes", put32(108, 0xFFFFFFFF), desc, 104),
		A("message at 0xFFFFFFF8", put32(104, 0xFFFFFFF8), desc, 104),
		A("message on the se record", put32(104, 88), over, 104),
		A("message on its own descriptor", put32(104, 104), over, 104),
		// A nil result, as Apache's Go server sends one: STOP only, the
		// exception's record left unread.
		{name: "unique_id nothing present, not void", tab: uid, seq: 7, code: ok, img: edit(a, setByte(64, 0)),
			want: apacheReply(t, "ComposeUniqueId", 7, unique_id.NewUniqueIdServiceComposeUniqueIdResult())},
		{name: "unique_id empty message at 0xFFFFFFF8 (not read)", tab: uid, seq: 7, code: ok,
			img: edit(a, func(b []byte) { put32(104, 0xFFFFFFF8)(b); put32(108, 0)(b) }), want: apacheReply(t, "ComposeUniqueId", 7, emptyMsg)},
		{name: "unique_id area end 128, bytes after the string", tab: uid, seq: 7, code: ok,
			img: edit(a, func(b []byte) { put32(8, 128)(b); b[125] = 0xFF }), want: apacheReply(t, "ComposeUniqueId", 7, func() *unique_id.UniqueIdServiceComposeUniqueIdResult {
				r := unique_id.NewUniqueIdServiceComposeUniqueIdResult()
				r.Se = &social_network.ServiceException{ErrorCode: 6, Message: "boom"}
				return r
			}())},

		B("65,536 Urls", put32(76, 65536), schemagold.CodeTooManyElements, 72),
		B("0xFFFFFFFF Urls", put32(76, 0xFFFFFFFF), schemagold.CodeTooManyElements, 72),
		B("3 Urls: the array covers the strings", put32(76, 3), over, 96),
		B("4 Urls: the array passes the area end", put32(76, 4), desc, 72),
		B("array on the result record", put32(72, 80), over, 72),
		B("array unaligned", put32(72, 89), desc, 72),
		B("Url 1's string on Url 0's", put32(120, 136), over, 120),
		B("Url 0 presence bit 2", orByte(88, 4), pres, 88),
		B("Url 1 presence bit 7", orByte(112, 0x80), pres, 112),
		B("area end 160 cuts the last string", put32(8, 160), desc, 128),
		{name: "url_shorten empty list at 0xFFFFFFF0 (not read)", tab: us, seq: 3, code: ok,
			img: edit(b, func(b []byte) { put32(72, 0xFFFFFFF0)(b); put32(76, 0)(b) }), want: apacheReply(t, "ComposeUrls", 3, emptyList)},
		{name: "url_shorten Url 0's expanded_url absent: written empty, a gap left", tab: us, seq: 3, code: ok,
			img: edit(b, setByte(88, 1)), want: apacheReply(t, "ComposeUrls", 3, noExpanded)},
	}
	for _, c := range cases {
		c.run(t)
	}
	t.Logf("%d cases", len(cases))
}

// limitsIDL has what the services in idl/ lack: results deeper than
// MaxDepth, a union, UUIDs, a oneway method.
const limitsIDL = `
typedef list<list<list<list<list<list<list<i32>>>>>>> L7
struct S1 { 1: S2 s }
struct S2 { 1: S3 s }
struct S3 { 1: S4 s }
struct S4 { 1: S5 s }
struct S5 { 1: S6 s }
struct S6 { 1: S7 s }
struct S7 { 1: S8 s }
struct S8 { 1: i32 x }
union U { 1: i32 a, 2: string b }
struct WithU { 1: uuid u }
service Limits {
  list<L7> Deep8()
  L7 Deep7()
  S1 Chain()
  U Un()
  uuid Uid()
  WithU Wu()
  oneway void Fire(1: i32 x)
}
`

func limitsTable(t *testing.T) *schema.Table {
	t.Helper()
	path := filepath.Join(t.TempDir(), "limits.thrift")
	if err := os.WriteFile(path, []byte(limitsIDL), 0o644); err != nil {
		t.Fatal(err)
	}
	prog, err := thriftidl.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := schema.Build(prog, "Limits")
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// replyHead is a REPLY's header for name and seqid 1, hand-written.
func replyHead(name string) []byte {
	b := []byte{0x80, 1, 0, 2, 0, 0, 0, byte(len(name))}
	return append(append(b, name...), 0, 0, 0, 1)
}

// TestSchemagoldRespLimits: the depth limit (on values present and on the
// zero values of absent fields), unions, UUIDs and oneway methods.
func TestSchemagoldRespLimits(t *testing.T) {
	tab := limitsTable(t)
	mi := func(name string) int {
		i := methodIndex(tab, name)
		if i < 0 {
			t.Fatalf("no method %s", name)
		}
		return i
	}
	// nested is a result record [64, 80) whose success is a list of one list
	// of one list ...: list k's descriptor (k from 0) lies at 72 + 8k and
	// gives its one-element array at 80 + 8k, which holds list k+1's
	// descriptor; the last array holds i32 5.
	nested := func(method string, lists int) []byte {
		img := make([]byte, 192)
		end := 80 + 8*lists
		schemagold.RespHeader{ResultOffset: 64, ResultSize: 16, AreaEnd: uint32(end), SeqID: 1, Method: uint8(mi(method) + 1)}.Put(img)
		img[64] = 1
		for k := range lists {
			le.PutUint32(img[72+8*k:], uint32(80+8*k))
			le.PutUint32(img[76+8*k:], 1)
		}
		le.PutUint32(img[72+8*lists:], 5)
		return img
	}
	build := func(method string, success *schemagold.Struct) []byte {
		img, err := schemagold.BuildResp(tab, mi(method), 1, &schemagold.Struct{Fields: []schemagold.FieldValue{{ID: 0, Value: success}}})
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	chain := &schemagold.Struct{}
	for range 6 { // S1 holding S2 ... holding S7, which lacks its S8
		chain = &schemagold.Struct{Fields: []schemagold.FieldValue{{ID: 1, Value: chain}}}
	}
	deep7 := append(replyHead("Deep7"), 15, 0, 0)
	for range 6 {
		deep7 = append(deep7, 15, 0, 0, 0, 1)
	}
	deep7 = append(deep7, 8, 0, 0, 0, 1, 0, 0, 0, 5, 0)
	uuidImg := make([]byte, 128)
	schemagold.RespHeader{ResultOffset: 64, ResultSize: 16, AreaEnd: 80, SeqID: 1, Method: uint8(mi("Uid") + 1)}.Put(uuidImg)
	uuidImg[64] = 1

	cases := []respCase{
		{name: "list at level 8", tab: tab, method: mi("Deep7"), seq: 1, img: nested("Deep7", 7), code: schemagold.CodeRespOK, want: deep7},
		{name: "list at level 9", tab: tab, method: mi("Deep8"), seq: 1, img: nested("Deep8", 8), code: schemagold.CodeDepthExceeded, off: 128},
		{name: "absent struct at level 9", tab: tab, method: mi("Chain"), seq: 1, img: build("Chain", chain), code: schemagold.CodeDepthExceeded, off: 184},
		{name: "union of no field", tab: tab, method: mi("Un"), seq: 1, img: build("Un", &schemagold.Struct{}), code: schemagold.CodeBadPresence, off: 80},
		{name: "union of two fields", tab: tab, method: mi("Un"), seq: 1, code: schemagold.CodeBadPresence, off: 80,
			img: build("Un", &schemagold.Struct{Fields: []schemagold.FieldValue{{ID: 1, Value: int32(3)}, {ID: 2, Value: "x"}}})},
		{name: "union of one field", tab: tab, method: mi("Un"), seq: 1, code: schemagold.CodeRespOK,
			img:  build("Un", &schemagold.Struct{Fields: []schemagold.FieldValue{{ID: 1, Value: int32(3)}}}),
			want: append(replyHead("Un"), 12, 0, 0, 8, 0, 1, 0, 0, 0, 3, 0, 0)},
		{name: "uuid success", tab: tab, method: mi("Uid"), seq: 1, img: uuidImg, code: schemagold.CodeBadType, off: 72},
		{name: "absent uuid field", tab: tab, method: mi("Wu"), seq: 1, img: build("Wu", &schemagold.Struct{}), code: schemagold.CodeBadType, off: 88},
		{name: "oneway", tab: tab, method: mi("Fire"), seq: 1, img: make([]byte, 128), code: schemagold.CodeBadMsgType, off: 31},
	}
	for _, c := range cases {
		c.run(t)
	}
	if _, err := schemagold.BuildResp(tab, mi("Fire"), 1, nil); err == nil {
		t.Error("BuildResp of a oneway method: no error")
	}
	if _, err := schemagold.BuildResp(tab, mi("Chain"), 1, &schemagold.Struct{Fields: []schemagold.FieldValue{{ID: 0, Value: chain}, {ID: 0, Value: chain}}}); err == nil {
		t.Error("BuildResp of two result fields: no error")
	}
}
