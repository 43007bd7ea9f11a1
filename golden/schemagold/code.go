package schemagold

import (
	"fmt"

	"arcalis/golden"
)

// Code is a result code of the generic recvFunction (byte 28 of the App.Recv
// header line) or of the respFunction (Serialize). The codes they share with
// the Memcached engine have golden's values and names; the limits of the
// generic image are 0x30 to 0x33, the App.Resp image's faults 0x34 to 0x37. They are not
// in golden's table: golden.AllCodes is the list of codes the RTL must
// produce (tb's coverage demands each one), and no RTL produces these yet.
type Code uint8

// The result codes Deserialize and Serialize return.
const (
	CodeNone          = Code(golden.CodeNone)          // nothing was deserialized (a capacity Deserialize refuses)
	CodeOK            = Code(golden.CodeOK)            // the args struct was deserialized into the image
	CodeTruncated     = Code(golden.CodeTruncated)     // an item extends past the message length
	CodeBadVersion    = Code(golden.CodeBadVersion)    // not a strict version-1 header
	CodeBadMsgType    = Code(golden.CodeBadMsgType)    // message type is not CALL or ONEWAY
	CodeUnknownMethod = Code(golden.CodeUnknownMethod) // the name is none of the service's methods
	CodeBadLength     = Code(golden.CodeBadLength)     // a negative name, string or container length
	CodeBadType       = Code(golden.CodeBadType)       // a type id Apache's Go library 0.17.0 cannot read (UUID 16 included)
	CodeMsgTooLarge   = Code(golden.CodeMsgTooLarge)   // message longer than golden.MaxMessage bytes
	CodeRespOK        = Code(golden.CodeRespOK)        // Serialize: the reply was written
	CodeRespBadImage  = Code(golden.CodeRespBadImage)  // Serialize: the App.Resp header line does not describe a reply to this request

	CodeDepthExceeded   Code = 0x30 // a struct, list, set or map at nesting level MaxDepth+1
	CodeTooManyElements Code = 0x31 // a list, set or map of more than MaxElements elements
	CodeAreaOverflow    Code = 0x32 // a record, array or string does not fit in the image
	CodeRequiredMissing Code = 0x33 // a required field is absent at its struct's STOP

	// Serialize's faults of an App.Resp image (docs/abi.md section 13).
	CodeBadDescriptor Code = 0x34 // a descriptor outside the area, not 8-aligned, or a record of the wrong size
	CodeOverlap       Code = 0x35 // a descriptor points before the end of the last record, array or string read
	CodeBadPresence   Code = 0x36 // a presence bit of no field, two result fields, a union without exactly one
)

var ownNames = map[Code]string{
	CodeDepthExceeded:   "DEPTH_EXCEEDED",
	CodeTooManyElements: "TOO_MANY_ELEMENTS",
	CodeAreaOverflow:    "AREA_OVERFLOW",
	CodeRequiredMissing: "REQUIRED_MISSING",
	CodeBadDescriptor:   "BAD_DESCRIPTOR",
	CodeOverlap:         "OVERLAP",
	CodeBadPresence:     "BAD_PRESENCE",
}

// Codes returns every code Deserialize or Serialize can return, in
// ascending order.
func Codes() []Code {
	return []Code{CodeNone, CodeOK, CodeRespOK, CodeTruncated, CodeBadVersion, CodeBadMsgType, CodeUnknownMethod,
		CodeBadLength, CodeBadType, CodeMsgTooLarge, CodeRespBadImage,
		CodeDepthExceeded, CodeTooManyElements, CodeAreaOverflow, CodeRequiredMissing,
		CodeBadDescriptor, CodeOverlap, CodeBadPresence}
}

// String returns the code's name: golden's for the shared codes ("OK",
// "TRUNCATED"), DEPTH_EXCEEDED and the others for this package's, else
// "CODE_0xNN".
func (c Code) String() string {
	if n, ok := ownNames[c]; ok {
		return n
	}
	if c < 0x30 {
		return golden.Code(c).String()
	}
	return fmt.Sprintf("CODE_0x%02X", uint8(c))
}
