// Package schemasvc is a Thrift server for any service of idl/ whose
// receive path is the generic recvFunction, rtl/generic/recv_schema.sv:
// the header of each request is checked in software against the service's
// tables, the Verilated module walks the args into App.Recv
// (tb/schemarx.Drive), the business logic reads its arguments back from
// that image (schemagold.ReadBack) and writes its result as an App.Resp
// image (schemagold.BuildResp), and the reply is serialized by the
// reference respFunction, schemagold.Serialize: the RTL respFunction does
// not exist yet.
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
	"sync/atomic"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/golden/schemagold"
	"arcalis/serve"
	"arcalis/tb/schemarx"
	"arcalis/thriftidl/schema"
)

// Config says what and how to serve.
type Config struct {
	Addr      string        // listen address (port 0: any)
	Transport string        // serve.Framed or serve.Buffered
	Table     *schema.Table // the service's tables; its Service names the business logic
	Model     string        // the recv_schema model library built for Table (make schema-model)
	Width     int           // the model's Width (bytes per cycle)
	// Capacity is App.Recv's size; 0: the largest, schemarx.MaxCap.
	Capacity int
	Clock    func() time.Time // MemcachedService's clock (nil: time.Now)
	Log      io.Writer        // log lines (nil: os.Stderr)
}

// Server is a running server: Start it, stop it with Shutdown.
type Server struct {
	cfg   Config
	ln    net.Listener
	log   *log.Logger
	jobs  chan *job
	stats *collector

	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closing atomic.Bool
	connWG  sync.WaitGroup
	accepts sync.WaitGroup
	simDone chan error

	stopOnce sync.Once
	stopped  Stats
	stopErr  error
}

// job is one request for the goroutine that owns the model.
type job struct {
	conn   int
	msg    []byte
	hdr    header
	framed bool
	done   chan outcome
}

// outcome is what a connection does after a request: write reply (nil:
// none) and, with close, end.
type outcome struct {
	reply []byte
	close bool
}

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
		jobs: make(chan *job), stats: newCollector(cfg.Table), conns: map[net.Conn]struct{}{},
		simDone: make(chan error, 1),
	}
	opened := make(chan error, 1)
	go s.simulate(opened, biz)
	if err := <-opened; err != nil {
		return nil, fmt.Errorf("schemasvc: model %s: %w", cfg.Model, err)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		close(s.jobs)
		<-s.simDone
		return nil, fmt.Errorf("schemasvc: --addr %s: %w", cfg.Addr, err)
	}
	s.ln = ln
	s.accepts.Add(1)
	go s.accept()
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Shutdown stops accepting, lets the requests already read finish and
// their replies go out, closes the connections, closes the model and
// returns the statistics. If ctx ends first, connections are closed
// without waiting for their replies. Later calls return the same.
func (s *Server) Shutdown(ctx context.Context) (Stats, error) {
	s.stopOnce.Do(func() { s.stopped, s.stopErr = s.shutdown(ctx) })
	return s.stopped, s.stopErr
}

func (s *Server) shutdown(ctx context.Context) (Stats, error) {
	s.closing.Store(true)
	s.ln.Close()
	s.accepts.Wait()
	s.mu.Lock()
	for c := range s.conns {
		c.SetReadDeadline(time.Now()) // a read in progress or to come fails now
	}
	s.mu.Unlock()
	idle := make(chan struct{})
	go func() { s.connWG.Wait(); close(idle) }()
	select {
	case <-idle:
	case <-ctx.Done():
		s.mu.Lock()
		for c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		<-idle
	}
	close(s.jobs)
	err := <-s.simDone
	return s.stats.snapshot(), err
}

func (s *Server) accept() {
	defer s.accepts.Done()
	id := 0
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if !s.closing.Load() {
				s.log.Printf("accept: %v; no more connections are taken", err)
			}
			return
		}
		id++
		s.mu.Lock()
		s.conns[c] = struct{}{}
		s.connWG.Add(1)
		s.mu.Unlock()
		go s.serveConn(c, id)
	}
}

