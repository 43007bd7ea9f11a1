package serve

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/golden"
	"arcalis/internal/memcached"
	"arcalis/regress"
	"arcalis/serve/internal/servetest"
	"arcalis/tb"
	"arcalis/vectors"
)

// The tests start the server in this process on a loopback port and talk
// to it with Apache's generated client. The model is one per process: each
// test's server is shut down before the next starts.

// clock is a settable clock for the business logic.
type clock struct{ unix atomic.Int64 }

func (c *clock) now() time.Time     { return time.Unix(c.unix.Load(), 0) }
func (c *clock) set(t int64)        { c.unix.Store(t) }
func (c *clock) advance(secs int64) { c.unix.Add(secs) }

// start starts a server with cfg's transport and options on 127.0.0.1:0
// and shuts it down at the end of the test if the test did not.
func start(t *testing.T, cfg Config) (*Server, *servetest.Log) {
	t.Helper()
	logs := &servetest.Log{}
	cfg.Addr, cfg.Model, cfg.Log = "127.0.0.1:0", tb.FindModel(), logs
	if cfg.MemLatency == 0 {
		cfg.MemLatency = 4
	}
	s, err := Start(cfg)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if !s.conns.Closing() {
			if _, err := s.Shutdown(context.Background()); err != nil {
				t.Errorf("Shutdown: %v", err)
			}
		}
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	})
	return s, logs
}

// client is Apache's generated client over the transport.
func client(t *testing.T, s *Server, transport string) (*memcached.MemcachedServiceClient, func()) {
	t.Helper()
	conf := &thrift.TConfiguration{ConnectTimeout: 5 * time.Second, SocketTimeout: 60 * time.Second}
	sock := thrift.NewTSocketConf(s.Addr().String(), conf)
	var tr thrift.TTransport = sock
	if transport == Framed {
		tr = thrift.NewTFramedTransportConf(sock, conf)
	}
	if err := tr.Open(); err != nil {
		t.Fatalf("connecting to %s: %v", s.Addr(), err)
	}
	return memcached.NewMemcachedServiceClientFactory(tr, thrift.NewTBinaryProtocolFactoryConf(conf)), func() { tr.Close() }
}

var transports = []string{Framed, Buffered}

func TestSetGet(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			s, _ := start(t, Config{Transport: tr})
			c, done := client(t, s, tr)
			defer done()
			ctx := context.Background()
			if err := c.Set(ctx, 1, []byte("alpha"), []byte("one"), 7, 0); err != nil {
				t.Fatalf("Set: %v", err)
			}
			got, err := c.Get(ctx, 2, []byte("alpha"))
			if err != nil || string(got) != "one" {
				t.Fatalf("Get(alpha) = %q, %v; want \"one\"", got, err)
			}
			// Flags are kept with the item (the IDL's Get does not return them).
			if it, ok := s.Store().Lookup([]byte("alpha")); !ok || it.Flags != 7 {
				t.Errorf("stored item %+v, %v: want flags 7", it, ok)
			}
			// Apache's client reads a reply without field 0 (the handler's nil) as nil.
			got, err = c.Get(ctx, 3, []byte("missing"))
			if err != nil || got != nil {
				t.Errorf("Get(missing) = %#v, %v; want nil, nil", got, err)
			}
			st, err := s.Shutdown(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			set, get := st.Method("Set"), st.Method("Get")
			if set.Requests != 1 || set.RTL != 1 || set.Software != 0 {
				t.Errorf("Set statistics %+v: want 1 request, handled by the RTL", set)
			}
			if get.Requests != 2 || get.RTL != 2 || get.Software != 0 {
				t.Errorf("Get statistics %+v: want 2 requests, handled by the RTL", get)
			}
			if set.Cycles == 0 || len(set.Latency) != 1 {
				t.Errorf("Set: %d simulated cycles, %d latencies: want some cycles and 1 latency", set.Cycles, len(set.Latency))
			}
		})
	}
}

