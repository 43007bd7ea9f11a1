package tb

import "fmt"

// Numbers of docs/abi.md that the testbench speaks: opcodes, states and the
// status word's fields. The RTL's opcodes, states and command errors are
// generated from these (internal/abisv, make abi-sv).

// Command opcodes (docs/abi.md section 2).
const (
	OpSendNetBuf   = 1
	OpSendNetLen   = 2
	OpAppReadyFlag = 3
	OpSendAppResp  = 4
	OpSendAppBuf   = 5
	OpNetReadyFlag = 6
)

// Control FSM states (docs/abi.md section 3).
const (
	StateIdleRecv = 0
	StateBusy     = 1
	StateDrain    = 2
	StateDone     = 3
	StateIdleResp = 4
)

// StateNames names the FSM states by their encoding.
var StateNames = map[uint64]string{
	StateIdleRecv: "IDLE_RECV", StateBusy: "BUSY", StateDrain: "DRAIN",
	StateDone: "DONE", StateIdleResp: "IDLE_RESP",
}

// Command errors (docs/abi.md section 2).
const (
	CmdErrNone          = 0
	CmdErrUnknownOpcode = 1
	CmdErrWrongState    = 2
	CmdErrNotReady      = 3
	CmdErrBadArg        = 4
)

// Status is a decoded status word (docs/abi.md section 4).
type Status uint64

func (s Status) State() uint64  { return uint64(s) & 0xF }
func (s Status) Ready() bool    { return s>>4&1 == 1 }
func (s Status) Result() uint8  { return uint8(s >> 8) }
func (s Status) CmdErr() uint8  { return uint8(s >> 16) }
func (s Status) Detail() uint32 { return uint32(s >> 32) }

// Command builds a command word.
func Command(op uint8, payload uint64) uint64 { return payload<<4 | uint64(op&0xF) }

// CMD_APP_READY_FLAG's payload: the App.Recv base as a line number in bits
// 59:16 and the capacity in lines in bits 15:0.
const (
	appReadyLineBits = 44
	appReadyCapMax   = 0xFFFF
)

// AppReadyPayload encodes the App.Recv buffer for CMD_APP_READY_FLAG (bits
// beyond its fields are dropped: AppReadyFits says whether any are).
func AppReadyPayload(base uint64, capLines int) uint64 {
	return (base/LineSize)<<16 | uint64(capLines)&appReadyCapMax
}

// AppReadyFits reports an App.Recv buffer the command cannot carry.
func AppReadyFits(base uint64, capLines int) error {
	if (base/LineSize)>>appReadyLineBits != 0 || capLines < 0 || capLines > appReadyCapMax {
		return fmt.Errorf("tb: App.Recv base %#x with %d lines does not fit CMD_APP_READY_FLAG (a %d-bit line number, at most %d lines)",
			base, capLines, appReadyLineBits, appReadyCapMax)
	}
	return nil
}

// CMD_SEND_APP_RESP's payload (docs/abi.md section 2): the App.Resp length
// in bits [20:0], the Net.Resp buffer's capacity in bytes in bits [41:21]
// (a larger buffer is given as the largest capacity the field holds, which
// is above any reply's length), and in bit 42 whether the request came
// framed. Bits above are ignored.
const (
	AppRespLenBits   = 21
	AppRespCapShift  = 21
	AppRespCapBits   = 21
	AppRespFramedBit = 42
	AppRespCapMax    = 1<<AppRespCapBits - 1
)

// AppRespPayload encodes CMD_SEND_APP_RESP's payload for an App.Resp image of
// appLen bytes, a Net.Resp buffer of capacity bytes (capped at
// AppRespCapMax) and the request's framing. An appLen the field cannot hold
// is refused by the engine (it is outside golden.CheckAppRespLen's range).
func AppRespPayload(appLen, capacity int, framed bool) uint64 {
	p := uint64(min(max(appLen, 0), 1<<AppRespLenBits-1)) | uint64(min(max(capacity, 0), AppRespCapMax))<<AppRespCapShift
	if framed {
		p |= 1 << AppRespFramedBit
	}
	return p
}
