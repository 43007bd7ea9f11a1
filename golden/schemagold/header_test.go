package schemagold_test

import (
	"fmt"
	"testing"

	"arcalis/golden/schemagold"
	"arcalis/thriftidl/schema"
)

// hdrTable has names one a prefix of another (ReadPost, ReadPosts) and two
// of one length (Set, Get): CheckHeader reads only the method names.
var hdrTable = &schema.Table{Methods: []schema.Method{{Name: "Set"}, {Name: "Get"}, {Name: "ReadPost"}, {Name: "ReadPosts"}}}

// join joins byte strings and strings into one message.
func join(parts ...any) []byte {
	var b []byte
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			b = append(b, p...)
		case []byte:
			b = append(b, p...)
		default:
			panic(fmt.Sprintf("join: %T", p))
		}
	}
	return b
}

var (
	verCall   = []byte{0x80, 0x01, 0x00, 0x01}
	verOneway = []byte{0x80, 0x01, 0x00, 0x04}
	nameLen3  = []byte{0, 0, 0, 3}
	seqID7    = []byte{0, 0, 0, 7}
)

// TestCheckHeader checks CheckHeader on headers whose results are worked
// out by hand from docs/abi.md section 5 (steps 1 to 5, with this table's
// names): each code, the fault offsets, and which of MsgType, Method and
// SeqID each leaves set.
func TestCheckHeader(t *testing.T) {
	tooLarge := make([]byte, schemagold.MaxMessage+1)
	copy(tooLarge, join(verCall, nameLen3, "Get", seqID7))
	type want struct {
		code    schemagold.Code
		off     uint32
		msgType uint8
		method  uint8
		seqID   int32
	}
	ok, trunc := schemagold.CodeOK, schemagold.CodeTruncated
	for _, tc := range []struct {
		name string
		msg  []byte
		want want
	}{
		{"empty", nil, want{trunc, 0, 0, 0, 0}},
		{"3 bytes of a good version", verCall[:3], want{trunc, 0, 0, 0, 0}},
		{"3 bytes of a bad version: length first", []byte{0, 0, 0}, want{trunc, 0, 0, 0, 0}},
		{"too large, good header", tooLarge, want{schemagold.CodeMsgTooLarge, 0, 0, 0, 0}},
		{"version 0x8002", join([]byte{0x80, 0x02, 0x00, 0x01}, nameLen3, "Get", seqID7), want{schemagold.CodeBadVersion, 0, 0, 0, 0}},
		{"version byte 2 not 0", join([]byte{0x80, 0x01, 0x01, 0x01}, nameLen3, "Get", seqID7), want{schemagold.CodeBadVersion, 0, 0, 0, 0}},
		{"old unversioned header", join(nameLen3, "Get", []byte{1}, seqID7), want{schemagold.CodeBadVersion, 0, 0, 0, 0}},
		{"type 0", join([]byte{0x80, 0x01, 0x00, 0x00}, nameLen3, "Get", seqID7), want{schemagold.CodeBadMsgType, 0, 0, 0, 0}},
		{"type 2 (REPLY)", join([]byte{0x80, 0x01, 0x00, 0x02}, nameLen3, "Get", seqID7), want{schemagold.CodeBadMsgType, 0, 2, 0, 0}},
		{"type 0xFF, 4 bytes", []byte{0x80, 0x01, 0x00, 0xFF}, want{schemagold.CodeBadMsgType, 0, 0xFF, 0, 0}},
		{"4 bytes", verCall, want{trunc, 4, 1, 0, 0}},
		{"7 bytes", join(verCall, nameLen3[:3]), want{trunc, 4, 1, 0, 0}},
		{"length -1", join(verCall, []byte{0xFF, 0xFF, 0xFF, 0xFF}, "Get", seqID7), want{schemagold.CodeBadLength, 4, 1, 0, 0}},
		{"length 0x80000000", join(verOneway, []byte{0x80, 0, 0, 0}), want{schemagold.CodeBadLength, 4, 4, 0, 0}},
		{"length 0", join(verCall, []byte{0, 0, 0, 0}, seqID7), want{schemagold.CodeUnknownMethod, 4, 1, 0, 0}},
		{"length 4 (no name of 4)", join(verCall, []byte{0, 0, 0, 4}, "Gets", seqID7), want{schemagold.CodeUnknownMethod, 4, 1, 0, 0}},
		{"length 0x01000003 (3 in 24 bits)", join(verCall, []byte{1, 0, 0, 3}, "Get", seqID7), want{schemagold.CodeUnknownMethod, 4, 1, 0, 0}},
		{"length 3, 8 bytes: unknown length before truncation", join(verCall, nameLen3), want{trunc, 8, 1, 0, 0}},
		{"length 5, 8 bytes", join(verCall, []byte{0, 0, 0, 5}), want{schemagold.CodeUnknownMethod, 4, 1, 0, 0}},
		{"name cut", join(verCall, nameLen3, "Ge"), want{trunc, 8, 1, 0, 0}},
		{"name of a used length, unknown", join(verCall, nameLen3, "Gex", seqID7), want{schemagold.CodeUnknownMethod, 8, 1, 0, 0}},
		{"name differs in case", join(verCall, nameLen3, "get", seqID7), want{schemagold.CodeUnknownMethod, 8, 1, 0, 0}},
		{"unknown name, seqid cut: the name first", join(verCall, nameLen3, "Gex", seqID7[:2]), want{schemagold.CodeUnknownMethod, 8, 1, 0, 0}},
		{"ReadPost and the seqid's first byte", join(verCall, []byte{0, 0, 0, 9}, "ReadPost", seqID7), want{schemagold.CodeUnknownMethod, 8, 1, 0, 0}},
		{"seqid cut: the method is known", join(verCall, nameLen3, "Set", seqID7[:3]), want{trunc, 11, 1, 1, 0}},
		{"no seqid", join(verOneway, nameLen3, "Get"), want{trunc, 11, 4, 2, 0}},
		{"Get", join(verCall, nameLen3, "Get", seqID7), want{ok, 15, 1, 2, 7}},
		{"Get, verOneway, negative seqid, args after", join(verOneway, nameLen3, "Get", []byte{0xFF, 0xFF, 0xFF, 0xFE}, []byte{0x0A, 0, 1}), want{ok, 15, 4, 2, -2}},
		{"ReadPost followed by an s", join(verCall, []byte{0, 0, 0, 8}, "ReadPost", "s", seqID7), want{ok, 20, 1, 3, 0x73000000}},
		{"ReadPosts", join(verCall, []byte{0, 0, 0, 9}, "ReadPosts", []byte{0x80, 0, 0, 0}, []byte{0}), want{ok, 21, 1, 4, -1 << 31}},
	} {
		r := schemagold.CheckHeader(hdrTable, tc.msg)
		w := tc.want
		exp := schemagold.Result{Code: w.code, Offset: w.off, MsgType: w.msgType, Method: w.method, SeqID: w.seqID}
		if r != exp {
			t.Errorf("%s: CheckHeader = %+v, want %+v", tc.name, r, exp)
		}
		if w.code == ok {
			continue
		}
		// Deserialize's header line on a header fault is CheckHeader's,
		// with the empty area's end.
		d := schemagold.Deserialize(hdrTable, tc.msg, make([]byte, schemagold.MinCapacity))
		exp.AreaEnd = schemagold.AreaStart
		if d != exp {
			t.Errorf("%s: Deserialize = %+v, want %+v", tc.name, d, exp)
		}
	}
}