func TestValueSizes(t *testing.T) {
	big := make([]byte, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range big {
		big[i] = byte(rng.Uint32())
	}
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			s, _ := start(t, Config{Transport: tr})
			c, done := client(t, s, tr)
			defer done()
			ctx := context.Background()
			for _, v := range [][]byte{{}, big} {
				key := fmt.Appendf(nil, "v%d", len(v))
				if err := c.Set(ctx, 1, key, v, 0, 0); err != nil {
					t.Fatalf("Set of %d bytes: %v", len(v), err)
				}
				got, err := c.Get(ctx, 2, key)
				if err != nil || !bytes.Equal(got, v) {
					t.Fatalf("Get of the %d-byte value: %d bytes, %v", len(v), len(got), err)
				}
				// An empty value is not a missing one: Apache's client reads it non-nil.
				if got == nil {
					t.Errorf("Get of the empty value returned nil, want an empty slice")
				}
			}
			st, err := s.Shutdown(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			// A 1 MiB value fits the App.Recv the NetCore offers (tb.TightCapLines:
			// up to 65,535 lines): the RTL handles both Sets.
			if set := st.Method("Set"); set.RTL != 2 {
				t.Errorf("Set statistics %+v: want both Sets handled by the RTL", set)
			}
		})
	}
}

func TestExptime(t *testing.T) {
	var clk clock
	const t0 = 1_800_000_000 // a Unix time above MaxRelativeExptime
	clk.set(t0)
	s, _ := start(t, Config{Transport: Framed, Clock: clk.now})
	c, done := client(t, s, Framed)
	defer done()
	ctx := context.Background()
	items := []struct {
		key     string
		exptime int32
	}{
		{"never", 0}, {"rel10", 10}, {"rel30d", MaxRelativeExptime},
		{"abs", t0 + 100}, {"abspast", t0 - 1}, {"neg", -1},
	}
	for _, it := range items {
		if err := c.Set(ctx, 1, []byte(it.key), []byte("v-"+it.key), 0, it.exptime); err != nil {
			t.Fatalf("Set %s: %v", it.key, err)
		}
	}
	check := func(when string, live ...string) {
		t.Helper()
		for _, it := range items {
			got, err := c.Get(ctx, 2, []byte(it.key))
			want := []byte(nil)
			for _, l := range live {
				if l == it.key {
					want = []byte("v-" + it.key)
				}
			}
			if err != nil || !bytes.Equal(got, want) || (want == nil) != (got == nil) {
				t.Errorf("%s: Get(%s) = %q, %v; want %q", when, it.key, got, err, want)
			}
		}
	}
	check("at once", "never", "rel10", "rel30d", "abs")
	clk.advance(9)
	check("after 9 s", "never", "rel10", "rel30d", "abs")
	clk.advance(1)
	check("after 10 s", "never", "rel30d", "abs")
	clk.set(t0 + 100)
	check("at the absolute time", "never", "rel30d")
	clk.set(t0 + MaxRelativeExptime)
	check("after 30 days", "never")
}

func TestManyConnections(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			s, _ := start(t, Config{Transport: tr})
			const conns, each = 8, 50
			var wg sync.WaitGroup
			errs := make(chan error, conns)
			for g := range conns {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c, done := client(t, s, tr)
					defer done()
					ctx := context.Background()
					for i := range each {
						key := fmt.Appendf(nil, "c%d-k%d", g, i%10)
						val := fmt.Appendf(nil, "conn %d request %d", g, i)
						if err := c.Set(ctx, int64(i), key, val, int32(g), 0); err != nil {
							errs <- fmt.Errorf("connection %d Set %d: %v", g, i, err)
							return
						}
						got, err := c.Get(ctx, int64(i), key)
						if err != nil || !bytes.Equal(got, val) {
							errs <- fmt.Errorf("connection %d Get %d: %q, %v; want %q", g, i, got, err, val)
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			st, err := s.Shutdown(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if st.Requests != 2*conns*each || st.Method("Set").RTL != conns*each || st.Method("Get").RTL != conns*each {
				t.Errorf("%d requests, Set %+v, Get %+v: want %d, %d Sets and %d Gets by the RTL",
					st.Requests, st.Method("Set"), st.Method("Get"), 2*conns*each, conns*each, conns*each)
			}
		})
	}
}

// exchange sends raw bytes on a new connection to addr and returns every
// byte that came back, and whether the server closed the connection
// (else it was still open after a quiet second).
func exchange(t *testing.T, addr net.Addr, req []byte) ([]byte, bool) {
	t.Helper()
	got, closed, err := exchangeErr(addr, req)
	if err != nil {
		t.Fatal(err)
	}
	return got, closed
}

// exchangeErr is exchange for any goroutine.
func exchangeErr(addr net.Addr, req []byte) ([]byte, bool, error) {
	c, err := net.Dial("tcp", addr.String())
	if err != nil {
		return nil, false, err
	}
	defer c.Close()
	if _, err := c.Write(req); err != nil {
		return nil, false, fmt.Errorf("writing to %s: %w", addr, err)
	}
	var got []byte
	buf := make([]byte, 4096)
	for {
		c.SetReadDeadline(time.Now().Add(time.Second))
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				return got, false, nil
			}
			return got, true, nil // EOF or reset: closed
		}
	}
}

