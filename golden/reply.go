package golden

import (
	"encoding/binary"
	"fmt"
)

// ReplySize is the length of a void Set's reply message.
const ReplySize = 16

// SetReply returns the Thrift REPLY the TxEngine writes for a void Set with
// this seqid (docs/abi.md section 8): strict header, name "Set", seqid, and
// an empty result struct. An array, not a slice: the scoreboard builds one
// per Set CALL, and it should not allocate. WriteReply writes the same bytes
// for an unframed Set with a RespStatusValue image.
func SetReply(seqid int32) [ReplySize]byte {
	var r [ReplySize]byte
	_ = append(appendReplyHead(r[:0], VersionReply, NameSet, seqid), typeStop)
	return r
}

// appendReplyHead appends a reply's strict message header: version word,
// the 3-byte method name with its length, seqid.
func appendReplyHead(b []byte, version uint32, name string, seqid int32) []byte {
	b = binary.BigEndian.AppendUint32(b, version)
	b = binary.BigEndian.AppendUint32(b, uint32(len(name)))
	b = append(b, name...)
	return binary.BigEndian.AppendUint32(b, uint32(seqid))
}

// The reply messages (docs/abi.md section 11), as Apache Thrift 0.17.0's
// generated Go processor writes them with TBinaryProtocol (strict write,
// the default).
const (
	VersionReply     = VersionStrict<<16 | MsgReply     // strict version word of a REPLY
	VersionException = VersionStrict<<16 | MsgException // strict version word of an EXCEPTION
	FrameHeaderSize  = 4                                // framed transport: big-endian message length first

	// ExcInternalError is the TApplicationException type (field 2) the
	// generated processor gives a handler's error.
	ExcInternalError = 6
	// The exception message (field 1) is this prefix, then the handler
	// error's text.
	AppErrorPrefixSet = "Internal error processing " + NameSet + ": "
	AppErrorPrefixGet = "Internal error processing " + NameGet + ": "

	replyHeadSize   = 4 + 4 + NameLen + 4 // version, name length, name, seqid
	fieldHeadSize   = 3                   // type byte, big-endian i16 id
	typeBinaryLen   = 4                   // big-endian i32 length of a binary/string
	replyStopSize   = 1                   // the result struct's STOP
	excFieldsSize   = fieldHeadSize + typeBinaryLen + fieldHeadSize + 4 + replyStopSize
	appErrPrefixLen = len(AppErrorPrefixGet)
)

// ReplyRequest is what the TxEngine keeps of the request it answers.
type ReplyRequest struct {
	Method uint8 // MethodSet or MethodGet (App.Recv header byte 31)
	SeqID  int32 // the CALL's seqid (App.Recv header bytes 24..27)
	Framed bool  // the CALL came with a 4-byte frame length: so does the reply
}

// TxResult is how the TxEngine ends: the status word's result code and
// detail.
type TxResult struct {
	Code   Code   // CodeRespOK, CodeRespBadImage, CodeRespTooLarge; CodeNone for an App.Resp length CMD_SEND_APP_RESP refuses
	Detail uint32 // RESP_OK, RESP_TOO_LARGE: the reply's length in bytes (frame length included); RESP_BAD_IMAGE: the App.Resp offset of the field at fault
}

// ReplyLen checks the App.Resp image appResp (len(appResp) is the App.Resp
// length given with CMD_SEND_APP_RESP) against req, in the TxEngine's order,
// and returns the length of the reply it serializes to (frame length
// included) with RESP_OK, or 0 and the code WriteReply ends with:
//
//  1. a length CheckAppRespLen rejects: Code NONE, detail 0 (the command is
//     refused; no reply);
//  2. method byte (5) not MethodSet or MethodGet, or not req.Method:
//     RESP_BAD_IMAGE, detail 5;
//  3. status byte (4) not RespStatusValue or RespStatusAppError, or (Get
//     only) RespStatusNull: RESP_BAD_IMAGE, detail 4;
//  4. data_len (0) above RespDataMax, not 0 for a Set's RespStatusValue or a
//     RespStatusNull, or 64 + data_len above len(appResp): RESP_BAD_IMAGE,
//     detail 0.
//
// Only the header line is read.
func ReplyLen(req ReplyRequest, appResp []byte) (int, TxResult) {
	if CheckAppRespLen(len(appResp)) != nil {
		return 0, TxResult{}
	}
	h, _ := ParseAppResp(appResp)
	if (h.Method != MethodSet && h.Method != MethodGet) || h.Method != req.Method {
		return 0, TxResult{CodeRespBadImage, RespMethodOffset}
	}
	switch h.Status {
	case RespStatusValue, RespStatusAppError:
	case RespStatusNull:
		if h.Method != MethodGet {
			return 0, TxResult{CodeRespBadImage, RespStatusOffset}
		}
	default:
		return 0, TxResult{CodeRespBadImage, RespStatusOffset}
	}
	noData := h.Status == RespStatusNull || (h.Status == RespStatusValue && h.Method == MethodSet)
	if h.DataLen > RespDataMax || (noData && h.DataLen != 0) || RespDataOffset+int(h.DataLen) > len(appResp) {
		return 0, TxResult{CodeRespBadImage, RespDataLenOffset}
	}
	n := int(h.DataLen)
	size := replyHeadSize + replyStopSize
	switch {
	case h.Status == RespStatusAppError:
		size = replyHeadSize + excFieldsSize + appErrPrefixLen + n
	case h.Method == MethodGet && h.Status == RespStatusValue:
		size += fieldHeadSize + typeBinaryLen + n
	}
	if req.Framed {
		size += FrameHeaderSize
	}
	return size, TxResult{CodeRespOK, uint32(size)}
}

