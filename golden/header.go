package golden

import (
	"encoding/binary"
	"fmt"
)

// Layout of the App.Recv buffer (abi.md section 6) and the limits of section 4.
const (
	HeaderSize  = 64          // the header line, bytes [0, 64)
	KeyOffset   = 64          // key bytes start here
	KeyMax      = 256         // longest key; the key region is [64, 320)
	ValueOffset = 320         // value bytes start here; the region is [320, C)
	MinCapacity = 320         // smallest capacity C in bytes (5 lines)
	MaxCapacity = 0xFFFF * 64 // largest C that CMD_APP_READY_FLAG can express (16-bit line count)
	MaxMessage  = 16384000    // longest message in bytes (Thrift's MaxFrameSize)
)

// The strict message header (docs/abi.md section 5): the version word's
// high half (Thrift's VERSION_1), the message types in its low byte, and
// the methods' names, each NameLen bytes.
const (
	VersionStrict = 0x8001
	MsgCall       = 1
	MsgReply      = 2
	MsgException  = 3
	MsgOneway     = 4
	NameSet       = "Set"
	NameGet       = "Get"
	NameLen       = 3
)

// Methods, as in the header's method byte.
const (
	MethodUnknown = 0
	MethodSet     = 1
	MethodGet     = 2
)

// Bits of the header's present byte.
const (
	PresentReqID   = 1 << 0
	PresentKey     = 1 << 1
	PresentValue   = 1 << 2
	PresentFlags   = 1 << 3
	PresentExptime = 1 << 4
)

// Result is what the RxEngine reports for one message: the header line's
// fields (abi.md section 6). Offset is also the status word's result detail.
type Result struct {
	Code     Code
	MsgType  uint8 // 1 CALL, 4 ONEWAY; the raw type byte on BAD_MSG_TYPE; 0 before the version check passed
	Method   uint8 // MethodUnknown, MethodSet, MethodGet
	Present  uint8 // Present* bits
	SeqID    int32
	ReqID    int64
	Flags    int32
	Exptime  int32
	KeyLen   uint32
	ValueLen uint32
	Offset   uint32 // bytes consumed for OK, else where the failing item starts
}

// PutHeader writes r as the 64-byte little-endian header line into dst[:64],
// reserved bytes [36, 64) as zeros. It panics if len(dst) < 64.
func (r Result) PutHeader(dst []byte) {
	_ = dst[HeaderSize-1] // one bounds check, as in encoding/binary
	le := binary.LittleEndian
	le.PutUint64(dst[0:], uint64(r.ReqID))
	le.PutUint32(dst[8:], uint32(r.Flags))
	le.PutUint32(dst[12:], uint32(r.Exptime))
	le.PutUint32(dst[16:], r.KeyLen)
	le.PutUint32(dst[20:], r.ValueLen)
	le.PutUint32(dst[24:], uint32(r.SeqID))
	dst[28] = byte(r.Code)
	dst[29] = r.MsgType
	dst[30] = r.Present
	dst[31] = r.Method
	le.PutUint32(dst[32:], r.Offset)
	clear(dst[36:HeaderSize])
}

// ParseHeader reads a header line written by PutHeader (or by the RTL). It
// fails if line is shorter than 64 bytes or a reserved byte is not zero.
func ParseHeader(line []byte) (Result, error) {
	if len(line) < HeaderSize {
		return Result{}, fmt.Errorf("golden: header line is %d bytes, want %d", len(line), HeaderSize)
	}
	for i := 36; i < HeaderSize; i++ {
		if line[i] != 0 {
			return Result{}, fmt.Errorf("golden: header byte %d is %#02x, want 0 (reserved)", i, line[i])
		}
	}
	le := binary.LittleEndian
	return Result{
		ReqID:    int64(le.Uint64(line[0:])),
		Flags:    int32(le.Uint32(line[8:])),
		Exptime:  int32(le.Uint32(line[12:])),
		KeyLen:   le.Uint32(line[16:]),
		ValueLen: le.Uint32(line[20:]),
		SeqID:    int32(le.Uint32(line[24:])),
		Code:     Code(line[28]),
		MsgType:  line[29],
		Present:  line[30],
		Method:   line[31],
		Offset:   le.Uint32(line[32:]),
	}, nil
}
