// Package schemasvc is a Thrift server for any service of idl/ through
// the generic recvFunction and respFunction in one Verilated model
// (rtl/generic/schema_pair.sv: VPI holds one model per process): Apache's
// reader frames each request, rtl/generic/schema_rx.sv receives it
// (tb/schemarx.DriveRecv): its recv_header checks the header (against
// schemagold.CheckHeader, tb/schemahdr.Compare) and dispatches the
// request, its recv_schema walks the args from there into App.Recv; the
// business logic reads its arguments back from that image
// (schemagold.ReadBack) and writes its result as an App.Resp image
// (schemagold.BuildResp), and resp_schema serializes the reply from that
// image (tb/schematx.Drive), after the message header the server writes.
// Every reply is checked against the reference respFunction,
// schemagold.Serialize: on a mismatch the client gets the reference's
// bytes, and the log and Stats say so.
package schemasvc

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"sync"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/golden/schemagold"
	"arcalis/serve"
	"arcalis/serve/conn"
	"arcalis/tb/schemacase"
	"arcalis/tb/schemahdr"
	"arcalis/tb/schemarx"
	"arcalis/tb/schematx"
	"arcalis/thriftidl/schema"
)

// Config says what and how to serve.
type Config struct {
	Addr      string        // listen address (port 0: any)
	Transport string        // serve.Framed or serve.Buffered
	Table     *schema.Table // the service's tables; its Service names the business logic
	Model     string        // the schema_pair model library built for Table (make schema-pair-model)
	Width     int           // the model's Width (bytes per cycle)
	// Capacity is App.Recv's size; 0: the largest, schemarx.MaxCap.
	Capacity int
	Clock    func() time.Time // MemcachedService's clock (nil: time.Now)
	Log      io.Writer        // log lines (nil: os.Stderr)
}

// Server is a running server: Start it, stop it with Shutdown.
type Server struct {
	cfg   Config
	conns *conn.Listener
	log   *log.Logger
	stats *collector
	sim   *conn.Owner
	eng   *engine // the model, used on sim's goroutine only

	stopOnce sync.Once
	stopped  Stats
	stopErr  error
}

// job is one request for the goroutine that owns the model.
type job struct {
	conn   int
	msg    []byte
	hdr    header // Apache's reading, then the dispatch (engine.header)
	framed bool
}

// outcome is what a connection does after a request.
type outcome = conn.Outcome

// Start opens the model on a goroutine of its own (VPI: one model per
// process, used from the thread that opened it), listens on cfg.Addr and
// serves until Shutdown.
func Start(cfg Config) (*Server, error) {
	if cfg.Transport != serve.Framed && cfg.Transport != serve.Buffered {
		return nil, fmt.Errorf("schemasvc: transport %q: want %s or %s", cfg.Transport, serve.Framed, serve.Buffered)
	}
	if cfg.Table == nil {
		return nil, errors.New("schemasvc: no tables")
	}
	if cfg.Capacity == 0 {
		cfg.Capacity = schemarx.MaxCap
	}
	if err := schemagold.CheckCapacity(cfg.Capacity); err != nil {
		return nil, fmt.Errorf("schemasvc: %w", err)
	}
	biz, err := newLogic(cfg.Table.Service, cfg.Clock)
	if err != nil {
		return nil, fmt.Errorf("schemasvc: %w", err)
	}
	if cfg.Log == nil {
		cfg.Log = os.Stderr
	}
	s := &Server{
		cfg: cfg, log: log.New(cfg.Log, "serve: ", log.LstdFlags|log.Lmicroseconds),
		stats: newCollector(cfg.Table),
	}
	sim, err := conn.Own(func() (func() error, error) { return s.open(biz) })
	if err != nil {
		return nil, fmt.Errorf("schemasvc: model %s: %w", cfg.Model, err)
	}
	s.sim = sim
	conns, err := conn.Listen(cfg.Addr, s.log, conn.Handler[request]{Read: s.read, Fault: s.stats.fault, Run: s.run})
	if err != nil {
		s.sim.Close()
		return nil, fmt.Errorf("schemasvc: --addr %s: %w", cfg.Addr, err)
	}
	s.conns = conns
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.conns.Addr() }

