package tb

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"

	"arcalis/golden"
	"arcalis/vectors"
)

// Fault injection (issue 6): the memory model stalls, backpressures,
// reorders and fails loads under a seed, and the engine must still end every
// request with the right status, never hang, never store outside its buffer,
// and take the next request as if nothing had happened.
//
// The LOAD_FAULT rule. docs/abi.md says a load error becomes LOAD_FAULT when
// the parser needs a byte of the faulty line. What it needs follows from the
// reference's result (code and Offset) on the same message:
//
//   - r, the bytes read before the result: everything before the deciding
//     item (Offset), plus the bytes of that item section 5 checks before it
//     can fail: the version word (4) for BAD_VERSION and BAD_MSG_TYPE, the
//     name length (4) or name (3) for a header BAD_LENGTH or UNKNOWN_METHOD,
//     type and id (3) for BAD_TYPE and NESTED_UNSUPPORTED, the length word
//     (4) for a field's BAD_LENGTH, KEY_TOO_LONG and VALUE_TOO_LONG. For OK,
//     r = Offset, the bytes consumed; for TRUNCATED, r = Offset.
//   - w, the bytes a parser may look at to decide: r, except for
//     TRUNCATED, where the parser may read the type byte of a field header
//     that is short of 3 bytes (it must, to see a T_STOP there): w =
//     min(N, r+1). The header's items are read one at a time (docs/abi.md
//     section 5, "Steps"). MSG_TOO_LARGE loads nothing: r = w = 0.
//
// With f the first message byte held by a line answered with an error: f < r
// requires LOAD_FAULT; f >= w requires exactly the reference's result, image
// and reply (lines past w may be loaded, and may fail, without effect);
// r <= f < w accepts either. A LOAD_FAULT request must still end, write the
// header line with result code 0x1A (the only field the ABI defines) and a
// status detail equal to the header's offset field, store only inside
// App.Recv, and leave every key and value byte as the reference leaves it
// after the bytes before f (a key or value body cut by f may have any prefix
// of its bytes before f written); the engine must not wait for a reply.

var faultSeeds = flag.Int("fault-seeds", 400, "requests of TestFaultInjectionSeeds (make faults SEEDS=N)")

// faultClass says which part of the rule a request fell under.
type faultClass int

const (
	faultClean   faultClass = iota // no faulted line held a byte before w: the reference's result
	faultMust                      // a faulted line held a byte before r: LOAD_FAULT
	faultMayHit                    // first faulted byte in [r, w), and the RTL said LOAD_FAULT
	faultMayMiss                   // first faulted byte in [r, w), and the RTL gave the reference's result
)

var faultClassNames = [...]string{"clean", "LOAD_FAULT required", "in window: LOAD_FAULT", "in window: reference result"}

func (c faultClass) String() string { return faultClassNames[c] }

// readWindow returns r and w of the rule for the reference's result on a
// message of n bytes.
func readWindow(ref golden.Result, n int) (r, w int) {
	c := int(ref.Offset)
	switch ref.Code {
	case golden.CodeOK:
		return c, c
	case golden.CodeMsgTooLarge:
		return 0, 0
	case golden.CodeTruncated:
		return c, min(n, c+1)
	case golden.CodeBadVersion, golden.CodeBadMsgType:
		return 4, 4
	case golden.CodeBadType, golden.CodeNestedUnsupported:
		return c + 3, c + 3
	}
	if c < 15 { // header BAD_LENGTH or UNKNOWN_METHOD at 4 or 8
		if c == 4 {
			return 8, 8
		}
		return 11, 11
	}
	return c + 4, c + 4 // a field's BAD_LENGTH, KEY_TOO_LONG, VALUE_TOO_LONG
}

// firstFaulted returns the first message byte held by a faulted line, or n.
func firstFaulted(lines []uint64, start uint64, n int) int {
	f := n
	for _, l := range lines {
		if l+LineSize <= start || l >= start+uint64(n) {
			continue
		}
		if l <= start {
			return 0
		}
		f = min(f, int(l-start))
	}
	return f
}