// WriteReply serializes the reply to req from the App.Resp image appResp
// into dst, whose length is the Net.Resp buffer's capacity, and returns how
// the TxEngine ends. This is what the RTL mirrors.
//
// On RESP_OK it has written exactly dst[:Detail]:
//
//	[frame length, BE32, when req.Framed]
//	version (BE32: VersionReply, or VersionException for RespStatusAppError)
//	00 00 00 03, the method's name ("Set" or "Get"), seqid (BE32), then
//	Set, RespStatusValue:  00                          (empty result struct)
//	Get, RespStatusValue:  0B 00 00, data_len (BE32), value, 00
//	Get, RespStatusNull:   00                          (no field 0)
//	RespStatusAppError:    0B 00 01, 31 + data_len (BE32),
//	                       "Internal error processing Set: " or "... Get: ",
//	                       the error text,
//	                       08 00 02, 00 00 00 06 (INTERNAL_ERROR), 00
//
// Otherwise (ReplyLen's codes, or RESP_TOO_LARGE with the length the reply
// needs when that is above len(dst)) it writes nothing. WriteReply never
// panics, never allocates, and reads appResp only below 64 + data_len.
func WriteReply(dst []byte, req ReplyRequest, appResp []byte) TxResult {
	size, res := ReplyLen(req, appResp)
	if res.Code != CodeRespOK {
		return res
	}
	if size > len(dst) {
		return TxResult{CodeRespTooLarge, uint32(size)}
	}
	h, _ := ParseAppResp(appResp)
	data := appResp[RespDataOffset : RespDataOffset+int(h.DataLen)]
	be := binary.BigEndian
	b := dst[:0:size]
	if req.Framed {
		b = be.AppendUint32(b, uint32(size-FrameHeaderSize))
	}
	version := uint32(VersionReply)
	if h.Status == RespStatusAppError {
		version = VersionException
	}
	name := NameGet
	if req.Method == MethodSet {
		name = NameSet
	}
	b = appendReplyHead(b, version, name, req.SeqID)
	switch {
	case h.Status == RespStatusAppError:
		prefix := AppErrorPrefixGet
		if req.Method == MethodSet {
			prefix = AppErrorPrefixSet
		}
		b = append(b, typeBinary, 0, 1)
		b = be.AppendUint32(b, uint32(len(prefix)+len(data)))
		b = append(b, prefix...)
		b = append(b, data...)
		b = append(b, typeI32, 0, 2)
		b = be.AppendUint32(b, ExcInternalError)
	case req.Method == MethodGet && h.Status == RespStatusValue:
		b = append(b, typeBinary, 0, 0)
		b = be.AppendUint32(b, uint32(len(data)))
		b = append(b, data...)
	}
	_ = append(b, typeStop)
	return TxResult{CodeRespOK, uint32(size)}
}

// Reply returns the reply WriteReply serializes for req and appResp, in a
// new slice of exactly its length, with RESP_OK; or nil and WriteReply's
// code when it would write none (a Net.Resp buffer is never too small here).
func Reply(req ReplyRequest, appResp []byte) ([]byte, TxResult) {
	size, res := ReplyLen(req, appResp)
	if res.Code != CodeRespOK {
		return nil, res
	}
	out := make([]byte, size)
	return out, WriteReply(out, req, appResp)
}

// Where a reply's variable fields sit, from its first byte (unframed): the
// seqid, and the data's length field of a reply with data (a Get's value, an
// application error's message).
const (
	ReplySeqIDOffset   = 4 + 4 + NameLen               // after the version word and the name
	ReplyDataLenOffset = replyHeadSize + fieldHeadSize // after field 0's or field 1's header
)