// message is a strict binary-protocol CALL header and body.
func message(name string, typ byte, seqid int32, body ...byte) []byte {
	b := []byte{0x80, 0x01, 0x00, typ}
	b = binary.BigEndian.AppendUint32(b, uint32(len(name)))
	b = append(b, name...)
	b = binary.BigEndian.AppendUint32(b, uint32(seqid))
	return append(b, body...)
}

func framed(msg []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(msg))), msg...)
}

// setBody is Set's arguments: req_id, key, value, flags, exptime, STOP.
func setBody(key, value string) []byte {
	b := []byte{10, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9}
	b = append(append(append(b, 11, 0, 2), binary.BigEndian.AppendUint32(nil, uint32(len(key)))...), key...)
	b = append(append(append(b, 11, 0, 3), binary.BigEndian.AppendUint32(nil, uint32(len(value)))...), value...)
	return append(b, 8, 0, 4, 0, 0, 0, 1, 8, 0, 5, 0, 0, 0, 0, 0)
}

// TestMalformedLikeApache sends the same bytes to this server and to
// Apache's TSimpleServer with the generated processor, and wants the same
// reply bytes and the same fate of the connection, for malformed input and
// for requests the RTL rejects but Apache accepts.
func TestMalformedLikeApache(t *testing.T) {
	longKey := strings.Repeat("k", 300)
	oldStyle := binary.BigEndian.AppendUint32(nil, 3) // non-strict header: name length, name, type, seqid
	oldStyle = append(append(oldStyle, "Set"...), 1, 0, 0, 0, 5)
	oldStyle = append(oldStyle, setBody("old", "style")...)
	cases := []struct {
		name string
		msg  []byte
	}{
		{"unknown method", message("Foo", 1, 7, 0)},
		{"bad field type in Set", message("Set", 1, 8, 0x20, 0, 1, 0)},
		{"bad version", append([]byte{0x80, 0x02, 0x00, 0x01}, message("Set", 1, 9, 0)[4:]...)},
		{"negative key length in Get", message("Get", 1, 10, 11, 0, 2, 0xFF, 0xFF, 0xFF, 0xFF)},
		{"key over 256 bytes (RTL KEY_TOO_LONG, software)", message("Set", 1, 11, setBody(longKey, "v")...)},
		{"non-strict header (RTL BAD_VERSION, software)", oldStyle},
		{"nested field in Set (RTL NESTED_UNSUPPORTED, software)", message("Set", 1, 12, append([]byte{12, 0, 9, 0}, setBody("n", "v")...)...)},
		{"Set as a REPLY message (RTL BAD_MSG_TYPE, software)", message("Set", 2, 13, setBody("r", "v")...)},
		{"Get of a key no Set stored", message("Get", 1, 14, 11, 0, 2, 0, 0, 0, 1, 'x', 0)},
	}
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			s, logs := start(t, Config{Transport: tr})
			ap, err := StartApache("127.0.0.1:0", tr, NewStore(nil), func(string) {})
			if err != nil {
				t.Fatal(err)
			}
			defer ap.Stop()
			for _, c := range cases {
				req := c.msg
				if tr == Framed {
					req = framed(req)
				}
				// Both at once: each waits a quiet second on a connection left open.
				var want []byte
				var wantClosed bool
				var aerr error
				apache := make(chan struct{})
				go func() { want, wantClosed, aerr = exchangeErr(ap.Addr(), req); close(apache) }()
				got, closed := exchange(t, s.Addr(), req)
				<-apache
				if aerr != nil {
					t.Fatalf("%s: Apache's server: %v", c.name, aerr)
				}
				if !bytes.Equal(got, want) || closed != wantClosed {
					t.Errorf("%s: reply % x (closed %v), Apache's % x (closed %v)", c.name, got, closed, want, wantClosed)
				}
			}
			// Each malformed request left a log line naming its connection.
			if n := strings.Count(logs.String(), "connection "); n < 4 {
				t.Errorf("%d log lines name a connection, want one for each of the 4 malformed requests:\n%s", n, logs.String())
			}
		})
	}
}