// checkFaulted applies the rule to a request whose loads of the given lines
// were answered with an error, and returns the class it fell under.
func checkFaulted(t *T, name string, req Request, o Outcome, faulted []uint64) faultClass {
	t.Helper()
	msg, n := req.Msg, len(req.Msg)
	ref := golden.Deserialize(msg, bytes.Clone(o.Before))
	r, w := readWindow(ref, n)
	f := firstFaulted(faulted, uint64(NetRecvBase+req.Offset), n)
	got := golden.Code(o.Status.Result())
	where := fmt.Sprintf("%s (offset %d, %d bytes, reference %s at %d, first faulted byte %d, r %d, w %d)",
		name, req.Offset, n, ref.Code, ref.Offset, f, r, w)

	if got != golden.CodeLoadFault {
		if f < r {
			t.Errorf("%s: result %s, want LOAD_FAULT: a faulted line holds a byte read before the result", where, got)
			return faultMust
		}
		if v := Score(msg, o); !v.Match {
			t.Errorf("%s: result %s, and RTL and reference disagree:", where, got)
			for _, d := range v.Diffs {
				t.Errorf("  %s", d)
			}
		}
		if f < w {
			return faultMayMiss
		}
		return faultClean
	}

	if f >= w {
		t.Errorf("%s: LOAD_FAULT, but no faulted line holds a byte the parser needs", where)
	}
	for _, v := range o.Violations {
		t.Errorf("%s: %s", where, v)
	}
	if len(o.Image) < golden.HeaderSize {
		t.Fatalf("%s: no App.Recv image", where)
	}
	if o.Image[28] != byte(golden.CodeLoadFault) {
		t.Errorf("%s: header result byte %#02x, want 0x1a", where, o.Image[28])
	}
	if hdr := uint32(o.Image[32]) | uint32(o.Image[33])<<8 | uint32(o.Image[34])<<16 | uint32(o.Image[35])<<24; hdr != o.Status.Detail() {
		t.Errorf("%s: status detail %d, header offset field %d", where, o.Status.Detail(), hdr)
	}
	if o.Status.CmdErr() != CmdErrNone {
		t.Errorf("%s: status reports command error %d", where, o.Status.CmdErr())
	}
	if o.Replied {
		t.Errorf("%s: the engine waited for a reply after LOAD_FAULT", where)
	}

	// Key and value bytes: as the reference leaves them after msg[:f], but
	// for a prefix of a body that f cuts.
	want := bytes.Clone(o.Before)
	golden.Deserialize(msg[:min(f, n)], want)
	cutDst, cutLo, cutLen := -1, 0, 0
	for _, fl := range Fields(msg, len(o.Before)-golden.ValueOffset) {
		lo := fl.Pos + 7
		if fl.Type == 11 && fl.Len >= 0 && lo <= f && f < lo+fl.Len && (fl.ID == 2 || fl.ID == 3 && string(msg[8:11]) == "Set") {
			cutDst, cutLo, cutLen = golden.KeyOffset, lo, f-lo
			if fl.ID == 3 {
				cutDst = golden.ValueOffset
			}
		}
	}
	bad := 0
	for i := golden.HeaderSize; i < len(o.Image); i++ {
		if o.Image[i] == want[i] {
			continue
		}
		if i >= cutDst && i < cutDst+cutLen && o.Image[i] == msg[cutLo+i-cutDst] {
			continue
		}
		if bad < 8 {
			t.Errorf("%s: LOAD_FAULT image App.Recv[%d] (%s) = %#02x, want %#02x", where, i, place(i), o.Image[i], want[i])
		}
		bad++
	}
	if f < r {
		return faultMust
	}
	return faultMayHit
}

// runFaulty runs req with the memory behaving as cfg (reseeded from
// cfg.Seed) and App.Recv filled with Filler, checks it by the rule, and
// returns its class. A hang fails the test after restarting the engine.
func runFaulty(t *T, name string, req Request, cfg MemConfig) (Outcome, faultClass) {
	t.Helper()
	var o Outcome
	var class faultClass
	withMem(t, cfg, func() {
		capLines := req.CapLines
		if capLines == 0 {
			capLines = DefaultCapLines
		}
		dut.Mem.Fill(AppRecvBase, capLines*LineSize, Filler)
		dut.Mem.Reseed(cfg.Seed)
		dut.Cov.Message(req.Msg, req.Offset, capLines*LineSize-golden.ValueOffset)
		n0 := len(dut.Mem.Faulted)
		var err error
		o, err = dut.Receive(req)
		if err != nil {
			rerr := dut.Restart()
			t.Fatalf("%s (offset %d, %d bytes, memory %+v): %v (violations %v; restart: %v)",
				name, req.Offset, len(req.Msg), cfg, err, o.Violations, rerr)
		}
		class = checkFaulted(t, name, req, o, dut.Mem.Faulted[n0:])
	})
	return o, class
}

