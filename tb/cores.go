package tb

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/fnv"

	"arcalis/golden"
)

// The simulated address space.
const (
	WindowBase  = 0xF000_0000 // command page, programmed by the "driver"
	WindowSize  = 0x1000
	NetRecvBase = 0x0010_0000
	AppRecvBase = 0x0400_0000
	NetRespBase = 0x0800_0000
	AppRespBase = 0x0900_0000

	// DefaultCapLines holds a 64 KiB value: 320 header and key bytes + 65,536.
	DefaultCapLines = 1030
	// Filler marks bytes nobody wrote, around the message and in the buffers.
	Filler = 0xA5
)

// TightCapLines is the smallest App.Recv that holds any value a message of n
// bytes can carry (its value is shorter than the message): the AppCore's
// default offer. A tight buffer gives no result that a 64 KiB one would not,
// and every byte past it that the engine touched would be a violation.
func TightCapLines(n int) int {
	lines := (320 + n + LineSize - 1) / LineSize
	return min(max(lines, 5), 0xFFFF)
}

// Application is the AppCore's business logic: given the App.Recv image of a
// CALL the engine deserialized (a Set or a Get, result OK), it returns the
// App.Resp image the TxEngine answers from (golden.BuildAppResp), whose
// length is the App.Resp length given with CMD_SEND_APP_RESP.
type Application func(appRecv []byte) (appResp []byte)

// Request is one message for the NetCore to hand to the engine.
type Request struct {
	Msg      []byte
	Offset   int         // start offset of the message within its line, 0..63
	CapLines int         // App.Recv capacity in lines (0: TightCapLines)
	App      Application // answers the CALLs the engine deserializes (nil: DefaultApp)
	Framed   bool        // the request came framed: so does its reply
	RespCap  int         // the Net.Resp buffer's capacity in bytes (0: AppRespCapMax)
	// Net.Recv's and App.Recv's line-aligned bases (0: NetRecvBase,
	// AppRecvBase): a test puts a message or a value across a 16 MiB
	// line-address boundary, where the engines' line counters carry into
	// their high parts.
	NetBase, AppBase uint64
}

// Outcome is everything the testbench observed for one request.
type Outcome struct {
	Status Status // the status word that reported ready
	// App.Recv before the request and after it, and the Net.Resp line
	// after the reply, in buffers the testbench uses again: do not modify
	// them, and copy them to keep them past the end of the next request
	// (Image is the next request's Before).
	Before, Image []byte
	Replied       bool // the engine waited in IDLE_RESP and the reply was run
	// The App.Resp image the application gave, the request's framing and
	// the Net.Resp capacity: what the reference answers from.
	AppResp []byte
	Framed  bool
	RespCap int
	// RespFaulted: a load of an App.Resp line the reply needs (the header
	// line, and the data's lines when the reference writes a reply with
	// data) was answered with an error: the reply must end RESP_LOAD_FAULT.
	RespFaulted bool
	// Net.Resp after the reply: the reply, then a line of filler (the
	// bytes past the reply that the check for stray writes reads).
	Reply       []byte
	ReplyStatus Status
	Cycles      uint64 // from the CMD_SEND_NET_LEN edge to the edge whose status load saw ready
	Violations  []string
}

// WrittenReply is the reply the TxEngine wrote to Net.Resp, its length the
// reply status's detail; nil if the engine did not reply, or not RESP_OK.
func (o *Outcome) WrittenReply() []byte {
	if !o.Replied || golden.Code(o.ReplyStatus.Result()) != golden.CodeRespOK || int(o.ReplyStatus.Detail()) > len(o.Reply) {
		return nil
	}
	return o.Reply[:o.ReplyStatus.Detail()]
}

// Command issues a UC store of a command word into the window.
func (a *Accel) Command(op uint8, payload uint64) error {
	return a.commands(command{op, payload})
}

// command is one command word: an opcode and its payload.
type command struct {
	op      uint8
	payload uint64
}

// commands issues command words back to back, each a store cycle and a
// response cycle.
func (a *Accel) commands(cmds ...command) error {
	var buf [3]ucAccess // ucRun copies them: on the stack for the usual three
	r, err := a.ucRun(0, appendCommands(buf[:0], cmds)...)
	if err != nil {
		return err
	}
	return a.claimed(cmds, r)
}

