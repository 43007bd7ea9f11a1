// Package serve is a Thrift server for the MemcachedService whose RPC path
// is the simulated RTL: each request read from a socket is placed in
// simulated Net.Recv and handed to the engine as the NetCore would, the
// business logic reads what the RTL wrote to App.Recv, and a Set the RTL
// handled is answered with the TxEngine's reply bytes (a Get's reply is the
// reference serializer's until the TxEngine's respFunction). What the RTL
// rejects is decoded and answered in software, and counted as such.
package serve

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"arcalis/golden"
	"arcalis/regress"
	"arcalis/serve/conn"
	"arcalis/tb"
	"arcalis/vectors"
)

// Config says how to serve.
type Config struct {
	Addr      string // listen address, e.g. 127.0.0.1:9090 (port 0: any)
	Transport string // Framed or Buffered
	Model     string // the Verilated model library
	// ReplayModel, if set, is passed as --model in replay commands.
	ReplayModel string
	MemLatency  int   // memory latency in cycles
	Seed        int64 // seed of the memory model; request i runs with Seed+i, as `arcalis run` runs vector i

	// Check scores every request against the reference (tb.Score) and
	// reports each disagreement to Mismatch, with a waveform in WaveDir.
	Check    bool
	WaveDir  string               // "" : no waveforms
	Mismatch func(regress.Result) // nil: logged in one line
	// Record, if set, is a vector file that every request received is
	// written to; it is complete when Shutdown returns.
	Record string

	Clock func() time.Time // the business logic's clock (nil: time.Now)
	Log   io.Writer        // log lines (nil: os.Stderr)
}

// Server is a running server. Start it with Start, stop it with Shutdown.
type Server struct {
	cfg   Config
	conns *conn.Listener
	log   *log.Logger
	store *Store
	runID string
	sim   *conn.Owner
	eng   *engine // the model, used on sim's goroutine only

	stats *collector
	rec   *vectors.Writer
	recF  *os.File

	stopOnce sync.Once
	stopped  Stats
	stopErr  error
}

// job is one request for the goroutine that owns the model.
type job struct {
	conn   int
	msg    []byte
	framed bool
	read   time.Time // when its last byte was read
}

// outcome is what a connection does after a request, and stat, where it
// adds its wall-clock latency.
type outcome struct {
	conn.Outcome
	stat *sample
}

// Start opens the model on a goroutine of its own, listens on cfg.Addr and
// serves until Shutdown.
func Start(cfg Config) (*Server, error) {
	if cfg.Transport != Framed && cfg.Transport != Buffered {
		return nil, fmt.Errorf("serve: transport %q: want %s or %s", cfg.Transport, Framed, Buffered)
	}
	if cfg.Log == nil {
		cfg.Log = os.Stderr
	}
	s := &Server{
		cfg: cfg, log: log.New(cfg.Log, "serve: ", log.LstdFlags|log.Lmicroseconds),
		store: NewStore(cfg.Clock), runID: regress.NewRunID(), stats: newCollector(),
	}
	if cfg.Record != "" {
		f, err := os.Create(cfg.Record)
		if err != nil {
			return nil, fmt.Errorf("serve: --record: %w", err)
		}
		w, err := vectors.NewWriter(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("serve: --record %s: %w", cfg.Record, err)
		}
		s.rec, s.recF = w, f
	}
	sim, err := conn.Own(s.open)
	if err != nil {
		s.closeRecord()
		return nil, fmt.Errorf("serve: %w", err)
	}
	s.sim = sim
	conns, err := conn.Listen(cfg.Addr, s.log, conn.Handler[[]byte]{Read: s.read, Fault: s.stats.fault, Run: s.run})
	if err != nil {
		s.sim.Close()
		s.closeRecord()
		return nil, fmt.Errorf("serve: --addr %s: %w", cfg.Addr, err)
	}
	s.conns = conns
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.conns.Addr() }

// Store is the server's business logic, for tests and tools.
func (s *Server) Store() *Store { return s.store }