// TestGarbage sends bytes that are no Thrift at all, then checks that a
// good client is still served.
func TestGarbage(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr, func(t *testing.T) {
			s, logs := start(t, Config{Transport: tr})
			// "GET " read as a frame length is 1,195,725,856 (over MaxFrame),
			// read as a non-strict name length the same (over the message limit).
			got, closed := exchange(t, s.Addr(), []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
			if !closed || len(got) != 0 {
				t.Errorf("garbage: got % x, closed %v; want the connection closed without a reply", got, closed)
			}
			if !strings.Contains(logs.String(), "1195725856") {
				t.Errorf("no log line names the length read from the garbage:\n%s", logs.String())
			}
			c, done := client(t, s, tr)
			defer done()
			if err := c.Set(context.Background(), 1, []byte("after"), []byte("garbage"), 0, 0); err != nil {
				t.Fatalf("Set after the garbage: %v", err)
			}
			if v, err := c.Get(context.Background(), 2, []byte("after")); err != nil || string(v) != "garbage" {
				t.Fatalf("Get after the garbage: %q, %v", v, err)
			}
		})
	}
}

// TestFrameLimit: a frame length one above the limit is refused from its
// length word alone, and the limit itself is accepted as a length.
func TestFrameLimit(t *testing.T) {
	s, logs := start(t, Config{Transport: Framed})
	got, closed := exchange(t, s.Addr(), binary.BigEndian.AppendUint32(nil, MaxFrame+1))
	if !closed || len(got) != 0 {
		t.Errorf("frame of %d bytes: got % x, closed %v; want the connection closed without a reply", MaxFrame+1, got, closed)
	}
	if !strings.Contains(logs.String(), fmt.Sprintf("frame length %d is over the limit of %d", MaxFrame+1, MaxFrame)) {
		t.Errorf("no log line for the refused frame:\n%s", logs.String())
	}
	// The largest frame length is taken: the server waits for its bytes.
	got, closed = exchange(t, s.Addr(), binary.BigEndian.AppendUint32(nil, MaxFrame))
	if closed || len(got) != 0 {
		t.Errorf("frame of %d bytes: got % x, closed %v; want the server waiting for the frame", MaxFrame, got, closed)
	}
}

func TestOneway(t *testing.T) {
	s, _ := start(t, Config{Transport: Framed})
	// A ONEWAY Set then a CALL Get on one connection: the only reply is the Get's.
	req := append(framed(message("Set", 4, 1, setBody("ow", "way")...)), framed(message("Get", 1, 2, 11, 0, 2, 0, 0, 0, 2, 'o', 'w', 0))...)
	got, _ := exchange(t, s.Addr(), req)
	// Apache's Get reply: REPLY, "Get", seqid 2, field 0 binary "way", STOP.
	want := framed(append([]byte{0x80, 1, 0, 2, 0, 0, 0, 3, 'G', 'e', 't', 0, 0, 0, 2, 11, 0, 0, 0, 0, 0, 3, 'w', 'a', 'y'}, 0))
	if !bytes.Equal(got, want) {
		t.Errorf("replies % x, want only the Get's % x", got, want)
	}
}