// appendCommands appends the UC stores of cmds' command words to accs.
func appendCommands(accs []ucAccess, cmds []command) []ucAccess {
	for _, c := range cmds {
		accs = append(accs, ucAccess{true, WindowBase, Command(c.op, c.payload)})
	}
	return accs
}

// pollScript makes the script cmds' stores, then a status load every cycle,
// and returns the cycles before the loads (commandsThenPoll).
func (a *Accel) pollScript(cmds []command) int {
	sc := &a.script
	sc.lead, sc.accs, sc.poll, sc.responses, sc.base = 0, appendCommands(sc.accs[:0], cmds), true, sc.responses[:0], 0
	return 2 * len(cmds)
}

// scriptClaimed checks that the script's commands, cmds, were answered
// and claimed (claimed).
func (a *Accel) scriptClaimed(cmds []command) error {
	r, err := a.script.checked()
	if err == nil && len(r) == len(cmds) {
		err = a.claimed(cmds, r)
	}
	return err
}

// claimed checks that the engine claimed each command and counts them.
func (a *Accel) claimed(cmds []command, r []ucResponse) error {
	for i, c := range cmds {
		if !r[i].hit {
			return fmt.Errorf("command %d: UC store inside the window was not claimed", c.op)
		}
		a.Cov.Opcode(c.op)
	}
	return nil
}

// commandsThenPoll calls first, if not nil, then issues cmds and polls
// like poll, and returns the edge that took the last command with the
// status.
func (a *Accel) commandsThenPoll(budget int, first func(), cmds ...command) (start uint64, s Status, err error) {
	if first != nil {
		first()
	}
	if err := a.commands(cmds...); err != nil {
		return 0, 0, err
	}
	start = a.cycle - 1
	s, err = a.poll(budget, 0)
	return start, s, err
}

// exchange is a request's UC traffic: first (see commandsThenPoll), the
// commands, a status load every cycle until one reports ready (within
// budget cycles), then atReady with the edge that took the last command
// and the ready status, then lead idle cycles and accesses as ucRun runs
// them, whose responses it returns. With the line memory it is one call
// (exchangeLineMem); otherwise commandsThenPoll, atReady and ucRun.
func (a *Accel) exchange(budget int, first func(), atReady func(start uint64, s Status), cmds []command, lead int, accs ...ucAccess) ([]ucResponse, error) {
	if a.lineMemOK() {
		return a.exchangeLineMem(budget, first, atReady, cmds, lead, accs)
	}
	start, s, err := a.commandsThenPoll(budget, first, cmds...)
	if err != nil {
		return nil, err
	}
	atReady(start, s)
	return a.ucRun(lead, accs...)
}

// ReadStatus issues one UC load of the status word.
func (a *Accel) ReadStatus() (Status, error) { return a.readStatus(0) }

// readStatus is ReadStatus after lead idle cycles.
func (a *Accel) readStatus(lead int) (Status, error) {
	r, err := a.ucRun(lead, statusLoad)
	if err != nil {
		return 0, err
	}
	return a.loadedStatus(r[0])
}

// statusLoad is a UC load of the status word.
var statusLoad = ucAccess{addr: WindowBase}

// loadedStatus checks the response to a status load and counts its
// command error.
func (a *Accel) loadedStatus(r ucResponse) (Status, error) {
	if !r.hit {
		return 0, fmt.Errorf("status load inside the window was not claimed")
	}
	a.Cov.CmdErr(Status(r.data).CmdErr())
	return Status(r.data), nil
}

// Poll is the AppCore's wait: a status load every cycle until one reports
// ready or budget cycles pass (a hang).
func (a *Accel) Poll(budget int) (Status, error) {
	s, err := a.poll(budget, 0)
	if err != nil {
		return 0, err
	}
	// One more load was taken at the edge that answered; let its answer go by.
	if err := a.step(); err != nil {
		return 0, err
	}
	a.flushCov()
	return s, nil
}

// poll is Poll up to the edge whose status load saw ready: the load taken
// at that edge is still to be answered, in the next cycle. The first spent
// cycles of the budget have already polled (commandsThenPoll).
func (a *Accel) poll(budget, spent int) (Status, error) {
	a.in.ucValid.Set(1)
	a.in.ucWrite.Set(0)
	a.in.ucAddr.Set(WindowBase)
	defer a.in.ucValid.Set(0)
	defer a.flushCov()
	for {
		if spent > 0 && a.uc.valid && Status(a.uc.data).Ready() {
			s := Status(a.uc.data)
			a.Cov.Result(s.Result())
			return s, nil
		}
		if spent >= budget {
			return 0, fmt.Errorf("hang: no ready status within %d cycles (FSM in %s)", budget, StateNames[a.out.state.U64()])
		}
		n, err := a.advance(budget-spent, true)
		if err != nil {
			return 0, err
		}
		spent += n
	}
}