// afterFault checks that the engine takes a clean request normally.
func afterFault(t *T, name string, i int) {
	t.Helper()
	expect(t, "clean request after "+name, setMsg(uint32(i), []byte("after-fault"), pattern(150+i%90, byte(i))),
		RunOptions{Offset: (i * 7) % LineSize})
}

// faultMessages are messages whose every result kind meets faults on every
// line: a long value, many small fields, errors in the header and in the
// fields, truncations, and trailing bytes after the STOP.
func faultMessages() []struct {
	name string
	msg  []byte
} {
	many := header("Set", 1, 4)
	for i := 0; i < 12; i++ {
		many = many.i32(int16(10+i), uint32(i)).bin(2, pattern(i*9, byte(i))).field(16, 7, pattern(16, 1)...)
	}
	return []struct {
		name string
		msg  []byte
	}{
		{"3000-byte value", setMsg(1, pattern(40, 1), pattern(3000, 2))},
		{"many small fields", many.bin(3, pattern(77, 5)).stop()},
		{"oneway", append(wire{0x80, 0x01, 0x00, 0x04}, setMsg(2, []byte("k"), pattern(200, 3))[4:]...)},
		{"get", header("Get", 1, 5).i64(1, 2).bin(2, pattern(100, 1)).stop()},
		{"bad version", append(wire{0x80, 0x02}, setMsg(3, nil, pattern(300, 1))[2:]...)},
		{"bad message type", header("Set", 2, 6).bin(3, pattern(200, 1)).stop()},
		{"unknown method", header("Del", 1, 6).bin(3, pattern(200, 1)).stop()},
		{"negative name length", append(wire{0x80, 1, 0, 1, 0xFF, 0xFF, 0xFF, 0xF0}, pattern(200, 1)...)},
		{"truncated value body", setMsg(7, []byte("key"), pattern(400, 9))[:300]},
		{"truncated i64", header("Set", 1, 8).bin(3, pattern(130, 1)).field(10, 1, 1, 2, 3)},
		{"truncated field header", header("Set", 1, 8).bin(3, pattern(130, 1)).field(8, 4)[:15+7+130+2]},
		{"nested after a value", header("Set", 1, 9).bin(3, pattern(140, 1)).field(12, 9, 0).stop()},
		{"bad type after a key", header("Set", 1, 9).bin(2, pattern(120, 1)).field(9, 2, 0, 0).stop()},
		{"key too long", header("Set", 1, 9).bin(3, pattern(90, 1)).bin(2, pattern(300, 1)).stop()},
		{"negative value length", header("Set", 1, 9).bin(2, pattern(90, 1)).field(11, 3, 0xFF, 0, 0, 0).stop()},
		{"bytes after the STOP", append(setMsg(10, []byte("k"), pattern(60, 1)), pattern(400, 7)...)},
	}
}