// Shutdown stops accepting, lets every request already handed to the model
// finish and its reply go out, closes the connections, flushes the record
// and returns the statistics. If ctx ends first, connections are closed
// without waiting for their replies. Later calls return the same.
func (s *Server) Shutdown(ctx context.Context) (Stats, error) {
	s.stopOnce.Do(func() { s.stopped, s.stopErr = s.shutdown(ctx) })
	return s.stopped, s.stopErr
}

func (s *Server) shutdown(ctx context.Context) (Stats, error) {
	s.conns.Shutdown(ctx)
	err := s.sim.Close()
	return s.stats.snapshot(), errors.Join(err, s.closeRecord())
}

// closeRecord writes the record's end marker and closes its file.
func (s *Server) closeRecord() error {
	if s.rec == nil {
		return nil
	}
	err := errors.Join(s.rec.Close(), s.recF.Close())
	s.rec = nil
	if err != nil {
		return fmt.Errorf("serve: record %s: %w", s.cfg.Record, err)
	}
	return nil
}

// read reads one request of the configured transport.
func (s *Server) read(r *bufio.Reader) ([]byte, error) {
	if s.cfg.Transport == Framed {
		return conn.ReadFrame(r)
	}
	return readBuffered(r)
}

// run hands one request of connection id to the model and waits for the
// outcome.
func (s *Server) run(id int, msg []byte, read time.Time) conn.Outcome {
	j := &job{conn: id, msg: msg, framed: s.cfg.Transport == Framed, read: read}
	var o outcome
	s.sim.Do(func() { o = s.eng.run(j) })
	if o.stat != nil {
		o.Done = func(d time.Duration) { s.stats.latency(o.stat, d) }
	}
	return o.Outcome
}

// open opens the model, on the goroutine that owns it (conn.Own): the
// model is used from the goroutine that opened it.
func (s *Server) open() (func() error, error) {
	mem := tb.MemConfig{Latency: s.cfg.MemLatency, Seed: s.cfg.Seed}
	if testMemory != nil {
		testMemory(&mem)
	}
	acc, err := tb.OpenWindowed(s.cfg.Model, mem)
	if err != nil {
		return nil, err
	}
	s.eng = &engine{s: s, acc: acc}
	return acc.Close, nil
}

// testMemory, set only by this package's tests, changes the memory model's
// configuration (a faulty memory makes the RTL disagree, for --check).
var testMemory func(*tb.MemConfig)

// testRun, set only by this package's tests, is called with each request
// as the model's goroutine takes it.
var testRun func(msg []byte)

// engine is the simulated accelerator with what the model's goroutine
// keeps between requests.
type engine struct {
	s   *Server
	acc *tb.Accel
	n   int // requests run so far: the next one's index
}

// run sends one request through the RTL and the business logic and
// returns what its connection does next.
func (e *engine) run(j *job) outcome {
	s, idx := e.s, e.n
	e.n++
	if testRun != nil {
		testRun(j.msg)
	}
	source := fmt.Sprintf("serve/%s/conn-%d", s.cfg.Transport, j.conn)
	if s.rec != nil {
		if err := s.rec.Write(vectors.Record{Source: source, Meta: map[string]any{"conn": j.conn}, Msg: j.msg}); err != nil {
			s.log.Printf("record %s: %v", s.cfg.Record, err)
		}
	}
	start := e.acc.Cycle()
	biz := &business{e: e}
	o, err := e.receive(idx, source, j.msg, biz.answer, j.framed)
	smp := &sample{cycles: e.acc.Cycle() - start}
	if err != nil {
		s.log.Printf("connection %d request %d: the simulation failed (%v); the engine was reset and software answers", j.conn, idx, err)
	} else {
		smp.rxCycles = o.Cycles
	}
	out, hw := e.hardware(j, idx, o, err, biz)
	if !hw {
		out = e.software(j, idx)
	}
	smp.method, smp.rtl, smp.read = out.method, hw, j.read
	out.stat = smp
	s.stats.request(smp)
	return out.outcome
}