// Shutdown stops accepting, lets the requests already read finish and
// their replies go out, closes the connections, closes the model and
// returns the statistics. If ctx ends first, connections are closed
// without waiting for their replies. Later calls return the same.
func (s *Server) Shutdown(ctx context.Context) (Stats, error) {
	s.stopOnce.Do(func() { s.stopped, s.stopErr = s.shutdown(ctx) })
	return s.stopped, s.stopErr
}

func (s *Server) shutdown(ctx context.Context) (Stats, error) {
	s.conns.Shutdown(ctx)
	err := s.sim.Close()
	return s.stats.snapshot(), err
}

// request is a message read whole and its header.
type request struct {
	msg []byte
	hdr header
}

// read reads one message of the configured transport and its header.
func (s *Server) read(r *bufio.Reader) (request, error) {
	if s.cfg.Transport == serve.Framed {
		msg, err := conn.ReadFrame(r)
		if err != nil {
			return request{}, err
		}
		h, err := parseFramed(msg, s.cfg.Table)
		return request{msg, h}, err
	}
	msg, h, err := readBuffered(r, s.cfg.Table)
	return request{msg, h}, err
}

// run hands one request of connection id to the model and waits for the
// outcome; a reply's latency is counted for its method.
func (s *Server) run(id int, req request, _ time.Time) conn.Outcome {
	j := &job{conn: id, msg: req.msg, hdr: req.hdr, framed: s.cfg.Transport == serve.Framed}
	var o outcome
	s.sim.Do(func() { o = s.eng.run(j) })
	if o.Reply != nil {
		o.Done = func(d time.Duration) { s.stats.latency(j.hdr.method, d) }
	}
	return o
}

// open opens the model, binds the two units' harnesses on it and resets
// it, on the goroutine that owns it (conn.Own: VPI, one model per process,
// used from the thread that opened it).
func (s *Server) open(biz logic) (func() error, error) {
	top := schemacase.PairTop
	sim, err := schemacase.Open(s.cfg.Model, top+"clk_i", s.cfg.Width)
	if err != nil {
		return nil, err
	}
	rx, err := schemarx.OnSimRecv(sim, top, schemacase.PairRx)
	var tx *schematx.Model
	if err == nil {
		tx, err = schematx.OnSim(sim, top, schemacase.PairTx)
	}
	if err == nil {
		err = rx.Reset() // both units: rst_ni is the model's
	}
	if err != nil {
		sim.Close()
		return nil, err
	}
	var rxd schemarx.RecvDUT = rx
	if testRx != nil {
		rxd = testRx(rx)
	}
	var txd schematx.DUT = tx
	if testTx != nil {
		txd = testTx(tx)
	}
	s.eng = &engine{s: s, rx: rxd, tx: txd, biz: biz, img: make([]byte, s.cfg.Capacity)}
	return sim.Close, nil
}

// testRx and testTx, set only by this package's tests, wrap the units (to
// alter what they find, store or write).
var (
	testRx func(schemarx.RecvDUT) schemarx.RecvDUT
	testTx func(schematx.DUT) schematx.DUT
)

// engine is the model and the business logic, used on the goroutine that
// owns the model.
type engine struct {
	s   *Server
	rx  schemarx.RecvDUT // schema_rx: recv_header, then recv_schema
	tx  schematx.DUT     // resp_schema, in the same model
	biz logic
	img []byte // App.Recv
	n   int    // requests run so far
}