// TestFaultEveryLine fails each line of each message in turn, at start
// offsets that put item boundaries on every side of a line boundary.
func TestFaultEveryLine(t *testing.T) {
	on(t, func(t *T) {
		if err := dut.Restart(); err != nil {
			t.Fatal(err)
		}
		classes := map[faultClass]int{}
		// 40 puts the truncated field header of "truncated field header"
		// (at byte 152) at the start of a line, 37 the truncated i64 value
		// of "truncated i64" (at 155): both sides of the TRUNCATED window.
		offsets := []int{0, 1, 37, 40, 50, 55, 63}
		lines := func(off int, msg []byte) int {
			start := uint64(NetRecvBase + off)
			return int((start+uint64(len(msg))+LineSize-1)/LineSize - start/LineSize)
		}
		i, ran, requests := 0, 0, 0
		msgs := faultMessages()
		for _, m := range msgs {
			first := i // each request's number (the clean request's seed) whichever cases run
			for _, off := range offsets {
				i += lines(off, m.msg)
			}
			ok := t.Run(m.name, func(t *T) {
				ran++
				i := first
				for _, off := range offsets {
					nlines := lines(off, m.msg)
					for k := 0; k < nlines; k++ {
						bad := uint64(NetRecvBase+off)&^(LineSize-1) + uint64(k)*LineSize
						cfg := MemConfig{Latency: 3, FaultLine: func(a uint64) bool { return a == bad }}
						name := fmt.Sprintf("%s, line %d of %d faulted", m.name, k, nlines)
						_, c := runFaulty(t, name, Request{Msg: m.msg, Offset: off, CapLines: 64}, cfg)
						classes[c]++
						if c != faultClean {
							afterFault(t, name, i)
						}
						i++
						requests++
					}
				}
			})
			if !ok {
				restartAfterFailure(t)
			}
		}
		t.Logf("%d faulted requests: %v", requests, classes)
		if ran == len(msgs) && (classes[faultMust] == 0 || classes[faultClean] == 0 || classes[faultMayHit] == 0 || classes[faultMayMiss] == 0) {
			t.Errorf("the cases do not reach every part of the rule: %v", classes)
		}
	})
}

// randomMem draws a memory behaviour: latency, stalls, backpressure,
// reordering and load faults, each often off.
func randomMem(rng *rand.Rand, seed int64, faults bool) MemConfig {
	cfg := MemConfig{Latency: rng.IntN(12), Reorder: rng.IntN(2) == 0, Seed: seed}
	if rng.IntN(3) > 0 {
		cfg.MaxStall = rng.IntN(40)
	}
	cfg.Backpressure = []float64{0, 0, 0.3, 0.6}[rng.IntN(4)]
	if faults {
		cfg.LoadFault = []float64{0, 0.02, 0.1, 0.3}[rng.IntN(4)]
	}
	return cfg
}

// TestFaultInjectionSeeds runs the default vectors and generated messages
// under random memory behaviour, one seed per request, each followed by a
// clean request.
func TestFaultInjectionSeeds(t *testing.T) {
	on(t, func(t *T) {
		recs, err := vectors.ReadFile("../vectors/default.vec")
		if err != nil {
			t.Fatal(err)
		}
		if err := dut.Restart(); err != nil {
			t.Fatal(err)
		}
		classes := map[faultClass]int{}
		results := map[golden.Code]int{}
		ran := 0
		for s := 0; s < *faultSeeds; s++ {
			if !t.Run(fmt.Sprintf("seed %d", s), func(t *T) { ran++; faultSeed(t, s, recs, classes, results) }) {
				restartAfterFailure(t)
			}
		}
		t.Logf("%d seeds: %v; results %v", ran, classes, results)
		if ran == *faultSeeds && *faultSeeds >= 200 && (classes[faultMust] == 0 || classes[faultClean] == 0 || results[golden.CodeLoadFault] == 0) {
			t.Errorf("the seeds do not reach every part of the rule: %v", classes)
		}
	})
}

// faultSeed is TestFaultInjectionSeeds's request s and the clean request
// after it; it counts the request's fault class and result.
func faultSeed(t *T, s int, recs []vectors.Record, classes map[faultClass]int, results map[golden.Code]int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(s), 6))
	capLines := 5 + rng.IntN(40)
	var msg []byte
	name := fmt.Sprintf("seed %d", s)
	if rng.IntN(2) == 0 {
		rec := recs[rng.IntN(len(recs))]
		msg, capLines = rec.Msg, DefaultCapLines
		name += fmt.Sprintf(" (default vector %d: %s)", rec.Index, rec.Source)
	} else {
		msg = genMessage(randomRecipe(rng), capLines*LineSize-golden.ValueOffset)
		name += " (generated)"
	}
	cfg := randomMem(rng, int64(s), true)
	req := Request{Msg: msg, Offset: rng.IntN(LineSize), CapLines: capLines}
	o, c := runFaulty(t, name, req, cfg)
	classes[c]++
	results[golden.Code(o.Status.Result())]++
	cfg.LoadFault = 0
	withMem(t, cfg, func() { afterFault(t, name, s) })
}

