package golden

import (
	"encoding/binary"
	"fmt"
)

// Thrift binary-protocol type ids (docs/abi.md section 4, BAD_TYPE).
const (
	typeStop   = 0
	typeBool   = 2
	typeByte   = 3
	typeDouble = 4
	typeI16    = 6
	typeI32    = 8
	typeI64    = 10
	typeBinary = 11
	typeStruct = 12
	typeMap    = 13
	typeSet    = 14
	typeList   = 15
	typeUUID   = 16
)

// fixedSize is the payload size of each fixed-size type, 0 for the others.
var fixedSize = [...]int{
	typeBool:   1,
	typeByte:   1,
	typeDouble: 8,
	typeI16:    2,
	typeI32:    4,
	typeI64:    8,
	typeUUID:   16,
}

// CheckCapacity reports whether n bytes is an App.Recv capacity the RTL can be
// given: a multiple of 64 in [MinCapacity, MaxCapacity].
func CheckCapacity(n int) error {
	switch {
	case n%64 != 0:
		return fmt.Errorf("golden: App.Recv capacity %d is not a multiple of 64", n)
	case n < MinCapacity:
		return fmt.Errorf("golden: App.Recv capacity %d is below %d", n, MinCapacity)
	case n > MaxCapacity:
		return fmt.Errorf("golden: App.Recv capacity %d is above %d", n, MaxCapacity)
	}
	return nil
}

// Deserialize parses msg as the RxEngine does (abi.md section 5) and writes
// into img exactly the bytes the RTL writes (section 6): key and value bytes
// as their fields are met, then the header line, for every result.
//
// img is the whole App.Recv buffer, so len(img) is the capacity C. A capacity
// that CheckCapacity rejects is a programming error the RTL would refuse with
// CMDERR_BAD_ARG: Deserialize then writes nothing and returns Result{} (code
// NONE). Deserialize never panics, never allocates, reads msg only below
// len(msg), writes img only below len(img), and never returns RESP_OK or
// LOAD_FAULT.
func Deserialize(msg, img []byte) Result {
	if CheckCapacity(len(img)) != nil {
		return Result{}
	}
	r := parse(msg, img)
	r.PutHeader(img)
	return r
}

// end finishes a parse with code c at offset off.
func (r Result) end(c Code, off int) Result {
	r.Code = c
	r.Offset = uint32(off)
	return r
}

// parse runs the checks of abi.md section 5 in their order. A "need k bytes
// at p" check is written p+k > n; n <= MaxMessage keeps every sum in range.
func parse(msg, img []byte) (r Result) {
	n := len(msg)
	if n > MaxMessage {
		return r.end(CodeMsgTooLarge, 0)
	}
	be := binary.BigEndian

	if n < 4 {
		return r.end(CodeTruncated, 0)
	}
	ver := be.Uint32(msg)
	if ver>>16 != VersionStrict || ver&0xFF00 != 0 {
		return r.end(CodeBadVersion, 0)
	}
	r.MsgType = uint8(ver)
	if r.MsgType != MsgCall && r.MsgType != MsgOneway {
		return r.end(CodeBadMsgType, 0)
	}

	if n < 8 {
		return r.end(CodeTruncated, 4)
	}
	switch l := int32(be.Uint32(msg[4:])); {
	case l < 0:
		return r.end(CodeBadLength, 4)
	case l != NameLen:
		return r.end(CodeUnknownMethod, 4)
	}

	if n < 11 {
		return r.end(CodeTruncated, 8)
	}
	switch string(msg[8:11]) { // no allocation: the conversion is only compared
	case NameSet:
		r.Method = MethodSet
	case NameGet:
		r.Method = MethodGet
	default:
		return r.end(CodeUnknownMethod, 8)
	}

	if n < 15 {
		return r.end(CodeTruncated, 11)
	}
	r.SeqID = int32(be.Uint32(msg[11:]))
	set := r.Method == MethodSet // Get_args has fields 1 and 2 only: 3 to 5 are unknown to it

	p := 15
	for {
		if p+1 > n {
			return r.end(CodeTruncated, p)
		}
		t := msg[p]
		if t == typeStop {
			return r.end(CodeOK, p+1)
		}
		if p+3 > n {
			return r.end(CodeTruncated, p)
		}
		id := int16(be.Uint16(msg[p+1:]))

		switch t {
		case typeBool, typeByte, typeDouble, typeI16, typeI32, typeI64, typeUUID:
			size := fixedSize[t]
			if p+3+size > n {
				return r.end(CodeTruncated, p+3)
			}
			v := msg[p+3 : p+3+size]
			switch {
			case id == 1 && t == typeI64:
				r.ReqID = int64(be.Uint64(v))
				r.Present |= PresentReqID
			case id == 4 && t == typeI32 && set:
				r.Flags = int32(be.Uint32(v))
				r.Present |= PresentFlags
			case id == 5 && t == typeI32 && set:
				r.Exptime = int32(be.Uint32(v))
				r.Present |= PresentExptime
			}
			p += 3 + size

		case typeBinary:
			if p+7 > n {
				return r.end(CodeTruncated, p+3)
			}
			l := int32(be.Uint32(msg[p+3:]))
			if l < 0 {
				return r.end(CodeBadLength, p+3)
			}
			if int(l) > n-(p+7) {
				return r.end(CodeTruncated, p+7)
			}
			body := msg[p+7 : p+7+int(l)]
			switch {
			case id == 2:
				if l > KeyMax {
					return r.end(CodeKeyTooLong, p+3)
				}
				copy(img[KeyOffset:], body)
				r.KeyLen = uint32(l)
				r.Present |= PresentKey
			case id == 3 && set:
				if int(l) > len(img)-ValueOffset {
					return r.end(CodeValueTooLong, p+3)
				}
				copy(img[ValueOffset:], body)
				r.ValueLen = uint32(l)
				r.Present |= PresentValue
			}
			p += 7 + int(l)

		case typeStruct, typeMap, typeSet, typeList:
			return r.end(CodeNestedUnsupported, p)

		default:
			return r.end(CodeBadType, p)
		}
	}
}
