// Package schemasvc is a Thrift server for any service of idl/ through
// the generic recvFunction and respFunction, rtl/generic/recv_header.sv,
// recv_schema.sv and resp_schema.sv, in one Verilated model
// (rtl/generic/schema_pair.sv: VPI holds one model per process): Apache's
// reader frames each request, recv_header checks its header
// (tb/schemahdr.Check, against schemagold.CheckHeader) and its result
// dispatches the request, recv_schema walks the args from there into
// App.Recv (tb/schemarx.Drive), the business logic reads its
// arguments back from that image (schemagold.ReadBack) and writes its
// result as an App.Resp image (schemagold.BuildResp), and resp_schema
// serializes the reply from that image (tb/schematx.Drive), after the
// message header the server writes. Every reply is checked against the
// reference respFunction, schemagold.Serialize: on a mismatch the client
// gets the reference's bytes, and the log and Stats say so.
package schemasvc

import (
	"bufio"
	"context"
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

// open opens the model, binds the three units' harnesses on it and resets it,
// on the goroutine that owns it (conn.Own: VPI, one model per process,
// used from the thread that opened it).
func (s *Server) open(biz logic) (func() error, error) {
	top := schemacase.PairTop
	sim, err := schemacase.Open(s.cfg.Model, top+"clk_i", s.cfg.Width)
	if err != nil {
		return nil, err
	}
	hd, err := schemahdr.OnSim(sim, top, schemacase.PairHd)
	var rx *schemarx.Model
	if err == nil {
		rx, err = schemarx.OnSim(sim, top, schemacase.PairRx)
	}
	var tx *schematx.Model
	if err == nil {
		tx, err = schematx.OnSim(sim, top, schemacase.PairTx)
	}
	if err == nil {
		err = rx.Reset() // every unit: rst_ni is the model's
	}
	if err != nil {
		sim.Close()
		return nil, err
	}
	var hdd schemahdr.DUT = hd
	if testHd != nil {
		hdd = testHd(hd)
	}
	var dut schemarx.DUT = rx
	if testDUT != nil {
		dut = testDUT(rx)
	}
	var txd schematx.DUT = tx
	if testTx != nil {
		txd = testTx(tx)
	}
	s.eng = &engine{s: s, hd: hdd, dut: dut, tx: txd, biz: biz, img: make([]byte, s.cfg.Capacity)}
	return sim.Close, nil
}

// testHd, testDUT and testTx, set only by this package's tests, wrap the
// units (to alter what they find, store or write).
var (
	testHd  func(schemahdr.DUT) schemahdr.DUT
	testDUT func(schemarx.DUT) schemarx.DUT
	testTx  func(schematx.DUT) schematx.DUT
)

// engine is the model and the business logic, used on the goroutine that
// owns the model.
type engine struct {
	s   *Server
	hd  schemahdr.DUT // recv_header
	dut schemarx.DUT  // recv_schema, in the same model
	tx  schematx.DUT  // resp_schema, in the same model
	biz logic
	img []byte // App.Recv
	n   int    // requests run so far
}

// run checks one request's header with the RTL, walks its args through
// the RTL into App.Recv, reads them back from the image, runs the
// business logic and writes the reply with the RTL respFunction.
func (e *engine) run(j *job) outcome {
	idx := e.n
	e.n++
	j.hdr = e.header(j, idx)
	s, t, h := e.s, e.s.cfg.Table, j.hdr
	name := t.Methods[h.method].Name
	dr, err := schemarx.Drive(e.dut, e.img, schemarx.Request{Msg: j.msg, Start: h.start, Method: h.method, SeqID: h.seqid, MsgType: uint8(h.typ)})
	if err != nil {
		// The simulator failed or the module broke the protocol: the
		// message is answered as one that cannot be read.
		s.log.Printf("connection %d request %d (%s): the simulation failed: %v; the model is reset", j.conn, idx, name, err)
		if rerr := e.dut.Reset(); rerr != nil {
			s.log.Printf("resetting the model: %v", rerr)
		}
		s.stats.request(h.method, false, uint64(dr.Cycles))
		return e.unreadable(j, fmt.Sprintf("arcalis: the simulation of recv_schema failed: %v", err))
	}
	s.stats.request(h.method, dr.Result.Code == schemagold.CodeOK, uint64(dr.Cycles))
	if dr.Result.Code != schemagold.CodeOK {
		s.log.Printf("connection %d request %d (%s, seqid %d): recv_schema: %v at message byte %d; PROTOCOL_ERROR, connection closed",
			j.conn, idx, name, h.seqid, dr.Result.Code, dr.Result.Offset)
		return e.unreadable(j, fmt.Sprintf("arcalis recv_schema: %v at message byte %d", dr.Result.Code, dr.Result.Offset))
	}
	args, err := schemagold.ReadBack(t, e.img)
	if err != nil {
		s.log.Printf("connection %d request %d (%s): RTL result OK but its App.Recv does not read back: %v", j.conn, idx, name, err)
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

// header runs j's message header through recv_header (schemahdr.Check)
// and returns the request's dispatch: the method, seqid, message type and
// args' offset of the RTL's result when it is the reference's,
// schemagold.CheckHeader, and Apache's reading (j.hdr). Otherwise the
// request is dispatched as Apache's reader read it, so the client sees no
// difference: a result unlike the reference's or Apache's, a take other
// than the header, or a run that fails (the model is then reset) is an
// RTL bug, logged as a header MISMATCH and counted; a header the RTL and
// the reference both refuse although Apache's reader accepted it (a
// non-strict header, a REPLY or EXCEPTION: docs/abi.md section 7) is read
// as Apache's server reads it, logged and counted as "header by Apache".
func (e *engine) header(j *job, idx int) header {
	s, t, h := e.s, e.s.cfg.Table, j.hdr
	at := fmt.Sprintf("connection %d request %d (%s, seqid %d)", j.conn, idx, h.name, h.seqid)
	dr, err := schemahdr.Check(e.hd, t, j.msg)
	ran := dr.Cycles > 0 // the run ended with done_o
	var bad string
	switch {
	case err != nil && !ran:
		what := "the simulation of recv_header failed"
		if schemahdr.IsMismatch(err) {
			what = "recv_header broke the protocol"
		}
		s.stats.header(h.method, false, 0, headerMismatch)
		s.log.Printf("%s: header MISMATCH: %s: %v; dispatched as Apache's reader read the header; the model is reset", at, what, err)
		if rerr := e.hd.Reset(); rerr != nil {
			s.log.Printf("resetting the model: %v", rerr)
		}
		return h
	case err != nil:
		bad = err.Error() // unlike the reference's
	case dr.Result.Code != schemagold.CodeOK:
		s.stats.header(h.method, true, uint64(dr.Cycles), headerApache)
		s.log.Printf("%s: recv_header refused the header: %v at message byte %d (as the reference); Apache's reader's header is used, as Apache's server reads it (docs/abi.md section 7)",
			at, dr.Result.Code, dr.Result.Offset)
		return h
	default:
		got := dr.Result
		m := int(got.Method) - 1
		rtl := header{name: t.Methods[m].Name, typ: thrift.TMessageType(got.MsgType), seqid: got.SeqID, method: m, start: int(got.Offset)}
		if rtl == h {
			s.stats.header(h.method, true, uint64(dr.Cycles), headerRTL)
			return rtl
		}
		bad = fmt.Sprintf("recv_header and the reference: %s type %d seqid %d, args at byte %d; Apache's reader: %s type %d seqid %d, args at byte %d",
			rtl.name, rtl.typ, rtl.seqid, rtl.start, h.name, h.typ, h.seqid, h.start)
	}
	s.stats.header(h.method, true, uint64(dr.Cycles), headerMismatch)
	s.log.Printf("%s: header MISMATCH: %s; dispatched as Apache's reader read the header", at, bad)
	return h
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
		if rerr := e.tx.Reset(); rerr != nil {
			s.log.Printf("resetting the model: %v", rerr)
		}
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
