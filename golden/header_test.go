package golden

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

var headerResult = Result{
	Code: CodeKeyTooLong, MsgType: MsgOneway, Method: MethodGet, Present: 0x15, SeqID: -2,
	ReqID: 0x0102030405060708, Flags: 0x11223344, Exptime: -1, KeyLen: 0x100, ValueLen: 0xABCDEF, Offset: 0x01020304,
}

// headerBytes is headerResult laid out by hand from abi.md section 6.
var headerBytes = append([]byte{
	0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, // req_id
	0x44, 0x33, 0x22, 0x11, // flags
	0xFF, 0xFF, 0xFF, 0xFF, // exptime
	0x00, 0x01, 0x00, 0x00, // key_len
	0xEF, 0xCD, 0xAB, 0x00, // value_len
	0xFE, 0xFF, 0xFF, 0xFF, // seqid
	0x17, 0x04, 0x15, 0x02, // code, message type, present, method
	0x04, 0x03, 0x02, 0x01, // offset
}, make([]byte, 28)...)

func TestPutHeader(t *testing.T) {
	dst := bytes.Repeat([]byte{fill}, 70)
	headerResult.PutHeader(dst)
	if !bytes.Equal(dst[:64], headerBytes) {
		t.Fatalf("PutHeader wrote\n% x\nwant\n% x", dst[:64], headerBytes)
	}
	if !bytes.Equal(dst[64:], bytes.Repeat([]byte{fill}, 6)) {
		t.Fatalf("PutHeader wrote past byte 64: % x", dst[64:])
	}
}

func TestPutHeaderShort(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("PutHeader into 63 bytes did not panic")
		}
	}()
	Result{}.PutHeader(make([]byte, 63))
}

func TestParseHeader(t *testing.T) {
	got, err := ParseHeader(headerBytes)
	if err != nil || got != headerResult {
		t.Fatalf("ParseHeader = %+v, %v; want %+v", got, err, headerResult)
	}
	// Longer input: only the first line counts.
	got, err = ParseHeader(append(append([]byte(nil), headerBytes...), 0xFF))
	if err != nil || got != headerResult {
		t.Fatalf("ParseHeader(65 bytes) = %+v, %v; want %+v", got, err, headerResult)
	}
}

func TestParseHeaderErrors(t *testing.T) {
	for _, n := range []int{0, 1, 36, 63} {
		t.Run(fmt.Sprintf("len=%d", n), func(t *testing.T) {
			if _, err := ParseHeader(headerBytes[:n]); err == nil || !strings.Contains(err.Error(), "bytes") {
				t.Fatalf("ParseHeader(%d bytes) error = %v, want a length error", n, err)
			}
		})
	}
	for i := 36; i < 64; i++ {
		t.Run(fmt.Sprintf("reserved=%d", i), func(t *testing.T) {
			line := append([]byte(nil), headerBytes...)
			line[i] = 0x01
			if _, err := ParseHeader(line); err == nil || !strings.Contains(err.Error(), fmt.Sprint("byte ", i)) {
				t.Fatalf("ParseHeader with byte %d set: error = %v, want a reserved-byte error", i, err)
			}
		})
	}
}

func TestCodeNames(t *testing.T) {
	want := []struct {
		code Code
		name string
	}{
		{0x00, "NONE"}, {0x01, "OK"}, {0x03, "RESP_OK"},
		{0x10, "TRUNCATED"}, {0x11, "BAD_VERSION"}, {0x12, "BAD_MSG_TYPE"}, {0x13, "UNKNOWN_METHOD"},
		{0x14, "BAD_LENGTH"}, {0x15, "BAD_TYPE"}, {0x16, "NESTED_UNSUPPORTED"}, {0x17, "KEY_TOO_LONG"},
		{0x18, "VALUE_TOO_LONG"}, {0x19, "MSG_TOO_LARGE"}, {0x1A, "LOAD_FAULT"},
		{0x20, "RESP_BAD_IMAGE"}, {0x21, "RESP_TOO_LARGE"}, {0x22, "RESP_LOAD_FAULT"},
	}
	all := AllCodes()
	if len(all) != len(want) {
		t.Fatalf("AllCodes has %d codes, want %d", len(all), len(want))
	}
	for i, w := range want {
		t.Run(w.name, func(t *testing.T) {
			if all[i] != w.code {
				t.Errorf("AllCodes()[%d] = %#02x, want %#02x", i, uint8(all[i]), uint8(w.code))
			}
			if got := w.code.String(); got != w.name {
				t.Errorf("Code(%#02x).String() = %q, want %q", uint8(w.code), got, w.name)
			}
			if got, err := ParseCode(w.name); err != nil || got != w.code {
				t.Errorf("ParseCode(%q) = %#02x, %v; want %#02x", w.name, uint8(got), err, uint8(w.code))
			}
		})
	}
	named := []Code{
		CodeNone, CodeOK, CodeRespOK, CodeTruncated, CodeBadVersion, CodeBadMsgType, CodeUnknownMethod,
		CodeBadLength, CodeBadType, CodeNestedUnsupported, CodeKeyTooLong, CodeValueTooLong, CodeMsgTooLarge, CodeLoadFault,
	}
	for i, c := range named {
		if c != want[i].code {
			t.Errorf("constant for %s is %#02x, want %#02x", want[i].name, uint8(c), uint8(want[i].code))
		}
	}
	all[0] = 0xEE // AllCodes must hand out a fresh slice
	if AllCodes()[0] != CodeNone {
		t.Error("AllCodes shares its slice with callers")
	}
}

func TestCodeUnknown(t *testing.T) {
	for _, tc := range []struct {
		code Code
		name string
	}{{0x04, "CODE_0x04"}, {0x0F, "CODE_0x0F"}, {0x1B, "CODE_0x1B"}, {0xFF, "CODE_0xFF"}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.code.String(); got != tc.name {
				t.Errorf("String() = %q, want %q", got, tc.name)
			}
		})
	}
	for _, name := range []string{"", "ok", "Ok", " OK", "OK ", "CODE_0x01", "CODE_0x04", "0x01", "1"} {
		t.Run(fmt.Sprintf("parse %q", name), func(t *testing.T) {
			if c, err := ParseCode(name); err == nil {
				t.Errorf("ParseCode(%q) = %v, want an error", name, c)
			}
		})
	}
}