// serveConn reads one request at a time from a connection and answers it
// before reading the next, so replies keep the requests' order.
func (s *Server) serveConn(c net.Conn, id int) {
	defer s.connWG.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	framed := s.cfg.Transport == serve.Framed
	r := bufio.NewReaderSize(c, 64<<10)
	for {
		var msg []byte
		var h header
		var err error
		if framed {
			if msg, err = readFrame(r); err == nil {
				h, err = parseFramed(msg, s.cfg.Table)
			}
		} else {
			msg, h, err = readBuffered(r, s.cfg.Table)
		}
		read := time.Now()
		if err != nil {
			if s.closing.Load() || errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
				return
			}
			var f *fault
			if !errors.As(err, &f) {
				s.log.Printf("connection %d (%s): read: %v", id, c.RemoteAddr(), err)
				return
			}
			s.stats.fault()
			s.log.Printf("connection %d (%s): %v%s", id, c.RemoteAddr(), f.err, faultAction(f))
			if f.reply != nil {
				if _, err := c.Write(f.reply); err != nil {
					return
				}
			}
			if f.close {
				return
			}
			continue
		}
		j := &job{conn: id, msg: msg, hdr: h, framed: framed, done: make(chan outcome, 1)}
		s.jobs <- j
		o := <-j.done
		if o.reply != nil {
			if _, err := c.Write(o.reply); err != nil {
				s.log.Printf("connection %d (%s): writing the reply: %v", id, c.RemoteAddr(), err)
				return
			}
			s.stats.latency(h.method, time.Since(read))
		}
		if o.close {
			return
		}
	}
}

// faultAction says what the server does about f, for its log line.
func faultAction(f *fault) string {
	switch {
	case f.reply != nil && f.close:
		return "; sent an exception and closed the connection"
	case f.reply != nil:
		return "; sent an exception"
	case f.close:
		return "; closed the connection"
	}
	return ""
}

// simulate owns the model: it opens and resets it on this goroutine,
// reports the result on opened, then runs the requests of every
// connection one at a time.
func (s *Server) simulate(opened chan<- error, biz logic) {
	m, err := schemarx.OpenModel(s.cfg.Model, s.cfg.Width)
	if err == nil {
		if err = m.Reset(); err != nil {
			m.Close()
		}
	}
	opened <- err
	if err != nil {
		s.simDone <- nil
		return
	}
	var dut schemarx.DUT = m
	if testDUT != nil {
		dut = testDUT(m)
	}
	e := &engine{s: s, dut: dut, biz: biz, img: make([]byte, s.cfg.Capacity)}
	for j := range s.jobs {
		j.done <- e.run(j)
	}
	s.simDone <- m.Close()
}

// testDUT, set only by this package's tests, wraps the model (to alter
// what it stores).
var testDUT func(schemarx.DUT) schemarx.DUT

// engine is the model and the business logic, owned by simulate.
type engine struct {
	s   *Server
	dut schemarx.DUT
	biz logic
	img []byte // App.Recv
	n   int    // requests run so far
}

// run walks one request's args through the RTL into App.Recv, reads them
// back from the image, runs the business logic and writes the reply with
// the reference respFunction.
func (e *engine) run(j *job) outcome {
	s, t, h := e.s, e.s.cfg.Table, j.hdr
	idx := e.n
	e.n++
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
		reply, err = e.reply(h, result)
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
		return outcome{reply: exception(name, h.seqid, x, j.framed)}
	}
	if noReply {
		return outcome{}
	}
	if result != nil && len(result.Fields) == 1 && result.Fields[0].ID != 0 {
		s.stats.thrown(h.method)
	}
	if j.framed {
		reply = frame(reply)
	}
	return outcome{reply: reply}
}

// reply is the result's App.Resp image serialized by the reference
// respFunction.
func (e *engine) reply(h header, result *schemagold.Struct) ([]byte, error) {
	t := e.s.cfg.Table
	img, err := schemagold.BuildResp(t, h.method, h.seqid, result)
	if err != nil {
		return nil, err
	}
	out, code, off := schemagold.Serialize(t, img, h.method, h.seqid)
	if code != schemagold.CodeRespOK {
		return nil, fmt.Errorf("the reference respFunction refused the App.Resp image: %v at %d", code, off)
	}
	return out, nil
}

// unreadable is what Apache's generated processor does with args it cannot
// read: a PROTOCOL_ERROR exception, then the connection is closed.
func (e *engine) unreadable(j *job, text string) outcome {
	x := thrift.NewTApplicationException(thrift.PROTOCOL_ERROR, text)
	return outcome{reply: exception(j.hdr.name, j.hdr.seqid, x, j.framed), close: true}
}
