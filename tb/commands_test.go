package tb

import (
	"fmt"
	"strings"
	"testing"

	"arcalis/golden"
)

// Tests of the command interface and the FSM's handling of commands in the
// wrong state (docs/abi.md sections 2-4).

func mustStatus(t *T) Status {
	t.Helper()
	s, err := dut.ReadStatus()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustCommand(t *T, op uint8, payload uint64) {
	t.Helper()
	if err := dut.Command(op, payload); err != nil {
		t.Fatal(err)
	}
}

// expectCmdErr issues a command and checks the command error it latches and
// the state it leaves the FSM in.
func expectCmdErr(t *T, name string, op uint8, payload uint64, wantErr uint8, wantState uint64) {
	t.Helper()
	mustCommand(t, op, payload)
	s := mustStatus(t)
	if s.CmdErr() != wantErr || s.State() != wantState {
		t.Errorf("%s: command error %d in state %s, want %d in %s", name, s.CmdErr(), StateNames[s.State()], wantErr, StateNames[wantState])
	}
	if s2 := mustStatus(t); s2.CmdErr() != CmdErrNone {
		t.Errorf("%s: command error %d not cleared by the status load", name, s2.CmdErr())
	}
}

func freshEngine(t *T) {
	t.Helper()
	if err := dut.Reset(); err != nil {
		t.Fatal(err)
	}
	if err := dut.Configure(WindowBase, WindowSize); err != nil {
		t.Fatal(err)
	}
}

func TestStatusBeforeAnyCommand(t *testing.T) {
	on(t, func(t *T) {
		freshEngine(t)
		s := mustStatus(t)
		if s.State() != StateIdleRecv || s.Ready() || s.Result() != 0 || s.CmdErr() != 0 || s.Detail() != 0 {
			t.Errorf("status after reset %#x, want IDLE_RECV, not ready, no result", uint64(s))
		}
	})
}

func TestOutsideWindow(t *testing.T) {
	on(t, func(t *T) {
		freshEngine(t)
		for _, addr := range []uint64{WindowBase - 8, WindowBase + WindowSize, 0, ^uint64(0) - 7} {
			t.Run(fmt.Sprintf("%#x", addr), func(t *T) {
				hit, w, err := dut.UC(true, addr, Command(OpSendNetLen, 100))
				if err != nil || hit || w != 0 {
					t.Errorf("UC store at %#x: hit %v word %#x err %v, want ignored", addr, hit, w, err)
				}
				hit, w, err = dut.UC(false, addr, 0)
				if err != nil || hit || w != 0 {
					t.Errorf("UC load at %#x: hit %v word %#x err %v, want ignored", addr, hit, w, err)
				}
			})
		}
		if s := mustStatus(t); s.State() != StateIdleRecv || s.CmdErr() != 0 {
			t.Errorf("accesses outside the window changed the engine: status %#x", uint64(s))
		}
		// The last byte of the window is inside.
		if hit, _, _ := dut.UC(false, WindowBase+WindowSize-1, 0); !hit {
			t.Error("load at the window's last byte was not claimed")
		}
	})
}

func TestUnknownOpcodes(t *testing.T) {
	on(t, func(t *T) {
		freshEngine(t)
		for _, op := range []uint8{0, 7, 8, 9, 10, 11, 12, 13, 14, 15} {
			t.Run(fmt.Sprint("opcode ", op), func(t *T) {
				expectCmdErr(t, "opcode", op, 123, CmdErrUnknownOpcode, StateIdleRecv)
			})
		}
	})
}

func TestCommandsNotReady(t *testing.T) {
	on(t, func(t *T) {
		freshEngine(t)
		expectCmdErr(t, "NET_LEN before any buffer", OpSendNetLen, 20, CmdErrNotReady, StateIdleRecv)
		mustCommand(t, OpSendNetBuf, NetRecvBase)
		expectCmdErr(t, "NET_LEN before APP_READY", OpSendNetLen, 20, CmdErrNotReady, StateIdleRecv)
		expectCmdErr(t, "APP_READY with 4 lines", OpAppReadyFlag, AppReadyPayload(AppRecvBase, 4), CmdErrBadArg, StateIdleRecv)
		expectCmdErr(t, "SEND_APP_RESP in IDLE_RECV", OpSendAppResp, 0, CmdErrWrongState, StateIdleRecv)
		expectCmdErr(t, "NET_READY unaligned", OpNetReadyFlag, NetRespBase+16, CmdErrBadArg, StateIdleRecv)
		expectCmdErr(t, "SEND_APP_BUF in IDLE_RECV", OpSendAppBuf, AppRespBase, CmdErrNone, StateIdleRecv)

		// A request consumes its NET_BUF: the next NET_LEN needs a new one.
		r := expect(t, "one request", setMsg(1, []byte("k"), []byte("v")), RunOptions{Offset: 3})
		if !r.Outcome.Replied {
			t.Fatal("the Set CALL was not replied")
		}
		expectCmdErr(t, "NET_LEN without a new NET_BUF", OpSendNetLen, 20, CmdErrNotReady, StateIdleRecv)
	})
}

func TestReplyCommands(t *testing.T) {
	on(t, func(t *T) {
		freshEngine(t)
		dut.Mem.Fill(NetRecvBase, 64, 0)
		msg := setMsg(77, []byte("k"), []byte("v"))
		dut.Mem.Write(NetRecvBase, msg)
		dut.Mem.Readable = Region{"Net.Recv", NetRecvBase, uint64(len(msg))}
		dut.Mem.Writable = Region{"App.Recv", AppRecvBase, DefaultCapLines * LineSize}
		mustCommand(t, OpAppReadyFlag, AppReadyPayload(AppRecvBase, DefaultCapLines))
		mustCommand(t, OpSendNetBuf, NetRecvBase)
		mustCommand(t, OpSendNetLen, uint64(len(msg)))
		s, err := dut.Poll(dut.Budget(len(msg)))
		if err != nil || golden.Code(s.Result()) != golden.CodeOK {
			t.Fatalf("request: status %#x, err %v", uint64(s), err)
		}
		img, _ := golden.BuildAppResp(golden.MethodSet, nil, nil)
		dut.Mem.Write(AppRespBase, img)
		dut.Mem.Readable = Region{"App.Resp", AppRespBase, uint64(len(img))}
		good := AppRespPayload(len(img), LineSize, false)
		expectCmdErr(t, "NET_LEN in IDLE_RESP", OpSendNetLen, 4, CmdErrWrongState, StateIdleResp)
		expectCmdErr(t, "SEND_APP_RESP before NET_READY", OpSendAppResp, good, CmdErrNotReady, StateIdleResp)
		expectCmdErr(t, "NET_READY in IDLE_RESP", OpNetReadyFlag, NetRespBase, CmdErrNone, StateIdleResp)
		expectCmdErr(t, "SEND_APP_RESP before SEND_APP_BUF", OpSendAppResp, good, CmdErrNotReady, StateIdleResp)
		expectCmdErr(t, "SEND_APP_BUF not line-aligned", OpSendAppBuf, AppRespBase+8, CmdErrBadArg, StateIdleResp)
		expectCmdErr(t, "SEND_APP_RESP after a refused SEND_APP_BUF", OpSendAppResp, good, CmdErrNotReady, StateIdleResp)
		expectCmdErr(t, "SEND_APP_BUF", OpSendAppBuf, AppRespBase, CmdErrNone, StateIdleResp)
		expectCmdErr(t, "SEND_APP_RESP below the header line", OpSendAppResp, AppRespPayload(golden.RespHeaderSize-1, LineSize, false), CmdErrBadArg, StateIdleResp)
		expectCmdErr(t, "SEND_APP_RESP of 0 bytes", OpSendAppResp, 0, CmdErrBadArg, StateIdleResp)
		expectCmdErr(t, "SEND_APP_RESP above the image's limit", OpSendAppResp, AppRespPayload(golden.RespImageMax+1, LineSize, false), CmdErrBadArg, StateIdleResp)
		dut.Mem.Writable = Region{"Net.Resp", NetRespBase, LineSize}
		mustCommand(t, OpSendAppResp, good)
		s, err = dut.Poll(200)
		if err != nil || golden.Code(s.Result()) != golden.CodeRespOK || s.Detail() != golden.ReplySize {
			t.Fatalf("reply: status %#x, err %v", uint64(s), err)
		}
		if got, want := dut.Mem.Read(NetRespBase, 16), golden.SetReply(77); string(got) != string(want[:]) {
			t.Errorf("reply % x, want % x", got, want)
		}
		if s := mustStatus(t); s.State() != StateIdleRecv {
			t.Errorf("after the reply the FSM is in %s, want IDLE_RECV", StateNames[s.State()])
		}
	})
}

func TestCommandsWhileBusy(t *testing.T) {
	on(t, func(t *T) {
		freshEngine(t)
		withMem(t, MemConfig{Latency: 50}, func() {
			msg := setMsg(5, []byte("busy"), pattern(3000, 1))
			dut.Mem.Write(NetRecvBase, msg)
			dut.Mem.Readable = Region{"Net.Recv", NetRecvBase, uint64(len(msg))}
			dut.Mem.Writable = Region{"App.Recv", AppRecvBase, DefaultCapLines * LineSize}
			before := dut.Mem.Read(AppRecvBase, DefaultCapLines*LineSize)
			mustCommand(t, OpAppReadyFlag, AppReadyPayload(AppRecvBase, DefaultCapLines))
			mustCommand(t, OpSendNetBuf, NetRecvBase)
			mustCommand(t, OpSendNetLen, uint64(len(msg)))
			expectCmdErr(t, "NET_BUF while BUSY", OpSendNetBuf, NetRecvBase+4096, CmdErrWrongState, StateBusy)
			expectCmdErr(t, "NET_LEN while BUSY", OpSendNetLen, 1, CmdErrWrongState, StateBusy)
			expectCmdErr(t, "APP_READY while BUSY", OpAppReadyFlag, AppReadyPayload(0, 100), CmdErrWrongState, StateBusy)
			expectCmdErr(t, "SEND_APP_BUF while BUSY", OpSendAppBuf, 0, CmdErrWrongState, StateBusy)
			expectCmdErr(t, "NET_READY while BUSY", OpNetReadyFlag, 0, CmdErrWrongState, StateBusy)
			expectCmdErr(t, "SEND_APP_RESP while BUSY", OpSendAppResp, 0, CmdErrWrongState, StateBusy)
			// Reprogramming the window is ignored while busy.
			if err := dut.Configure(0, 0); err != nil {
				t.Fatal(err)
			}
			s, err := dut.Poll(dut.Budget(len(msg)))
			if err != nil {
				t.Fatal(err)
			}
			o := Outcome{Status: s, Before: before, Image: dut.Mem.Read(AppRecvBase, DefaultCapLines*LineSize)}
			if v := Score(msg, o); len(v.Diffs) != 1 { // only the reply is missing: it is not run here
				t.Errorf("request disturbed by the rejected commands: %v", v.Diffs)
			}
		})
	})
}

func TestResetMidRequest(t *testing.T) {
	on(t, func(t *T) {
		for _, after := range []int{1, 5, 40, 200} {
			t.Run(fmt.Sprintf("after %d cycles", after), func(t *T) {
				freshEngine(t)
				withMem(t, MemConfig{Latency: 20}, func() {
					msg := setMsg(5, []byte("reset"), pattern(8000, 1))
					dut.Mem.Write(NetRecvBase, msg)
					dut.Mem.Readable = Region{"Net.Recv", NetRecvBase, uint64(len(msg))}
					mustCommand(t, OpAppReadyFlag, AppReadyPayload(AppRecvBase, DefaultCapLines))
					mustCommand(t, OpSendNetBuf, NetRecvBase)
					mustCommand(t, OpSendNetLen, uint64(len(msg)))
					for i := 0; i < after; i++ {
						if err := dut.Step(); err != nil {
							t.Fatal(err)
						}
					}
				})
				freshEngine(t)
				if s := mustStatus(t); s.State() != StateIdleRecv || s.Result() != 0 || s.Ready() {
					t.Errorf("reset %d cycles into a request: status %#x, want IDLE_RECV with no result", after, uint64(s))
				}
				expect(t, "request after reset", setMsg(6, []byte("k"), pattern(100, 2)), RunOptions{Offset: 7})
			})
		}
	})
}

func TestFSMCoverage(t *testing.T) {
	on(t, func(t *T) {
		freshEngine(t)
		saved := dut.Cov
		dut.Cov = NewCoverage()
		defer func() { dut.Cov = saved }()
		withMem(t, MemConfig{Latency: 4}, func() {
			expect(t, "call", setMsg(1, []byte("k"), pattern(300, 1)), RunOptions{Offset: 0})
			expect(t, "error", header("Del", 1, 1).stop(), RunOptions{Offset: 0})
		})
		for _, m := range dut.Cov.Missing() {
			if strings.HasPrefix(m, "state") || strings.HasPrefix(m, "transition") {
				t.Errorf("not reached: %s", m)
			}
		}
	})
}

// TestAppReadyFits: the harness refuses an App.Recv buffer that
// CMD_APP_READY_FLAG would truncate, and takes the largest that fits.
func TestAppReadyFits(t *testing.T) {
	for _, c := range []struct {
		base uint64
		cap  int
		ok   bool
	}{
		{1<<50 - LineSize, 0xFFFF, true},
		{1 << 50, DefaultCapLines, false},
		{AppRecvBase, 0x10000, false},
		{AppRecvBase, -1, false},
	} {
		if err := AppReadyFits(c.base, c.cap); (err == nil) != c.ok {
			t.Errorf("AppReadyFits(%#x, %d) = %v, want ok %v", c.base, c.cap, err, c.ok)
		}
	}
}
