package tb

import (
	"cmp"
	"fmt"

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

// Request is one message for the NetCore to hand to the engine.
type Request struct {
	Msg      []byte
	Offset   int // start offset of the message within its line, 0..63
	CapLines int // App.Recv capacity in lines (0: TightCapLines)
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
	Reply         []byte
	ReplyStatus   Status
	Cycles        uint64 // from the CMD_SEND_NET_LEN edge to the edge whose status load saw ready
	Violations    []string
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
		if err := a.reply(&o); err != nil {
			return o, err
		}
	} else if next.State() != StateIdleRecv {
		m.violate("after ready the FSM is in %s, want IDLE_RECV or IDLE_RESP", StateNames[next.State()])
	}
	o.Violations = append(o.Violations, m.Violations...)
	return o, nil
}

// reply is the AppCore finishing business logic for a void Set: it names the
// buffers and asks for the response; the NetCore polls for it.
func (a *Accel) reply(o *Outcome) error {
	m := a.Mem
	m.Fill(NetRespBase, LineSize, Filler)
	m.Writable = Region{"Net.Resp", NetRespBase, LineSize}
	m.Readable = Region{"nothing", 0, 0}
	// One more load was taken at the edge that answered: an idle cycle
	// lets its answer go by (see Poll).
	var s Status
	cmds := [...]command{{OpNetReadyFlag, NetRespBase}, {OpSendAppBuf, AppRespBase}, {OpSendAppResp, 0}}
	if _, err := a.exchange(a.Budget(0), nil, func(_ uint64, st Status) { s = st }, cmds[:], 1); err != nil {
		return err
	}
	o.Replied, o.ReplyStatus = true, s
	// Two buffers in turn, like the images (see Outcome): a Read per
	// reply was the harness's one allocation per request.
	o.Reply = a.replies[a.nextReply][:]
	a.nextReply ^= 1
	m.readInto(o.Reply, NetRespBase)
	if !m.Idle() {
		m.violate("reply ready with memory requests still in flight")
	}
	return nil
}