// run receives one request with the RTL into App.Recv (engine.receive),
// reads its arguments back from the image, runs the business logic and
// writes the reply with the RTL respFunction.
func (e *engine) run(j *job) outcome {
	idx := e.n
	e.n++
	rc := e.receive(j, idx)
	j.hdr = rc.hdr
	s, t, h := e.s, e.s.cfg.Table, j.hdr
	name := t.Methods[h.method].Name
	dr := rc.dr
	if rc.err != nil {
		// The simulator failed or the module broke the protocol (the
		// model has been reset): the message is answered as one that
		// cannot be read.
		s.log.Printf("connection %d request %d (%s): the simulation failed: %v; the model is reset", j.conn, idx, name, rc.err)
		s.stats.request(h.method, rc.rtl, false, uint64(dr.Cycles))
		return e.unreadable(j, fmt.Sprintf("arcalis: the simulation of schema_rx failed: %v", rc.err))
	}
	s.stats.request(h.method, rc.rtl, dr.Result.Code == schemagold.CodeOK, uint64(dr.Cycles))
	if dr.Result.Code != schemagold.CodeOK {
		who := "recv_schema"
		if !rc.rtl {
			who = "the reference"
		}
		at := int(dr.Result.Offset) + rc.delta
		s.log.Printf("connection %d request %d (%s, seqid %d): %s: %v at message byte %d; PROTOCOL_ERROR, connection closed",
			j.conn, idx, name, h.seqid, who, dr.Result.Code, at)
		return e.unreadable(j, fmt.Sprintf("arcalis %s: %v at message byte %d", who, dr.Result.Code, at))
	}
	args, err := schemagold.ReadBack(t, e.img)
	if err != nil {
		s.log.Printf("connection %d request %d (%s): result OK but its App.Recv does not read back: %v", j.conn, idx, name, err)
		return e.unreadable(j, "arcalis: App.Recv does not read back: "+err.Error())
	}
	result, err := e.biz.call(name, args.Args)
	// A ONEWAY message gets no reply, as from the memcached server (Apache's
	// processor replies to any message type but a oneway method's).
	noReply := h.typ == thrift.ONEWAY || t.Methods[h.method].Oneway
	var reply []byte
	if err == nil && !noReply {
		reply, err = e.reply(j, idx, result)
	}
	if err != nil {
		s.log.Printf("connection %d request %d (%s): %v; INTERNAL_ERROR", j.conn, idx, name, err)
		s.stats.internal(h.method)
		if noReply {
			return outcome{}
		}
		// Apache's processor answers a handler's undeclared error so, and
		// reads on.
		x := thrift.NewTApplicationException(thrift.INTERNAL_ERROR, "Internal error processing "+name+": "+err.Error())
		return outcome{Reply: conn.Exception(name, h.seqid, x, j.framed)}
	}
	if noReply {
		return outcome{}
	}
	if result != nil && len(result.Fields) == 1 && result.Fields[0].ID != 0 {
		s.stats.thrown(h.method)
	}
	if j.framed {
		reply = conn.Frame(reply)
	}
	return outcome{Reply: reply}
}

// received is a request's dispatch and the walk of its args into App.Recv.
type received struct {
	hdr header          // the dispatch
	dr  schemarx.Driven // the walk: its result (the header line) and, by the RTL, its cycles
	err error           // the RTL's walk failed (the simulator, or the module broke the protocol); the model has been reset
	rtl bool            // the RTL walked the args; else the reference did, after a header MISMATCH
	// delta: a message offset of the walk's plus delta is one of the
	// message's (the walk's message had its header rebuilt).
	delta int
}