// randomRecipe is a recipe for genMessage (fuzz_test.go).
func randomRecipe(rng *rand.Rand) []byte {
	b := make([]byte, 8+rng.IntN(120))
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// expectCmd issues a UC store of a command word and checks, with the status
// load after it, the command error it latched (docs/abi.md section 2).
func expectCmd(t *T, what string, op uint8, payload uint64, want uint8) Status {
	t.Helper()
	hit, _, err := dut.UC(true, WindowBase+uint64(op)*8, Command(op, payload))
	if err != nil || !hit {
		t.Fatalf("%s: command store hit %v, %v", what, hit, err)
	}
	dut.Cov.Opcode(op)
	s, err := dut.ReadStatus()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	dut.Cov.CmdErr(s.CmdErr())
	if s.CmdErr() != want {
		t.Errorf("%s in %s: command error %s, want %s", what, StateNames[s.State()], cmdErrNames[s.CmdErr()], cmdErrNames[want])
	}
	return s
}

// outsideWindow makes a UC store or load just outside the window and checks
// that the engine does not claim it.
func outsideWindow(t *T, rng *rand.Rand) {
	t.Helper()
	addr := []uint64{WindowBase - 8, WindowBase - 1, WindowBase + WindowSize, WindowBase + WindowSize + 64, 0}[rng.IntN(5)]
	write := rng.IntN(2) == 0
	hit, word, err := dut.UC(write, addr, Command(uint8(1+rng.IntN(6)), rng.Uint64()>>4))
	if err != nil || hit || word != 0 {
		t.Errorf("UC %s at %#x outside the window: hit %v word %#x err %v, want not claimed", map[bool]string{true: "store", false: "load"}[write], addr, hit, word, err)
	}
}

// TestCommandsInWrongStates runs requests under random memory behaviour and
// load faults, with commands the engine must refuse, and accesses outside
// the window, before, during and after each one: every refused command
// latches its documented error, and the request ends exactly as it would
// without them.
func TestCommandsInWrongStates(t *testing.T) {
	on(t, func(t *T) {
		for s := 0; s < max(60, *faultSeeds/10); s++ {
			t.Run(fmt.Sprintf("seed %d", s), func(t *T) {
				rng := rand.New(rand.NewPCG(uint64(s), 7))
				if err := dut.Restart(); err != nil {
					t.Fatal(err)
				}
				// A ready poll before any command: IDLE_RECV, not ready, nothing latched.
				if st, err := dut.ReadStatus(); err != nil || st != Status(0) {
					t.Fatalf("seed %d: status after reset %#x (%v), want 0", s, uint64(st), err)
				}
				capLines := 5 + rng.IntN(30)
				msg := genMessage(randomRecipe(rng), capLines*LineSize-golden.ValueOffset)
				if rng.IntN(3) == 0 {
					msg = setMsg(uint32(s), pattern(rng.IntN(50), 1), pattern(rng.IntN(capLines*LineSize-golden.ValueOffset+1), 2))
				}
				req := Request{Msg: msg, Offset: rng.IntN(LineSize), CapLines: capLines}
				cfg := randomMem(rng, int64(s), rng.IntN(3) == 0)
				withMem(t, cfg, func() { noisyRequest(t, rng, fmt.Sprintf("seed %d", s), req) })
				cfg.LoadFault = 0
				withMem(t, cfg, func() { afterFault(t, fmt.Sprintf("seed %d", s), s) })
			})
		}
	})
}

// noisyRequest is Receive with refused commands around the request.
func noisyRequest(t *T, rng *rand.Rand, name string, req Request) {
	t.Helper()
	m := dut.Mem
	appSize := req.CapLines * LineSize
	addr := uint64(NetRecvBase + req.Offset)
	m.Fill(NetRecvBase, req.Offset, Filler)
	m.Write(addr, req.Msg)
	end := addr + uint64(len(req.Msg))
	m.Fill(end, int((LineSize-end%LineSize)%LineSize), Filler)
	m.Fill(AppRecvBase, appSize, Filler)
	m.Readable = Region{"Net.Recv", addr, uint64(len(req.Msg))}
	m.Writable = Region{"App.Recv", AppRecvBase, uint64(appSize)}
	m.Violations = nil
	m.Reseed(m.cfg.Seed)
	n0 := len(m.Faulted)
	o := Outcome{Before: m.Read(AppRecvBase, appSize)}
	dut.Cov.Message(req.Msg, req.Offset, appSize-golden.ValueOffset)
	appReady := AppReadyPayload(AppRecvBase, req.CapLines)

	// IDLE_RECV after reset: nothing recorded yet.
	netBuf, app := false, false
	for k := rng.IntN(8); k > 0; k-- {
		switch rng.IntN(9) {
		case 0:
			expectCmd(t, name+": unknown opcode", []uint8{0, 7, 8, 11, 15}[rng.IntN(5)], rng.Uint64()>>4, CmdErrUnknownOpcode)
		case 1:
			expectCmd(t, name+": SEND_APP_RESP", OpSendAppResp, 0, CmdErrWrongState)
		case 2:
			if !(netBuf && app) {
				expectCmd(t, name+": SEND_NET_LEN not ready", OpSendNetLen, uint64(len(req.Msg)), CmdErrNotReady)
			}
		case 3:
			expectCmd(t, name+": APP_READY below 5 lines", OpAppReadyFlag, AppReadyPayload(AppRecvBase+LineSize, rng.IntN(5)), CmdErrBadArg)
		case 4:
			expectCmd(t, name+": NET_READY unaligned", OpNetReadyFlag, NetRespBase+1+uint64(rng.IntN(63)), CmdErrBadArg)
		case 5:
			expectCmd(t, name+": SEND_APP_BUF", OpSendAppBuf, AppRespBase, CmdErrNone)
		case 6:
			expectCmd(t, name+": SEND_NET_BUF", OpSendNetBuf, addr, CmdErrNone)
			netBuf = true
		case 7:
			expectCmd(t, name+": APP_READY", OpAppReadyFlag, appReady, CmdErrNone)
			app = true
		default:
			outsideWindow(t, rng)
		}
	}
	for _, c := range []struct {
		op uint8
		v  uint64
	}{{OpAppReadyFlag, appReady}, {OpSendNetBuf, addr}, {OpSendNetLen, uint64(len(req.Msg))}} {
		if err := dut.Command(c.op, c.v); err != nil {
			t.Fatal(err)
		}
	}

	// BUSY, DRAIN, DONE: every valid command is WRONG_STATE until a status
	// load sees ready; reprogramming the window is ignored.
	budget := dut.Budget(len(req.Msg)) * 2
	for {
		if budget--; budget < 0 {
			rerr := dut.Restart()
			t.Fatalf("%s: hang under noise (restart: %v)", name, rerr)
		}
		var s Status
		switch rng.IntN(8) {
		case 0:
			op := uint8(1 + rng.IntN(6))
			s = expectCmd(t, fmt.Sprintf("%s: opcode %d while busy", name, op), op, rng.Uint64()>>4, CmdErrWrongState)
		case 1:
			s = expectCmd(t, name+": unknown opcode while busy", uint8(7+rng.IntN(9)), 0, CmdErrUnknownOpcode)
		case 2:
			outsideWindow(t, rng)
			continue
		case 3:
			// Ignored while busy; the second one keeps the harness's own
			// record of the window (Restart reprograms it) right.
			if err := dut.Configure(0, 0); err != nil {
				t.Fatal(err)
			}
			if err := dut.Configure(WindowBase, WindowSize); err != nil {
				t.Fatal(err)
			}
			continue
		case 4, 5:
			if err := dut.Step(); err != nil {
				t.Fatal(err)
			}
			continue
		default:
			var err error
			if s, err = dut.ReadStatus(); err != nil {
				t.Fatal(err)
			}
		}
		if s.Ready() {
			o.Status = s &^ (0xFF << 16) // expectCmd checked the command error
			dut.Cov.Result(s.Result())
			break
		}
		if st := s.State(); st != StateBusy && st != StateDrain && st != StateDone {
			t.Fatalf("%s: state %s before ready", name, StateNames[st])
		}
	}
	if !m.Idle() {
		m.violate("ready reported with memory requests still in flight")
	}
	o.Image = m.Read(AppRecvBase, appSize)

	// After ready: IDLE_RESP for a Set CALL that succeeded, else IDLE_RECV.
	next, err := dut.ReadStatus()
	if err != nil {
		t.Fatal(err)
	}
	if next.State() == StateIdleResp {
		for k := rng.IntN(4); k > 0; k-- {
			switch rng.IntN(4) {
			case 0:
				expectCmd(t, name+": SEND_NET_LEN in IDLE_RESP", OpSendNetLen, 1, CmdErrWrongState)
			case 1:
				expectCmd(t, name+": SEND_NET_BUF in IDLE_RESP", OpSendNetBuf, addr, CmdErrWrongState)
			case 2:
				expectCmd(t, name+": unknown opcode in IDLE_RESP", 9, 0, CmdErrUnknownOpcode)
			default:
				outsideWindow(t, rng)
			}
		}
		if err := dut.reply(&o, req); err != nil {
			t.Fatalf("%s: reply: %v", name, err)
		}
	} else if next.State() != StateIdleRecv {
		t.Errorf("%s: after ready the FSM is in %s", name, StateNames[next.State()])
	}
	o.Violations = append(o.Violations, m.Violations...)
	checkFaulted(t, name, req, o, m.Faulted[n0:])
}

// TestResetMidRequestSeeds resets the engine at a random cycle of a request
// under random memory behaviour: it comes back idle, with the window, the
// buffers and the queues cleared, issues no memory request of its own, and
// takes the next request normally.
func TestResetMidRequestSeeds(t *testing.T) {
	on(t, func(t *T) {
		for s := 0; s < max(60, *faultSeeds/10); s++ {
			t.Run(fmt.Sprintf("seed %d", s), func(t *T) {
				rng := rand.New(rand.NewPCG(uint64(s), 8))
				if err := dut.Restart(); err != nil {
					t.Fatal(err)
				}
				cfg := randomMem(rng, int64(s), true)
				msg := setMsg(uint32(s), pattern(rng.IntN(200), 1), pattern(rng.IntN(4000), 2))
				after := rng.IntN(dut.Budget(len(msg)) / 4)
				withMem(t, cfg, func() {
					m := dut.Mem
					m.Write(NetRecvBase, msg)
					m.Readable = Region{"Net.Recv", NetRecvBase, uint64(len(msg))}
					m.Writable = Region{"App.Recv", AppRecvBase, DefaultCapLines * LineSize}
					for _, c := range []struct {
						op uint8
						v  uint64
					}{{OpAppReadyFlag, AppReadyPayload(AppRecvBase, DefaultCapLines)}, {OpSendNetBuf, NetRecvBase}, {OpSendNetLen, uint64(len(msg))}} {
						if err := dut.Command(c.op, c.v); err != nil {
							t.Fatal(err)
						}
					}
					for i := 0; i < after; i++ {
						if err := dut.Step(); err != nil {
							t.Fatal(err)
						}
					}
					if err := dut.Reset(); err != nil {
						t.Fatal(err)
					}
					// The window is cleared: the status load is not claimed.
					if hit, _, err := dut.UC(false, WindowBase, 0); err != nil || hit {
						t.Errorf("seed %d, reset after %d cycles: status load claimed before the window is programmed (%v)", s, after, err)
					}
					if err := dut.Configure(WindowBase, WindowSize); err != nil {
						t.Fatal(err)
					}
					loads, stores := m.LoadCount, m.StoreCount
					for i := 0; i < 64; i++ {
						if err := dut.Step(); err != nil {
							t.Fatal(err)
						}
					}
					if m.LoadCount != loads || m.StoreCount != stores {
						t.Errorf("seed %d, reset after %d cycles: %d loads and %d stores issued after the reset", s, after, m.LoadCount-loads, m.StoreCount-stores)
					}
					if st, err := dut.ReadStatus(); err != nil || st != Status(0) {
						t.Errorf("seed %d, reset after %d cycles: status %#x (%v), want 0 (IDLE_RECV, no result)", s, after, uint64(st), err)
					}
					// The buffers are cleared: NET_LEN is not ready, there is nothing to reply to.
					expectCmd(t, "SEND_NET_LEN after reset", OpSendNetLen, uint64(len(msg)), CmdErrNotReady)
					expectCmd(t, "SEND_APP_RESP after reset", OpSendAppResp, 0, CmdErrWrongState)
				})
				cfg.LoadFault = 0
				withMem(t, cfg, func() { afterFault(t, fmt.Sprintf("reset, seed %d", s), s) })
			})
		}
	})
}

// TestLoadHeldThroughDrain is the regression case of a bug the fault
// injection found (TestCommandsInWrongStates, seed 521 of 20000): a request
// that ends while a load request is offered and not yet taken. The load
// queue keeps the request offered (a valid/ready handshake may not be
// withdrawn), but DRAIN counts only the loads already taken, so the engine
// reported ready with that load still to go; the memory took it afterwards
// and its answer, a line of the old message, landed in the next request's
// reorder buffer. Here a ONEWAY Set whose STOP is byte 15 is followed by 600
// bytes; the load port takes its first line, then is held while the request
// ends and drains. The next request meets the late answer: its own second
// load is held too, so the old line reaches its reorder slot first.
func TestLoadHeldThroughDrain(t *testing.T) {
	on(t, func(t *T) {
		if err := dut.Restart(); err != nil {
			t.Fatal(err)
		}
		m := dut.Mem
		withMem(t, MemConfig{Latency: 3}, func() {
			first := append(header("Set", 4, 1).stop(), bytes.Repeat([]byte{0xEE}, 600)...)
			o := heldRequest(t, first, 60, 20) // the late load's answer comes back during the next request
			if !m.Idle() {
				t.Errorf("ready reported with %d memory requests in flight (a load offered before DRAIN, taken after it)", m.inflight)
			}
			if v := Score(first, o); !v.Match {
				t.Errorf("first request: %v", v.Diffs)
			}
			second := append(wire{0x80, 0x01, 0x00, 0x04}, setMsg(2, []byte("second"), pattern(400, 3))[4:]...) // ONEWAY
			if v := Score(second, heldRequest(t, second, 40, 3)); !v.Match {
				t.Errorf("the request after it: %v", v.Diffs)
			}
		})
	})
}

// heldRequest runs msg at start offset 8 with a 33-line App.Recv, holds the
// load port for hold cycles once it has taken the first line, then lets it
// go with the memory's latency set to latency, and returns what the AppCore
// sees when ready. msg must not be a Set CALL (no reply is run).
func heldRequest(t *T, msg []byte, hold, latency int) Outcome {
	t.Helper()
	m := dut.Mem
	const capLines = 33
	addr := uint64(NetRecvBase + 8)
	m.Fill(NetRecvBase, 8, Filler)
	m.Write(addr, msg)
	m.Readable = Region{"Net.Recv", addr, uint64(len(msg))}
	m.Writable = Region{"App.Recv", AppRecvBase, capLines * LineSize}
	m.Fill(AppRecvBase, capLines*LineSize, Filler)
	o := Outcome{Before: m.Read(AppRecvBase, capLines*LineSize)}
	for _, c := range []struct {
		op uint8
		v  uint64
	}{{OpAppReadyFlag, AppReadyPayload(AppRecvBase, capLines)}, {OpSendNetBuf, addr}, {OpSendNetLen, uint64(len(msg))}} {
		if err := dut.Command(c.op, c.v); err != nil {
			t.Fatal(err)
		}
	}
	loads := m.LoadCount
	for i := 0; m.LoadCount == loads; i++ {
		if i == 100 {
			t.Fatal("no load in 100 cycles")
		}
		if err := dut.Step(); err != nil {
			t.Fatal(err)
		}
	}
	m.cfg.HoldLoads = true
	for i := 0; i < hold; i++ {
		if err := dut.Step(); err != nil {
			t.Fatal(err)
		}
	}
	m.cfg.HoldLoads, m.cfg.Latency = false, latency
	s, err := dut.Poll(dut.Budget(len(msg)))
	if err != nil {
		t.Fatal(err)
	}
	o.Status, o.Image = s, m.Read(AppRecvBase, capLines*LineSize)
	if _, err := dut.ReadStatus(); err != nil { // ONEWAY or error: back to IDLE_RECV
		t.Fatal(err)
	}
	return o
}