// TestRecordAndShutdown serves requests with --record and --check, shuts
// the server down with a 1 MiB Set in flight, and runs the record through
// arcalis run's runner.
func TestRecordAndShutdown(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "served.vec")
	var mismatches []regress.Result
	// The last request, a 1 MiB Set, waits in the model's goroutine until
	// released. (Set before the server starts: the goroutine that reads
	// testRun is started after it, and may take the Set as soon as it is
	// written.)
	big := message("Set", 1, 77, setBody("big", strings.Repeat("b", 1<<20))...)
	inModel, release := make(chan struct{}), make(chan struct{})
	testRun = func(msg []byte) {
		if len(msg) == len(big) {
			close(inModel)
			<-release
		}
	}
	defer func() { testRun = nil }()
	s, _ := start(t, Config{Transport: Framed, Record: rec, Check: true, WaveDir: filepath.Join(dir, "waves"), Seed: 3,
		Mismatch: func(r regress.Result) { mismatches = append(mismatches, r) }})
	// (released before the server's cleanup, which runs after this one,
	// should the test end early: the cleanup waits for the model)
	releaseSet := sync.OnceFunc(func() { close(release) })
	t.Cleanup(releaseSet)
	c, done := client(t, s, Framed)
	ctx := context.Background()
	sent := 0
	for i := range 20 {
		key := fmt.Appendf(nil, "rk%d", i%7)
		if err := c.Set(ctx, int64(i), key, bytes.Repeat([]byte{byte(i)}, i*37), int32(i), 0); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Get(ctx, int64(i), key); err != nil {
			t.Fatal(err)
		}
		sent += 2
	}
	done()
	// A malformed request is recorded too: it reached the engine.
	if _, closed := exchange(t, s.Addr(), framed(message("Set", 1, 1, 0x20, 0, 1, 0))); !closed {
		t.Error("malformed Set: connection not closed")
	}
	sent++

	// The last request: the 1 MiB Set on a raw connection, then Shutdown.
	raw, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Write(framed(big)); err != nil {
		t.Fatal(err)
	}
	sent++
	// Shutdown begins while the Set is in the model's goroutine.
	select {
	case <-inModel:
	case <-time.After(time.Minute):
		t.Fatal("the 1 MiB Set did not reach the model in a minute")
	}
	type stopped struct {
		st  Stats
		err error
	}
	stop := make(chan stopped)
	go func() {
		st, err := s.Shutdown(context.Background())
		stop <- stopped{st, err}
	}()
	select {
	case <-stop:
		t.Fatal("Shutdown returned with a request in the model")
	case <-time.After(200 * time.Millisecond):
	}
	// No new connection is taken once Shutdown has begun.
	if c, err := net.Dial("tcp", s.Addr().String()); err == nil {
		c.Close()
		t.Error("a connection was accepted during Shutdown")
	}
	releaseSet()
	res := <-stop
	st, err := res.st, res.err
	if err != nil {
		t.Fatal(err)
	}
	reply, err := io.ReadAll(raw)
	// docs/abi.md section 8: the void Set's reply for seqid 77, framed.
	want := framed([]byte{0x80, 1, 0, 2, 0, 0, 0, 3, 'S', 'e', 't', 0, 0, 0, 77, 0})
	if err != nil || !bytes.Equal(reply, want) {
		t.Errorf("in-flight Set: reply % x, %v; want % x", reply, err, want)
	}
	if st.Requests != sent || st.Method("Set").RTL != 21 || st.Method("Get").RTL != 20 || st.Mismatches != 0 || len(mismatches) != 0 {
		t.Errorf("statistics: %d requests, Set %+v, Get %+v, %d mismatches %v; want %d, 21 Sets and 20 Gets by the RTL, none",
			st.Requests, st.Method("Set"), st.Method("Get"), st.Mismatches, mismatches, sent)
	}

	recs, err := vectors.ReadFile(rec)
	if err != nil {
		t.Fatalf("reading the record: %v", err)
	}
	if len(recs) != sent {
		t.Fatalf("the record holds %d requests, want %d", len(recs), sent)
	}
	if !bytes.Equal(recs[len(recs)-1].Msg, big) {
		t.Errorf("the last record is not the 1 MiB Set as sent (%d bytes, want %d)", len(recs[len(recs)-1].Msg), len(big))
	}
	opt := regress.Options{RunOptions: tb.RunOptions{Offset: -1}, Latency: 4, Seed: 3, Record: -1, Model: tb.FindModel()}
	plan, err := regress.Load([]string{rec}, opt)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := regress.Run(context.Background(), plan, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]int{}
	for _, r := range stats.Results {
		codes[r.Status]++
		if !r.Match {
			t.Errorf("record %d: %s, reference %s: %v", r.Record, r.Status, r.Expected, r.Diffs)
		}
	}
	if codes["ok"] != 41 || codes[golden.CodeBadType.String()] != 1 {
		t.Errorf("arcalis run's statuses %v: want 41 ok (21 Sets, 20 Gets), 1 BAD_TYPE", codes)
	}
}

