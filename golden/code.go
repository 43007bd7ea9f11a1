package golden

import "fmt"

// Code is a result code (abi.md section 4): status word bits [15:8] and
// byte 28 of the App.Recv header line.
type Code uint8

// The result codes, with the values of the ABI table (the RTL's result_e is
// generated from them: internal/abisv).
const (
	CodeNone Code = 0x00 // no request has finished yet
	CodeOK   Code = 0x01 // a Set or Get was deserialized into App.Recv
	// 0x02 is reserved: PASS_TO_SW, a Get left to software before its recvFunction.
	CodeRespOK            Code = 0x03 // the TxEngine wrote the reply
	CodeTruncated         Code = 0x10 // an item extends past the message length
	CodeBadVersion        Code = 0x11 // not a strict version-1 header
	CodeBadMsgType        Code = 0x12 // message type is not CALL or ONEWAY
	CodeUnknownMethod     Code = 0x13 // method name is neither Set nor Get
	CodeBadLength         Code = 0x14 // a negative name or binary length
	CodeBadType           Code = 0x15 // a field type id that is not a Thrift type
	CodeNestedUnsupported Code = 0x16 // a field of type STRUCT, MAP, SET or LIST
	CodeKeyTooLong        Code = 0x17 // key longer than KeyMax bytes
	CodeValueTooLong      Code = 0x18 // value longer than the App.Recv value region
	CodeMsgTooLarge       Code = 0x19 // message longer than MaxMessage bytes
	CodeLoadFault         Code = 0x1A // a load the parser needed came back with an error
	// The TxEngine's own codes (docs/abi.md section 11), from 0x20.
	CodeRespBadImage  Code = 0x20 // the App.Resp header line does not describe a reply to this request
	CodeRespTooLarge  Code = 0x21 // the reply is longer than the Net.Resp buffer; nothing written
	CodeRespLoadFault Code = 0x22 // a load of the App.Resp image came back with an error
)

var codeNames = [...]string{
	CodeNone:              "NONE",
	CodeOK:                "OK",
	CodeRespOK:            "RESP_OK",
	CodeTruncated:         "TRUNCATED",
	CodeBadVersion:        "BAD_VERSION",
	CodeBadMsgType:        "BAD_MSG_TYPE",
	CodeUnknownMethod:     "UNKNOWN_METHOD",
	CodeBadLength:         "BAD_LENGTH",
	CodeBadType:           "BAD_TYPE",
	CodeNestedUnsupported: "NESTED_UNSUPPORTED",
	CodeKeyTooLong:        "KEY_TOO_LONG",
	CodeValueTooLong:      "VALUE_TOO_LONG",
	CodeMsgTooLarge:       "MSG_TOO_LARGE",
	CodeLoadFault:         "LOAD_FAULT",
	CodeRespBadImage:      "RESP_BAD_IMAGE",
	CodeRespTooLarge:      "RESP_TOO_LARGE",
	CodeRespLoadFault:     "RESP_LOAD_FAULT",
}

// String returns the code's ABI name ("OK", "TRUNCATED", ...), or
// "CODE_0xNN" for a value the ABI does not define.
func (c Code) String() string {
	if int(c) < len(codeNames) && codeNames[c] != "" {
		return codeNames[c]
	}
	return fmt.Sprintf("CODE_0x%02X", uint8(c))
}

// ParseCode returns the code whose ABI name is name. Only defined names are
// accepted; "CODE_0xNN" is not.
func ParseCode(name string) (Code, error) {
	for c, n := range codeNames {
		if n != "" && n == name {
			return Code(c), nil
		}
	}
	return 0, fmt.Errorf("golden: unknown result code name %q", name)
}

// AllCodes returns every defined code in ascending order, in a new slice.
func AllCodes() []Code {
	codes := make([]Code, 0, len(codeNames))
	for c, n := range codeNames {
		if n != "" {
			codes = append(codes, Code(c))
		}
	}
	return codes
}
