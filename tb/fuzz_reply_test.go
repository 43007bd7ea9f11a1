package tb

import (
	"errors"
	"testing"

	"arcalis/golden"
)

// FuzzRTLReply fuzzes the reply side, the TxEngine's respFunction (docs/abi.md
// section 11), as FuzzRTL fuzzes the receive side: a Set or Get CALL is
// received and the application answers with an App.Resp image made from
// the input, the reply goes into a Net.Resp buffer of any capacity near the
// reply's length, and the RTL's status, reply and every byte of Net.Resp
// are compared with the reference's (runFaulty: load faults as
// tb/fault_test.go's rule, a clean request after a faulted one).
//
// Arguments: shape bit 0 picks Get (else Set), bit 1 a framed request; bits
// 2-3 the image: 0 a well-formed answer with data as the Get's value (a
// Set's is void), 1 an application error whose text is data, 2 data itself
// (zero-padded to the 64-byte header line: any data_len, status and
// method), 3 a well-formed answer whose header line's first 8 bytes are
// data's; bit 4 a Net.Resp capacity near the reply's length (slack mod 9
// less 4, at least 1; for an image with no reply, slack's low 11 bits),
// else the largest. mode is FuzzRTL's memory mode (fuzzMem);
// slack also gives the seqid. Faults and memory timings move where a
// reply's stream ends against the prefix the TxEngine is making, which is
// how the bug TestReplyAfterStreamFault pins down was found.
func FuzzRTLReply(f *testing.F) {
	for shape := range 32 {
		f.Add([]byte("a value"), uint8(shape*8), uint8(shape), int16(shape-16))
		f.Add(pattern(150, byte(shape)), uint8(8|shape<<4&0xF0|2*(shape%4)), uint8(shape), int16(3*shape))
	}
	f.Add([]byte{0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 0, 0}, uint8(2), uint8(2|12), int16(5))
	f.Add([]byte{0x40, 0, 0, 0, 1, 2, 0, 0}, uint8(4), uint8(1|12|16), int16(0))
	f.Cleanup(replyTally.flush)
	f.Fuzz(func(t *testing.T, data []byte, mode, shape uint8, slack int16) {
		method := uint8(golden.MethodSet)
		msg := setMsg(uint32(slack), []byte("key"), []byte("v"))
		if shape&1 == 1 {
			method, msg = golden.MethodGet, getMsg(uint32(slack), []byte("key"))
		}
		framed := shape&2 != 0
		var img []byte
		var err error
		switch shape >> 2 & 3 {
		case 0, 3:
			value := data
			if method == golden.MethodSet {
				value = nil
			}
			img, err = golden.BuildAppResp(method, value, nil)
			if shape>>2&3 == 3 {
				copy(img[:8], data)
			}
		case 1:
			img, err = golden.BuildAppResp(method, nil, errors.New(string(data)))
		case 2:
			img = append(data[:len(data):len(data)], make([]byte, max(0, golden.RespHeaderSize-len(data)))...)
		}
		if err != nil || golden.CheckAppRespLen(len(img)) != nil {
			return // not an image an application can give (data too long)
		}
		respCap := 0
		if shape&16 != 0 {
			if n, res := golden.ReplyLen(golden.ReplyRequest{Method: method, Framed: framed}, img); res.Code == golden.CodeRespOK {
				respCap = max(1, n+int(uint16(slack)%9)-4)
			} else {
				respCap = max(1, int(uint16(slack)&0x7FF))
			}
			respCap = min(respCap, AppRespCapMax)
		}
		on(t, func(t *T) {
			req := Request{Msg: msg, Offset: int(uint16(slack) % LineSize), App: gives(img), Framed: framed, RespCap: respCap}
			mem := fuzzMem(mode)
			o, class := runFaulty(t, "fuzz reply", req, mem)
			reply := "none: the request ended before it"
			if o.Replied {
				reply = golden.Code(o.ReplyStatus.Result()).String()
			}
			replyTally.add("reply "+reply, "fault "+class.String())
			cleanAfter(t, class, mem.Latency)
		})
	})
}