// receive is tb's Receive as `arcalis run` places vector idx (start offset
// idx mod 64, memory reseeded from Seed+idx), scored with --check.
func (e *engine) receive(idx int, source string, msg []byte, app tb.Application, framed bool) (tb.Outcome, error) {
	s := e.s
	if !s.cfg.Check {
		e.acc.Mem.Reseed(s.cfg.Seed + int64(idx))
		o, err := e.acc.Receive(tb.Request{Msg: msg, Offset: idx % tb.LineSize, App: app, Framed: framed})
		if err != nil {
			if rerr := e.acc.Restart(); rerr != nil {
				err = fmt.Errorf("%w; reset after it failed: %v", err, rerr)
			}
		}
		return o, err
	}
	file, record := s.cfg.Record, idx
	if file == "" {
		// The replay needs the message in a file of its own.
		file, record = filepath.Join(s.cfg.WaveDir, fmt.Sprintf("serve-%s-r%d.vec", s.runID, idx)), 0
	}
	opt := regress.Options{RunOptions: tb.RunOptions{Offset: -1, WaveDir: s.cfg.WaveDir, App: app, Framed: framed}, Latency: s.cfg.MemLatency, Seed: s.cfg.Seed, Model: s.cfg.Model, ReplayModel: s.cfg.ReplayModel, RunID: s.runID}
	ro := opt.RunOptions
	ro.WaveName = regress.WaveName(file, record, idx, s.runID)
	run := e.acc.RunVector(idx, source, msg, ro)
	if !run.OK() {
		s.stats.mismatch()
		if file != s.cfg.Record {
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err == nil {
				err = vectors.WriteFile(file, []vectors.Record{{Source: source, Msg: msg}})
				if err != nil {
					s.log.Printf("request %d: writing its replay file: %v", idx, err)
				}
			}
		}
		res := regress.Describe(idx, file, record, run, opt)
		if s.cfg.Mismatch != nil {
			s.cfg.Mismatch(res)
		} else {
			s.log.Printf("MISMATCH request %d (%s): RTL %s, reference %s: %v; waveform %s; replay: %s", idx, source, res.Status, res.Expected, res.Diffs, res.Wave, res.Replay)
		}
	}
	return run.Outcome, run.Err
}

// answer is an outcome and the method it answered, for the statistics.
type answer struct {
	outcome
	method string
}

// business is the application between the RxEngine and the TxEngine (the
// AppCore): it reads a CALL from the App.Recv image the RTL wrote, never
// from the message, runs it against the store, and gives the App.Resp
// image the TxEngine serializes the reply from. A Get value longer than
// App.Resp holds (golden.RespDataMax) is answered by software: the image is
// then an application error whose reply is not sent.
type business struct {
	e     *engine
	ran   bool // the CALL went through answer
	big   []byte
	seqid int32
	bad   error // an App.Recv image the application could not read
}

func (b *business) answer(appRecv []byte) []byte {
	b.ran = true
	h, key, value, err := readImage(appRecv)
	if err != nil {
		b.bad = err
		img, _ := golden.BuildAppResp(golden.MethodSet, nil, err)
		return img
	}
	b.seqid = h.SeqID
	var img []byte
	if h.Method == golden.MethodGet {
		v, _ := Handler{b.e.s.store}.Get(context.Background(), h.ReqID, key)
		if len(v) > golden.RespDataMax {
			b.big = v
			img, _ = golden.BuildAppResp(golden.MethodGet, nil, errors.New("value longer than App.Resp holds"))
		} else {
			img, _ = golden.BuildAppResp(golden.MethodGet, v, nil)
		}
	} else {
		b.e.s.store.Set(key, value, h.Flags, h.Exptime)
		img, _ = golden.BuildAppResp(golden.MethodSet, nil, nil)
	}
	return img
}

// readImage reads a Set or Get from an App.Recv image: its header, key and
// value.
func readImage(img []byte) (golden.Result, []byte, []byte, error) {
	h, err := golden.ParseHeader(img)
	if err == nil && (h.Method != golden.MethodSet && h.Method != golden.MethodGet || h.KeyLen > golden.KeyMax || golden.ValueOffset+int(h.ValueLen) > len(img)) {
		err = fmt.Errorf("method %d, key %d bytes, value %d bytes in a %d-byte App.Recv", h.Method, h.KeyLen, h.ValueLen, len(img))
	}
	if err != nil {
		return h, nil, nil, err
	}
	return h, img[golden.KeyOffset : golden.KeyOffset+int(h.KeyLen)], img[golden.ValueOffset : golden.ValueOffset+int(h.ValueLen)], nil
}