// receive runs j's message through schema_rx (schemarx.DriveRecv): when
// recv_header's result is the reference's (schemahdr.Compare) and Apache's
// reading (j.hdr), it dispatches the request and the walk that followed
// it is the request's. Otherwise the request is dispatched as Apache's
// reader read it, so the client sees no difference:
//   - a header the RTL and the reference both refuse although Apache's
//     reader accepted it (non-strict, REPLY or EXCEPTION: docs/abi.md
//     section 7) is logged and counted as "header by Apache", and received
//     again with the header rebuilt strict (Apache's method and seqid
//     before the same args), so that the RTL still walks the args;
//   - any other difference (a result unlike the reference's or Apache's, a
//     take other than the header, a run that fails: the model is then
//     reset) is an RTL bug, logged as a header MISMATCH and counted, and
//     the reference walks the args (schemagold.Deserialize of the message
//     with the header rebuilt).
func (e *engine) receive(j *job, idx int) received {
	s, t, h := e.s, e.s.cfg.Table, j.hdr
	at := fmt.Sprintf("connection %d request %d (%s, seqid %d)", j.conn, idx, h.name, h.seqid)
	hdr, dr, err := schemarx.DriveRecv(e.rx, t, e.img, j.msg)
	if err != nil {
		e.reset(e.rx)
	}
	if hdr.Cycles == 0 {
		what := "the simulation of recv_header failed"
		if schemarx.IsMismatch(err) {
			what = "recv_header broke the protocol"
		}
		s.stats.header(h.method, false, 0, headerMismatch)
		s.log.Printf("%s: header MISMATCH: %s: %v; dispatched as Apache's reader read the header, the args walked by the reference; the model is reset", at, what, err)
		return e.byReference(j)
	}
	cycles := uint64(hdr.Cycles)
	var bad string
	if cerr := schemahdr.Compare(hdr, t, j.msg); cerr != nil {
		bad = cerr.Error() // unlike the reference's
	} else if hdr.Result.Code != schemagold.CodeOK {
		s.stats.header(h.method, true, cycles, headerApache)
		s.log.Printf("%s: recv_header refused the header: %v at message byte %d (as the reference); Apache's reader's header is used, as Apache's server reads it (docs/abi.md section 7), and the message received again with it rebuilt strict",
			at, hdr.Result.Code, hdr.Result.Offset)
		return e.rebuilt(j, at)
	} else {
		got := hdr.Result
		m := int(got.Method) - 1
		rtl := header{name: t.Methods[m].Name, typ: thrift.TMessageType(got.MsgType), seqid: got.SeqID, method: m, start: int(got.Offset)}
		if rtl == h {
			s.stats.header(h.method, true, cycles, headerRTL)
			return received{hdr: rtl, dr: dr, err: err, rtl: true}
		}
		bad = fmt.Sprintf("recv_header and the reference: %s type %d seqid %d, args at byte %d; Apache's reader: %s type %d seqid %d, args at byte %d",
			rtl.name, rtl.typ, rtl.seqid, rtl.start, h.name, h.typ, h.seqid, h.start)
	}
	s.stats.header(h.method, true, cycles, headerMismatch)
	s.log.Printf("%s: header MISMATCH: %s; dispatched as Apache's reader read the header, the args walked by the reference", at, bad)
	return e.byReference(j)
}

// strict is j's message with its header rebuilt as the RTL reads one:
// strict, a CALL (a ONEWAY stays one) of Apache's method and seqid, then
// the args as they were; delta is what a message offset of it adds to be
// one of j's.
func strict(j *job) (msg []byte, delta int) {
	h := j.hdr
	typ := uint32(thrift.CALL)
	if h.typ == thrift.ONEWAY {
		typ = uint32(thrift.ONEWAY)
	}
	msg = binary.BigEndian.AppendUint32(nil, 0x80010000|typ)
	msg = binary.BigEndian.AppendUint32(msg, uint32(len(h.name)))
	msg = append(msg, h.name...)
	msg = binary.BigEndian.AppendUint32(msg, uint32(h.seqid))
	return append(msg, j.msg[h.start:]...), h.start - (12 + len(h.name))
}