// Budget is the cycle allowance for a request of n bytes: generous, so that
// only a hang exhausts it. Besides the line loads it allows 6 cycles per
// byte for the parser's steps: an item costs 5 (docs/abi.md section 10)
// and takes at least a byte (a bool field is 4 bytes and two items), so a
// message of nothing but small fields is bound by its items, not its
// lines.
func (a *Accel) Budget(n int) int {
	lines := n/LineSize + 2
	per := 4 + a.Mem.cfg.Latency + a.Mem.cfg.MaxStall
	return 2000 + 4*lines*per + 6*n
}

// Receive runs one request through the whole receive path: the NetCore
// places it and issues the commands, the AppCore polls and reads App.Recv,
// and a successful Set CALL is answered through the TxEngine.
func (a *Accel) Receive(req Request) (Outcome, error) {
	var o Outcome
	capLines := req.CapLines
	if capLines == 0 {
		capLines = TightCapLines(len(req.Msg))
	}
	m := a.Mem
	appSize := capLines * LineSize
	netBase, appBase := cmp.Or(req.NetBase, NetRecvBase), cmp.Or(req.AppBase, AppRecvBase)
	if netBase%LineSize != 0 || appBase%LineSize != 0 {
		return o, fmt.Errorf("tb: Net.Recv base %#x and App.Recv base %#x must be line-aligned", netBase, appBase)
	}
	if err := AppReadyFits(appBase, capLines); err != nil {
		return o, err // refused, not truncated
	}
	addr := netBase + uint64(req.Offset)
	// NetCore: the message lands in Net.Recv, filler around it. Nothing
	// here is needed until the engine's first load is taken, some cycles
	// after its commands: through the pipe, it runs while they do.
	place := func() {
		m.Violations = nil
		m.Fill(netBase, req.Offset, Filler)
		m.Write(addr, req.Msg)
		end := addr + uint64(len(req.Msg))
		m.Fill(end, int((LineSize-end%LineSize)%LineSize), Filler)
		m.Readable = Region{"Net.Recv", addr, uint64(len(req.Msg))}
		m.Writable = Region{"App.Recv", appBase, uint64(appSize)}
		o.Before = m.snapshot(appBase, appSize)
		a.Cov.Offset(req.Offset)
		a.Cov.Message(req.Msg, req.Offset, appSize-golden.ValueOffset)
	}

	// AppCore offers its buffer; NetCore hands over the message, and reads
	// App.Recv at the ready status. A Set CALL that succeeded then waits in
	// IDLE_RESP for its reply: the status read after it waits a cycle for
	// the last poll's answer to go by.
	atReady := func(start uint64, s Status) {
		o.Status = s
		o.Cycles = a.cycle - 1 - start
		if !m.Idle() {
			m.violate("ready reported with memory requests still in flight")
		}
		o.Image = m.snapshot(appBase, appSize)
	}
	cmds := [...]command{{OpAppReadyFlag, AppReadyPayload(appBase, capLines)}, {OpSendNetBuf, addr}, {OpSendNetLen, uint64(len(req.Msg))}}
	r, err := a.exchange(a.Budget(len(req.Msg)), place, atReady, cmds[:], 1, statusLoad)
	if err != nil {
		o.Violations = append(o.Violations, m.Violations...)
		return o, err
	}
	next, err := a.loadedStatus(r[0])
	if err != nil {
		return o, err
	}
	if next.State() == StateIdleResp {
		if err := a.reply(&o, req); err != nil {
			return o, err
		}
	} else if next.State() != StateIdleRecv {
		m.violate("after ready the FSM is in %s, want IDLE_RECV or IDLE_RESP", StateNames[next.State()])
	}
	o.Violations = append(o.Violations, m.Violations...)
	return o, nil
}