// TestCheckHeaderMaxMethods: the 256th method's name is UNKNOWN_METHOD (the
// method byte names 255), the 255th's is method 255; nil is NONE.
func TestCheckHeaderMaxMethods(t *testing.T) {
	tab := &schema.Table{}
	for i := range 256 {
		tab.Methods = append(tab.Methods, schema.Method{Name: fmt.Sprintf("M%03d", i)})
	}
	len4 := []byte{0, 0, 0, 4}
	if r, want := schemagold.CheckHeader(tab, join(verCall, len4, "M254", seqID7)), (schemagold.Result{Code: schemagold.CodeOK, Offset: 16, MsgType: 1, Method: 255, SeqID: 7}); r != want {
		t.Errorf("M254: %+v, want %+v", r, want)
	}
	if r, want := schemagold.CheckHeader(tab, join(verCall, len4, "M255", seqID7)), (schemagold.Result{Code: schemagold.CodeUnknownMethod, Offset: 8, MsgType: 1}); r != want {
		t.Errorf("M255: %+v, want %+v", r, want)
	}
	if r := schemagold.CheckHeader(nil, join(verCall, nameLen3, "Get", seqID7)); r != (schemagold.Result{}) {
		t.Errorf("nil table: %+v, want the zero Result (NONE)", r)
	}
}