// TestEmptyFrame: a frame of length 0 reaches the engine as an empty
// message (TRUNCATED at offset 0) and closes the connection (docs/serve.md).
func TestEmptyFrame(t *testing.T) {
	s, logs := start(t, Config{Transport: Framed, Check: true, WaveDir: t.TempDir()})
	got, closed := exchange(t, s.Addr(), []byte{0, 0, 0, 0})
	if !closed || len(got) != 0 {
		t.Errorf("empty frame: got % x, closed %v; want the connection closed without a reply", got, closed)
	}
	st, err := s.Shutdown(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Requests != 1 || st.Mismatches != 0 || st.Faults != 1 {
		t.Errorf("%d requests, %d mismatches, %d faults: want 1, 0, 1\n%s", st.Requests, st.Mismatches, st.Faults, logs.String())
	}
}

// TestCheckMismatch: with a memory that answers loads with errors the RTL
// ends with LOAD_FAULT where the reference says OK; --check reports each
// such request with a waveform and a replay command, and the client is
// still answered (by software).
func TestCheckMismatch(t *testing.T) {
	testMemory = func(m *tb.MemConfig) { m.LoadFault = 1 }
	defer func() { testMemory = nil }()
	waves := t.TempDir()
	var got []regress.Result
	s, _ := start(t, Config{Transport: Framed, Check: true, WaveDir: waves, Seed: 5,
		Mismatch: func(r regress.Result) { got = append(got, r) }})
	c, done := client(t, s, Framed)
	defer done()
	if err := c.Set(context.Background(), 1, []byte("f"), []byte("faulty"), 0, 0); err != nil {
		t.Fatalf("Set through a faulty memory: %v", err)
	}
	if v, err := c.Get(context.Background(), 2, []byte("f")); err != nil || string(v) != "faulty" {
		t.Fatalf("Get: %q, %v", v, err)
	}
	st, err := s.Shutdown(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Mismatches == 0 || len(got) != st.Mismatches || st.Method("Set").Software != 1 {
		t.Fatalf("%d mismatches, %d reported, Set %+v: want the Set reported and handled by software", st.Mismatches, len(got), st.Method("Set"))
	}
	r := got[0]
	if r.Status != golden.CodeLoadFault.String() || r.Expected != "ok" {
		t.Errorf("reported RTL %s, reference %s; want LOAD_FAULT and ok", r.Status, r.Expected)
	}
	// The replay names a one-record file holding the request, run as request 0 was.
	file := filepath.Join(waves, fmt.Sprintf("serve-%s-r0.vec", s.runID))
	if want := fmt.Sprintf("arcalis run --record 0 --offset 0 --mem-latency 4 --seed 5 --wave %s %s", waves, file); r.Replay != want {
		t.Errorf("replay %q, want %q", r.Replay, want)
	}
	recs, err := vectors.ReadFile(file)
	if err != nil || len(recs) != 1 || !bytes.HasPrefix(recs[0].Msg, []byte{0x80, 1, 0, 1, 0, 0, 0, 3, 'S', 'e', 't'}) {
		t.Errorf("replay file: %d records, %v; want the Set", len(recs), err)
	}
	if r.Wave == "" {
		t.Errorf("no waveform: %v", r.Diffs)
	} else if fi, err := os.Stat(r.Wave); err != nil || fi.Size() == 0 {
		t.Errorf("waveform %s: %v", r.Wave, err)
	}
}