// ReplyParts returns the constant bytes of the reply to method for an
// App.Resp with status (unframed): prefix, everything before the data, with
// zeros at the seqid (ReplySeqIDOffset) and, when the reply carries data, at
// the data's length field (ReplyDataLenOffset, 4 bytes; it holds data_len
// plus the prefix bytes after it, the application error's text prefix);
// suffix, everything after the data. A reply without data (Set's VALUE,
// Get's NULL) is all prefix. The reply WriteReply writes is prefix, with the
// fields filled in, then the data, then suffix. The TxEngine's generator
// takes its bytes from these (internal/abisv).
func ReplyParts(method, status uint8) (prefix, suffix []byte, err error) {
	var appErr error
	var value []byte
	switch {
	case status == RespStatusAppError:
		appErr = errorText("")
	case status == RespStatusValue && method == MethodGet:
		value = []byte{}
	case status == RespStatusValue, status == RespStatusNull && method == MethodGet:
	default:
		return nil, nil, fmt.Errorf("golden: no reply to method %d with App.Resp status %d", method, status)
	}
	img, err := BuildAppResp(method, value, appErr)
	if err != nil {
		return nil, nil, err
	}
	r, res := Reply(ReplyRequest{Method: method}, img)
	if res.Code != CodeRespOK {
		return nil, nil, fmt.Errorf("golden: reply to method %d with App.Resp status %d: %v", method, status, res.Code)
	}
	switch {
	case status == RespStatusAppError:
		suffix = r[len(r)-(excFieldsSize-fieldHeadSize-typeBinaryLen):]
	case value != nil:
		suffix = r[len(r)-replyStopSize:]
	default:
		return r, nil, nil
	}
	prefix = r[:len(r)-len(suffix)]
	clear(prefix[ReplyDataLenOffset : ReplyDataLenOffset+typeBinaryLen])
	return prefix, suffix, nil
}

// AppRespForReply returns the App.Resp image from which WriteReply writes
// exactly reply (unframed) for a request of method: the answer a recorded
// server gave, as the application would have written it, so that a capture
// replays through the TxEngine. It fails for a reply the TxEngine cannot
// write (another method or seqid shape, an exception other than a
// handler's INTERNAL_ERROR, trailing bytes).
func AppRespForReply(method uint8, reply []byte) ([]byte, error) {
	if method != MethodSet && method != MethodGet {
		return nil, fmt.Errorf("golden: no reply to method %d", method)
	}
	bad := func(what string) ([]byte, error) {
		return nil, fmt.Errorf("golden: the reply (%d bytes) is not one the TxEngine writes: %s", len(reply), what)
	}
	if len(reply) < replyHeadSize+replyStopSize {
		return bad("too short")
	}
	be := binary.BigEndian
	version, seqid := be.Uint32(reply), int32(be.Uint32(reply[ReplySeqIDOffset:]))
	var img []byte
	var err error
	body := reply[replyHeadSize:]
	switch {
	case version == VersionReply && len(body) == replyStopSize:
		var value []byte // a Set's void, or a Get's nil
		img, err = BuildAppResp(method, value, nil)
	case version == VersionReply && method == MethodGet && len(body) >= fieldHeadSize+typeBinaryLen+replyStopSize:
		n := int(be.Uint32(body[fieldHeadSize:]))
		if n < 0 || n != len(body)-fieldHeadSize-typeBinaryLen-replyStopSize {
			return bad("field 0's length")
		}
		img, err = BuildAppResp(method, body[fieldHeadSize+typeBinaryLen:][:n], nil)
	case version == VersionException && len(body) >= excFieldsSize:
		n := int(be.Uint32(body[fieldHeadSize:]))
		prefix := AppErrorPrefixGet
		if method == MethodSet {
			prefix = AppErrorPrefixSet
		}
		msg := body[fieldHeadSize+typeBinaryLen:]
		if n < len(prefix) || n != len(body)-excFieldsSize || string(msg[:len(prefix)]) != prefix {
			return bad("the exception's message")
		}
		img, err = BuildAppResp(method, nil, errorText(msg[len(prefix):n]))
	default:
		return bad("its message type or result")
	}
	if err != nil {
		return nil, err
	}
	if got, res := Reply(ReplyRequest{Method: method, SeqID: seqid}, img); res.Code != CodeRespOK || string(got) != string(reply) {
		return bad("its bytes differ from the reply to the image they describe")
	}
	return img, nil
}

// errorText is an application error with a given text.
type errorText string

func (e errorText) Error() string { return string(e) }