// reply is the AppCore finishing the business logic: the application's
// App.Resp image goes to App.Resp, and the TxEngine is asked for the reply;
// the NetCore polls for it and reads Net.Resp.
func (a *Accel) reply(o *Outcome, req Request) error {
	m := a.Mem
	app := req.App
	if app == nil {
		app = DefaultApp
	}
	o.AppResp, o.Framed, o.RespCap = app(o.Image), req.Framed, cmp.Or(req.RespCap, AppRespCapMax)
	if err := golden.CheckAppRespLen(len(o.AppResp)); err != nil {
		return fmt.Errorf("tb: the application's App.Resp image: %w", err)
	}
	// Filler over what the reply should take and a line past it: a stray
	// write there shows.
	want := 0
	if len(o.AppResp) > golden.RespMethodOffset {
		if n, res := golden.ReplyLen(golden.ReplyRequest{Framed: req.Framed, Method: o.AppResp[golden.RespMethodOffset]}, o.AppResp); res.Code == golden.CodeRespOK {
			want = n
		}
	}
	span := min(o.RespCap, want+LineSize)
	faulted := len(m.Faulted)
	m.Write(AppRespBase, o.AppResp)
	m.Fill(NetRespBase, span, Filler)
	m.Writable = Region{"Net.Resp", NetRespBase, uint64(o.RespCap)}
	m.Readable = Region{"App.Resp", AppRespBase, uint64(len(o.AppResp))}
	var s Status
	cmds := [...]command{{OpNetReadyFlag, NetRespBase}, {OpSendAppBuf, AppRespBase},
		{OpSendAppResp, AppRespPayload(len(o.AppResp), o.RespCap, req.Framed)}}
	if _, err := a.exchange(a.Budget(len(o.AppResp)), nil, func(_ uint64, st Status) { s = st }, cmds[:], 1); err != nil {
		return err
	}
	o.Replied, o.ReplyStatus = true, s
	// Two buffers in turn, like the images (see Outcome): a Read per
	// reply was the harness's one allocation per request.
	n := span
	if golden.Code(s.Result()) == golden.CodeRespOK {
		n = max(n, min(int(s.Detail()), o.RespCap))
	}
	buf := &a.replies[a.nextReply]
	if cap(*buf) < n {
		*buf = make([]byte, n)
	}
	o.Reply = (*buf)[:n]
	a.nextReply ^= 1
	m.readInto(o.Reply, NetRespBase)
	if !m.Idle() {
		m.violate("reply ready with memory requests still in flight")
	}
	// A reply the TxEngine writes reads the data; any other only the header line.
	needed := uint64(golden.RespDataOffset)
	if want > 0 && want <= o.RespCap {
		needed += uint64(binary.LittleEndian.Uint32(o.AppResp[golden.RespDataLenOffset:]))
	}
	for _, line := range m.Faulted[faulted:] {
		o.RespFaulted = o.RespFaulted || line >= AppRespBase && line < AppRespBase+needed
	}
	return nil
}

// ReplayApp is the business logic of a recorded exchange: it answers with
// the App.Resp image from which the TxEngine writes reply again
// (golden.AppRespForReply), or as DefaultApp if no image does.
func ReplayApp(reply []byte) Application {
	return func(appRecv []byte) []byte {
		if h, err := golden.ParseHeader(appRecv); err == nil {
			if img, err := golden.AppRespForReply(h.Method, reply); err == nil {
				return img
			}
		}
		return DefaultApp(appRecv)
	}
}

// DefaultApp is the harness's business logic when a request names none: a
// Set is void; a Get's answer is a function of its key (its FNV-1a hash),
// so that a replay gives the same reply: mostly a value of 0 to 299 bytes,
// sometimes a nil value (NULL) or an application error.
func DefaultApp(appRecv []byte) []byte {
	h, err := golden.ParseHeader(appRecv)
	if err != nil || h.Method != golden.MethodGet || int(h.KeyLen) > golden.KeyMax {
		img, _ := golden.BuildAppResp(golden.MethodSet, nil, nil)
		return img
	}
	key := appRecv[golden.KeyOffset : golden.KeyOffset+int(h.KeyLen)]
	f := fnv.New64a()
	f.Write(key)
	x := f.Sum64()
	var img []byte
	switch x % 16 {
	case 0:
		img, _ = golden.BuildAppResp(golden.MethodGet, nil, nil)
	case 1:
		img, _ = golden.BuildAppResp(golden.MethodGet, nil, fmt.Errorf("no value for key % x", key[:min(len(key), int(x>>8%40))]))
	default:
		v := make([]byte, x>>8%300)
		for i := range v {
			v[i] = byte(x>>(i%7*8) + uint64(i))
		}
		img, _ = golden.BuildAppResp(golden.MethodGet, v, nil)
	}
	return img
}