// hardware is the request as the RTL handled it, if the RTL says it did
// (result OK: a Set or Get deserialized into App.Recv). A CALL went
// through the application (business.answer), and its reply is the
// TxEngine's bytes from Net.Resp, framed by the TxEngine as the request
// was; a ONEWAY Set is applied here, from the image.
func (e *engine) hardware(j *job, idx int, o tb.Outcome, simErr error, b *business) (answer, bool) {
	if simErr != nil || golden.Code(o.Status.Result()) != golden.CodeOK {
		return answer{}, false
	}
	h, key, value, err := readImage(o.Image)
	if err == nil {
		err = b.bad
	}
	if err != nil {
		e.s.log.Printf("connection %d request %d: RTL result OK but its App.Recv header is unusable (%v); software answers", j.conn, idx, err)
		return answer{}, false
	}
	a := answer{method: "Set"}
	if h.Method == golden.MethodGet {
		a.method = "Get"
	}
	if !b.ran {
		// ONEWAY: no reply (a Get's result goes nowhere).
		if h.Method == golden.MethodSet {
			e.s.store.Set(key, value, h.Flags, h.Exptime)
		}
		return a, true
	}
	switch reply := o.WrittenReply(); {
	case b.big != nil:
		a.Reply = apacheGetReply(b.seqid, b.big, j.framed)
	case reply != nil:
		a.Reply = bytes.Clone(reply)
	default:
		// The store has done the request: the reference writes its reply.
		e.s.log.Printf("connection %d request %d: the TxEngine ended %s detail %d (replied %v); the reference writes the reply", j.conn, idx, golden.Code(o.ReplyStatus.Result()), o.ReplyStatus.Detail(), o.Replied)
		var v []byte
		if h.Method == golden.MethodGet {
			v, _ = Handler{e.s.store}.Get(context.Background(), h.ReqID, key)
		}
		a.Reply = e.reply(h.Method, h.SeqID, v, j.framed)
	}
	return a, true
}

// software is the NetCore's software stack: the original message decoded
// in software, the business logic, and the reply from the reference
// serializer (golden.BuildAppResp, golden.Reply), or Apache's exception.
func (e *engine) software(j *job, idx int) answer {
	c, err := decode(j.msg, j.framed)
	if err != nil {
		var f *conn.Fault
		errors.As(err, &f)
		e.s.stats.fault()
		e.s.log.Printf("connection %d request %d: %v%s", j.conn, idx, f.Err, f.Action())
		return answer{outcome: outcome{Outcome: conn.Outcome{Reply: f.Reply, Close: f.Close}}, method: "other"}
	}
	h := Handler{e.s.store}
	var value []byte
	a := answer{method: c.name}
	if c.method == golden.MethodSet {
		_ = h.Set(context.Background(), c.set.ReqID, c.set.Key, c.set.Value, c.set.Flags, c.set.Exptime)
	} else {
		value, _ = h.Get(context.Background(), c.get.ReqID, c.get.Key)
	}
	if c.typ != golden.MsgOneway {
		a.Reply = e.reply(c.method, c.seqid, value, j.framed)
	}
	return a
}

// reply is the reference serializer's reply to a method's result. A Get
// value over golden.RespDataMax (1 MiB, the App.Resp limit of docs/abi.md
// section 11) has no App.Resp image: Apache's generated result struct
// writes that reply.
func (e *engine) reply(method uint8, seqid int32, value []byte, framed bool) []byte {
	if len(value) > golden.RespDataMax {
		return apacheGetReply(seqid, value, framed)
	}
	img, err := golden.BuildAppResp(method, value, nil)
	if err == nil {
		out, res := golden.Reply(golden.ReplyRequest{Method: method, SeqID: seqid, Framed: framed}, img)
		if res.Code == golden.CodeRespOK {
			return out
		}
		err = fmt.Errorf("reply code %s detail %d", res.Code, res.Detail)
	}
	e.s.log.Printf("reply to seqid %d: %v", seqid, err)
	return nil
}
