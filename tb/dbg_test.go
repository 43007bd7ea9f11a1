package tb

import (
	"testing"

	"arcalis/golden"
)

func TestDbgReply(t *testing.T) {
	on(t, func(t *T) {
		freshEngine(t)
		msg := header("Get", 1, 0x95).i64(1, 9).bin(2, []byte("somekey")).stop()
		app := func([]byte) []byte { v := make([]byte, 106); for i := range v { v[i] = byte(i) }; img, _ := golden.BuildAppResp(golden.MethodGet, v, nil); return img }
		o, err := dut.Receive(Request{Msg: msg, App: app})
		t.Logf("err %v status %#x replied %v rstatus %#x", err, uint64(o.Status), o.Replied, uint64(o.ReplyStatus))
		t.Logf("% x", dut.Mem.Read(NetRespBase, 192))
	})
}