// rebuilt receives j's message again with its header rebuilt strict
// (strict): recv_header's result must be the reference's (the header
// Apache's reader read, unless the rebuilt message is too large for both),
// else it is a header MISMATCH and the reference walks the args.
func (e *engine) rebuilt(j *job, at string) received {
	s, t, h := e.s, e.s.cfg.Table, j.hdr
	msg, delta := strict(j)
	hdr, dr, err := schemarx.DriveRecv(e.rx, t, e.img, msg)
	if err != nil {
		e.reset(e.rx)
	}
	bad := err
	if hdr.Cycles > 0 {
		bad = schemahdr.Compare(hdr, t, msg)
	}
	switch {
	case bad != nil:
		s.stats.header(h.method, false, 0, headerMismatch)
		s.log.Printf("%s: header MISMATCH on the header rebuilt strict: %v; the args walked by the reference", at, bad)
		return e.byReference(j)
	case hdr.Result.Code != schemagold.CodeOK:
		return e.byReference(j) // refused by both: the reference says why
	}
	return received{hdr: h, dr: dr, err: err, rtl: true, delta: delta}
}

// byReference walks j's args with the reference, as Apache's reader
// dispatched them (its header rebuilt strict), into App.Recv.
func (e *engine) byReference(j *job) received {
	msg, delta := strict(j)
	return received{hdr: j.hdr, dr: schemarx.Driven{Result: schemagold.Deserialize(e.s.cfg.Table, msg, e.img)}, delta: delta}
}

// reset resets the model, through unit d's harness, after a failed run.
func (e *engine) reset(d interface{ Reset() error }) {
	if err := d.Reset(); err != nil {
		e.s.log.Printf("resetting the model: %v", err)
	}
}

// reply is the result's App.Resp image serialized by resp_schema, its
// reads answered from the image at memory latency 0 and its output never
// stalled (schematx.Drive), after the message header, which is the
// caller's: the reference's. A reply unlike the reference's is an RTL
// bug: it is logged and counted, and the reference's goes out instead.
func (e *engine) reply(j *job, idx int, result *schemagold.Struct) ([]byte, error) {
	s, t, h := e.s, e.s.cfg.Table, j.hdr
	img, err := schemagold.BuildResp(t, h.method, h.seqid, result)
	if err != nil {
		return nil, err
	}
	ref, code, off := schemagold.Serialize(t, img, h.method, h.seqid)
	if code != schemagold.CodeRespOK {
		return nil, fmt.Errorf("the reference respFunction refused the App.Resp image: %v at %d", code, off)
	}
	name := t.Methods[h.method].Name
	head := schemagold.ReplyHeaderLen(t, h.method)
	tm, err := schematx.Drive(e.tx, schematx.Image{N: idx, Method: h.method, SeqID: h.seqid, Img: img}, 0, 0)
	if err != nil {
		s.stats.reply(h.method, false, 0, true)
		s.log.Printf("connection %d request %d (%s, seqid %d): reply MISMATCH: resp_schema failed: %v; reference %v; answered with the reference's bytes; the model is reset",
			j.conn, idx, name, h.seqid, err, code)
		e.reset(e.tx)
		return ref, nil
	}
	rtl := append(ref[:head:head], tm.Out...)
	at := firstDiff(rtl, ref)
	bad := at >= 0 || tm.Code != schemagold.CodeRespOK || tm.Offset != len(ref)-head
	s.stats.reply(h.method, true, uint64(tm.Cycles), bad)
	if bad {
		diff := "the same bytes"
		if at >= 0 {
			diff = fmt.Sprintf("first differing byte %d", at)
		}
		s.log.Printf("connection %d request %d (%s, seqid %d): reply MISMATCH: %s of %d (RTL) and %d (reference); resp_schema %v at %d, reference %v; answered with the reference's bytes",
			j.conn, idx, name, h.seqid, diff, len(rtl), len(ref), tm.Code, tm.Offset, code)
		return ref, nil
	}
	return rtl, nil
}

// firstDiff is the offset of the first byte where a and b differ (the
// shorter one's length if it is the other's start), -1 if they are equal.
func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// unreadable is what Apache's generated processor does with args it cannot
// read: a PROTOCOL_ERROR exception, then the connection is closed.
func (e *engine) unreadable(j *job, text string) outcome {
	x := thrift.NewTApplicationException(thrift.PROTOCOL_ERROR, text)
	return outcome{Reply: conn.Exception(j.hdr.name, j.hdr.seqid, x, j.framed), Close: true}
}
