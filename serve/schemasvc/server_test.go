package schemasvc

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/internal/memcached"
	"arcalis/serve"
	"arcalis/serve/internal/servetest"
	"arcalis/tb/schemarx"
	"arcalis/tb/schematx"
	"arcalis/thriftidl/schema"
	"arcalis/vectors"
)

// VPI holds one model per process: TestServices runs each service in a
// child process (this test binary with envService set), two at a time. A
// child builds the service's model with make schema-pair-model, serves it with
// each transport in turn, and talks to it with Apache's generated client.
const envService = "SCHEMASVC_SERVICE"

// rounds of calls each server gets from its well-behaved client; garbage
// arrives on other connections between them.
const rounds = 4

func TestServices(t *testing.T) {
	if name := os.Getenv(envService); name != "" {
		serviceChild(t, name)
		return
	}
	ctx := t.Context()
	sem := make(chan struct{}, 2) // two cores
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sem <- struct{}{}
			defer func() { <-sem }()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestServices$", "-test.v", "-test.count=1", "-test.timeout=0")
			cmd.Env = append(slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, envService+"=") }),
				envService+"="+name)
			out, err := cmd.CombinedOutput()
			switch {
			case err != nil:
				t.Fatalf("%s: the child failed (%v):\n%s", name, err, out)
			case !bytes.Contains(out, []byte("--- PASS: TestServices")):
				t.Fatalf("%s: the child did not pass:\n%s", name, out)
			case testing.Verbose():
				t.Logf("%s:\n%s", name, out)
			}
		})
	}
}

// serviceChild checks one service over both transports.
func serviceChild(t *testing.T, name string) {
	c, err := PairCase(name)
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	table, err := c.Table(root)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := c.Build(root, 1)
	if err != nil {
		t.Fatal(err)
	}
	sc := scripts[name]
	if sc.round == nil {
		t.Fatalf("no test script for %s", name)
	}
	if name == "MemcachedService" {
		t.Run("from-image", func(t *testing.T) { fromImage(t, table, lib, c.Width) })
		t.Run("oneway", func(t *testing.T) { oneway(t, table, lib, c.Width) })
		t.Run("reply-mismatch", func(t *testing.T) { replyMismatch(t, table, lib, c.Width) })
		t.Run("header-mismatch", func(t *testing.T) { rtlHeaderMismatch(t, table, lib, c.Width) })
	}
	for _, tr := range []string{serve.Framed, serve.Buffered} {
		t.Run(tr, func(t *testing.T) {
			var logb servetest.Log
			srv, err := Start(Config{Addr: "127.0.0.1:0", Transport: tr, Table: table, Model: lib, Width: c.Width, Log: &logb})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if t.Failed() {
					t.Logf("server log:\n%s", logb.String())
				}
			}()
			st := exercise(t, srv.Addr().String(), tr, table, sc)
			stats, err := srv.Shutdown(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if t.Failed() {
				return
			}
			checkStats(t, tr, table, sc, st, stats)
			if !strings.Contains(logb.String(), "recv_header refused the header: BAD_VERSION at message byte 0 (as the reference); Apache's reader's header is used") {
				t.Errorf("the log does not say that the non-strict headers were Apache's:\n%s", logb.String())
			}
			var out bytes.Buffer
			if err := stats.Write(&out); err != nil || !strings.Contains(out.String(), "recv_header.sv then recv_schema.sv") ||
				!strings.Contains(out.String(), "reply: RTL respFunction") ||
				!strings.Contains(out.String(), "; 0 header mismatches") || !strings.Contains(out.String(), "; 0 reply mismatches") {
				t.Errorf("stats.Write: %v, %q: want the receive and reply paths named and no mismatch", err, out.String())
			}
			t.Logf("%s %s:\n%s", name, tr, out.String())
		})
	}
}

// alterStores is the model with every byte 'A' it stores turned into 'B'.
type alterStores struct{ schemarx.RecvDUT }

func (a alterStores) Cycle(in *schemarx.RecvInputs) (*schemarx.RecvOutputs, error) {
	out, err := a.RecvDUT.Cycle(in)
	if err == nil && out.StValid {
		for i := range out.StData {
			if out.StMask>>i&1 != 0 && out.StData[i] == 'A' {
				out.StData[i] = 'B'
			}
		}
	}
	return out, err
}

// fromImage shows that the business logic reads the App.Recv image the
// module wrote, not the message: with the module's stores altered, a Set's
// value comes back altered.
func fromImage(t *testing.T, table *schema.Table, lib string, width int) {
	testRx = func(d schemarx.RecvDUT) schemarx.RecvDUT { return alterStores{d} }
	defer func() { testRx = nil }()
	srv, err := Start(Config{Addr: "127.0.0.1:0", Transport: serve.Framed, Table: table, Model: lib, Width: width, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	trans, pf := client(t, srv.Addr().String(), serve.Framed)
	defer trans.Close()
	c := memcached.NewMemcachedServiceClientFactory(trans, pf)
	if err := c.Set(ctx, 1, []byte("key"), []byte("xAAx"), 0, 0); err != nil {
		t.Fatal(err)
	}
	// The Get's key has no 'A': it finds what the Set's image held.
	if v, err := c.Get(ctx, 2, []byte("key")); err != nil || string(v) != "xBBx" {
		t.Errorf("Get = %q, %v; want the value as the altered image held it, \"xBBx\"", v, err)
	}
}

// alterReplies is resp_schema with every byte 'A' it writes turned into 'B'.
type alterReplies struct{ schematx.DUT }

func (a alterReplies) Cycle(in *schematx.Inputs) (*schematx.Outputs, error) {
	out, err := a.DUT.Cycle(in)
	if err == nil && out.OutValid {
		for i := range out.OutLen {
			if out.OutData[i] == 'A' {
				out.OutData[i] = 'B'
			}
		}
	}
	return out, err
}

// replyMismatch shows that a reply of resp_schema unlike the reference's
// does not reach the client: with the module's bytes altered, a Get is
// answered with the reference's bytes, and the log and the statistics
// count the mismatch.
func replyMismatch(t *testing.T, table *schema.Table, lib string, width int) {
	testTx = func(d schematx.DUT) schematx.DUT { return alterReplies{d} }
	defer func() { testTx = nil }()
	v, st, log, err := setGet(t, table, lib, width, "xAAx")
	if err != nil || v != "xAAx" {
		t.Errorf("Get = %q, %v; want the reference's reply, \"xAAx\"", v, err)
	}
	if get := st.Method("Get"); st.ReplyMismatches != 1 || get.Mismatches != 1 || get.Replies != 1 || st.Method("Set").Replies != 1 {
		t.Errorf("%d reply mismatches, Get's %d of %d RTL replies, Set's RTL replies %d; want 1, 1 of 1, 1",
			st.ReplyMismatches, get.Mismatches, get.Replies, st.Method("Set").Replies)
	}
	if !regexp.MustCompile(`\(Get, seqid \d+\): reply MISMATCH: first differing byte \d+ .*resp_schema RESP_OK .*reference RESP_OK`).MatchString(log) {
		t.Errorf("the log does not name the mismatch:\n%s", log)
	}
}

// setGet starts a framed server of MemcachedService on lib, sets "key"
// to value (seqid 1) and gets it (seqid 2) with Apache's client, and
// returns what Get returned, the statistics, the server's log and Get's
// error.
func setGet(t *testing.T, table *schema.Table, lib string, width int, value string) (string, Stats, string, error) {
	t.Helper()
	var logb servetest.Log
	srv, err := Start(Config{Addr: "127.0.0.1:0", Transport: serve.Framed, Table: table, Model: lib, Width: width, Log: &logb})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	trans, pf := client(t, srv.Addr().String(), serve.Framed)
	defer trans.Close()
	c := memcached.NewMemcachedServiceClientFactory(trans, pf)
	if err := c.Set(ctx, 1, []byte("key"), []byte(value), 0, 0); err != nil {
		t.Fatal(err)
	}
	v, gerr := c.Get(ctx, 2, []byte("key"))
	st, err := srv.Shutdown(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return string(v), st, logb.String(), gerr
}

// alterHeaders is schema_rx with its outputs changed by bug at every edge.
type alterHeaders struct {
	schemarx.RecvDUT
	bug func(*schemarx.RecvOutputs)
}

func (a alterHeaders) Cycle(in *schemarx.RecvInputs) (*schemarx.RecvOutputs, error) {
	out, err := a.RecvDUT.Cycle(in)
	if err == nil {
		a.bug(out)
	}
	return out, err
}

// rtlHeaderMismatch shows that a header result of recv_header unlike the
// reference's, or a run of schema_rx that breaks the protocol before it,
// does not reach the client: the request is dispatched as Apache's reader
// read the header (a wrong seqid or method would fail Apache's client),
// its args are walked by the reference, and the log and the statistics
// count the mismatch.
func rtlHeaderMismatch(t *testing.T, table *schema.Table, lib string, width int) {
	for _, tc := range []struct {
		name string
		bug  func(*schemarx.RecvOutputs)
		ran  int      // recv_header runs that ended, per request
		log  []string // a line per request: Set's (seqid 1), Get's (seqid 2)
	}{
		{
			// Set's seqid off by one, Get found as Set (method 1).
			name: "result",
			bug: func(o *schemarx.RecvOutputs) {
				switch {
				case !o.Header.Done:
				case o.Header.Method == 2:
					o.Header.Method = 1
				default:
					o.Header.SeqID++
				}
			},
			ran: 1,
			log: []string{
				`\(Set, seqid 1\): header MISMATCH: recv_header: seqid_o 2, want 1; dispatched as Apache's reader read the header, the args walked by the reference
`,
				`\(Get, seqid 2\): header MISMATCH: recv_header: method_o 1, want 2; dispatched as Apache's reader read the header, the args walked by the reference
`,
			},
		},
		{
			// recv_header's done_o never shows, so the walk's stores come
			// before it.
			name: "no-header-done",
			bug:  func(o *schemarx.RecvOutputs) { o.Header.Done = false },
			log: []string{
				`\(Set, seqid 1\): header MISMATCH: recv_header broke the protocol: .*recv_schema acts .* before recv_header's done_o.*; the model is reset
`,
				`\(Get, seqid 2\): header MISMATCH: recv_header broke the protocol: .*recv_schema acts .* before recv_header's done_o.*; the model is reset
`,
			},
		},
		{
			// Nothing shows: a hang, then the model is reset.
			name: "hang",
			bug: func(o *schemarx.RecvOutputs) {
				o.Header.Done, o.Done, o.Header.Take, o.Take, o.StValid = false, false, 0, 0, false
			},
			log: []string{
				`\(Set, seqid 1\): header MISMATCH: recv_header broke the protocol: .*hang.*; the model is reset
`,
				`\(Get, seqid 2\): header MISMATCH: recv_header broke the protocol: .*hang.*; the model is reset
`,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testRx = func(d schemarx.RecvDUT) schemarx.RecvDUT { return alterHeaders{d, tc.bug} }
			defer func() { testRx = nil }()
			v, st, log, err := setGet(t, table, lib, width, "value")
			if err != nil || v != "value" {
				t.Errorf("Get = %q, %v; want \"value\"", v, err)
			}
			for _, name := range []string{"Set", "Get"} {
				m := st.Method(name)
				if m.HeaderMismatches != 1 || m.HeaderApache != 0 || len(m.HeaderCycles) != tc.ran || m.RTL != 0 || m.ByReference != 1 || m.Replies != 1 || m.Mismatches != 0 {
					t.Errorf("%s: %d header mismatches, %d by Apache, %d header runs, %d RTL OK, %d args by reference, %d RTL replies (%d mismatches); want 1, 0, %d, 0, 1, 1 (0)",
						name, m.HeaderMismatches, m.HeaderApache, len(m.HeaderCycles), m.RTL, m.ByReference, m.Replies, m.Mismatches, tc.ran)
				}
			}
			if st.HeaderMismatches != 2 || st.ReplyMismatches != 0 {
				t.Errorf("%d header mismatches, %d reply mismatches; want 2, 0", st.HeaderMismatches, st.ReplyMismatches)
			}
			for _, re := range tc.log {
				if !regexp.MustCompile(`connection \d+ request \d+ ` + re).MatchString(log) {
					t.Errorf("the log has no line matching %q:\n%s", re, log)
				}
			}
		})
	}
}

// oneway sends a ONEWAY Set, then a CALL Get of its key, on one
// connection: only the Get is answered, with the Set's value.
func oneway(t *testing.T, table *schema.Table, lib string, width int) {
	srv, err := Start(Config{Addr: "127.0.0.1:0", Transport: serve.Framed, Table: table, Model: lib, Width: width, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	buf := thrift.NewTMemoryBuffer()
	p := thrift.NewTBinaryProtocolConf(buf, &thrift.TConfiguration{})
	set, err := vectors.EncodeMessage(p, buf, "Set", thrift.ONEWAY, 1, &memcached.MemcachedServiceSetArgs{Key: []byte("ow"), Value: []byte("one way")})
	if err != nil {
		t.Fatal(err)
	}
	get, err := vectors.EncodeMessage(p, buf, "Get", thrift.CALL, 2, &memcached.MemcachedServiceGetArgs{Key: []byte("ow")})
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, srv.Addr().String(), append(wrap(set, true), wrap(get, true)...))
	defer c.Close()
	r := thrift.NewTBinaryProtocolConf(thrift.NewTFramedTransportConf(thrift.NewStreamTransportR(c), &thrift.TConfiguration{}), &thrift.TConfiguration{})
	name, typ, seq, err := r.ReadMessageBegin(ctx)
	var res memcached.MemcachedServiceGetResult
	if err == nil {
		err = res.Read(ctx, r)
	}
	if err != nil || name != "Get" || typ != thrift.REPLY || seq != 2 || string(res.Success) != "one way" {
		t.Errorf("first reply: %s type %d seqid %d, %q, %v; want Get REPLY seqid 2, \"one way\"", name, typ, seq, res.Success, err)
	}
}

// sent is what the garbage connections sent: the method given garbage
// args, and how many faults the server should count.
type sent struct {
	garbageMethod string
	faults        int
}

// exercise runs the rounds of the script on a well-behaved client and,
// between them, garbage on other connections; each round's replies are
// checked by the script.
func exercise(t *testing.T, addr, tr string, table *schema.Table, sc script) sent {
	trans, pf := client(t, addr, tr)
	defer trans.Close()
	framed := tr == serve.Framed
	garbageMethod := table.Methods[0].Name
	faults := 0
	// The last round's headers are non-strict (name length first), which
	// Apache's reader accepts: the args then start 4 bytes earlier.
	lenient := thrift.NewTBinaryProtocolFactoryConf(&thrift.TConfiguration{TBinaryStrictWrite: thrift.BoolPtr(false)})
	for r := range rounds {
		if r == rounds-1 {
			pf = lenient
		}
		sc.round(t, trans, pf, r)
		switch r {
		case 0:
			// Not Thrift at all: the header is unreadable (framed: a frame
			// length over the limit), the connection is closed unanswered.
			reply := rawExchange(t, addr, []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
			if len(reply) != 0 {
				t.Errorf("an HTTP request got % x; want the connection closed with no reply", reply)
			}
			faults++
		case 1:
			// A known method whose args hold a field of type 0x11, which
			// Apache cannot read: PROTOCOL_ERROR, then the connection is
			// closed (framed: the RTL ends BAD_TYPE; unframed: Apache's
			// skip fails before the message reaches it).
			msg := message(garbageMethod, 77, []byte{0x0a, 0x00, 0x01, 0, 0, 0, 0, 0, 0, 0, 9, 0x11, 0x00, 0x02, 0xff, 0xff, 0x00})
			reply := rawExchange(t, addr, wrap(msg, framed))
			text := "" // unframed: Apache's own text
			if framed {
				// The type byte follows the header and the 11 bytes of req_id.
				text = fmt.Sprintf("arcalis recv_schema: BAD_TYPE at message byte %d", 12+len(garbageMethod)+11)
			}
			checkException(t, reply, framed, garbageMethod, 77, thrift.PROTOCOL_ERROR, text)
			if !framed {
				faults++
			}
		case 2:
			// An unknown method: Apache's UNKNOWN_METHOD exception, the
			// connection stays open for the next request (the same again).
			msg := message("NoSuchMethod", 5, []byte{0})
			want := apacheException(t, "NoSuchMethod", 5, thrift.NewTApplicationException(thrift.UNKNOWN_METHOD, "Unknown function NoSuchMethod"), framed)
			if got := keptOpen(t, addr, append(wrap(msg, framed), wrap(msg, framed)...), 2*len(want)); !bytes.Equal(got, append(slices.Clone(want), want...)) {
				t.Errorf("unknown method twice: got % x\nwant % x twice", got, want)
			}
			faults += 2
		}
	}
	return sent{garbageMethod: garbageMethod, faults: faults}
}

// checkStats checks the server's counts against the calls the test made.
func checkStats(t *testing.T, tr string, table *schema.Table, sc script, s sent, st Stats) {
	t.Helper()
	framed := tr == serve.Framed
	total := 0
	for _, m := range table.Methods {
		want := rounds * sc.perRound[m.Name]
		rejected := 0
		if framed && m.Name == s.garbageMethod {
			rejected = 1
		}
		got := st.Method(m.Name)
		if got.RTL != want || got.Rejected != rejected || got.Requests != want+rejected || got.Internal != 0 {
			t.Errorf("%s: %d requests, %d RTL OK, %d rejected, %d internal errors; want %d, %d, %d, 0",
				m.Name, got.Requests, got.RTL, got.Rejected, got.Internal, want+rejected, want, rejected)
		}
		// recv_header checked every header; it refuses the last round's,
		// non-strict, which Apache's reader accepts (docs/abi.md section 7).
		if got.HeaderMismatches != 0 || got.HeaderApache != sc.perRound[m.Name] || len(got.HeaderCycles) != got.Requests || slices.Contains(got.HeaderCycles, 0) {
			t.Errorf("%s: %d header mismatches, %d headers by Apache, recv_header cycles %v; want 0, %d (the last round's), one per request, none of 0 cycles",
				m.Name, got.HeaderMismatches, got.HeaderApache, got.HeaderCycles, sc.perRound[m.Name])
		}
		if got.Thrown != rounds*sc.thrown[m.Name] {
			t.Errorf("%s: %d exceptions thrown, want %d", m.Name, got.Thrown, rounds*sc.thrown[m.Name])
		}
		for _, c := range got.Cycles {
			if c == 0 {
				t.Errorf("%s: a request of 0 cycles", m.Name)
			}
		}
		// Every answered call's reply came from resp_schema, as the
		// reference's.
		replies := want
		if m.Oneway {
			replies = 0
		}
		if got.Replies != replies || got.Mismatches != 0 || len(got.TxCycles) != replies || slices.Contains(got.TxCycles, 0) {
			t.Errorf("%s: %d RTL replies (%d mismatches), resp_schema cycles %v; want %d replies, no mismatch, none of 0 cycles",
				m.Name, got.Replies, got.Mismatches, got.TxCycles, replies)
		}
		if want == 0 {
			t.Errorf("the script does not call %s", m.Name)
		}
		total += want + rejected
	}
	if st.HeaderMismatches != 0 {
		t.Errorf("%d header mismatches (recv_header against the reference), want 0", st.HeaderMismatches)
	}
	if st.ReplyMismatches != 0 {
		t.Errorf("%d reply mismatches (RTL respFunction against the reference), want 0", st.ReplyMismatches)
	}
	if st.Requests != total || st.Faults != s.faults {
		t.Errorf("%d requests, %d faults; want %d, %d", st.Requests, st.Faults, total, s.faults)
	}
}

// client is a connected transport to addr and the protocol factory, as a
// generated client of any service takes them.
func client(t *testing.T, addr, tr string) (thrift.TTransport, thrift.TProtocolFactory) {
	t.Helper()
	conf := &thrift.TConfiguration{ConnectTimeout: 5 * time.Second, SocketTimeout: time.Minute}
	var trans thrift.TTransport = thrift.NewTSocketConf(addr, conf)
	if tr == serve.Framed {
		trans = thrift.NewTFramedTransportConf(trans, conf)
	} else {
		trans = thrift.NewTBufferedTransport(trans, 8192)
	}
	if err := trans.Open(); err != nil {
		t.Fatal(err)
	}
	return trans, thrift.NewTBinaryProtocolFactoryConf(conf)
}

// message is a strict binary CALL of name with seqid and args bytes.
func message(name string, seqid int32, args []byte) []byte {
	m := binary.BigEndian.AppendUint32(nil, 0x80010001)
	m = binary.BigEndian.AppendUint32(m, uint32(len(name)))
	m = append(m, name...)
	m = binary.BigEndian.AppendUint32(m, uint32(seqid))
	return append(m, args...)
}

// wrap frames msg for the framed transport.
func wrap(msg []byte, framed bool) []byte {
	if !framed {
		return msg
	}
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(msg))), msg...)
}

// rawExchange sends b on a new connection and reads until the server
// closes it, which it must.
func rawExchange(t *testing.T, addr string, b []byte) []byte {
	t.Helper()
	c := dial(t, addr, b)
	defer c.Close()
	got, err := io.ReadAll(c)
	if err != nil {
		t.Errorf("reading until the server closes: %v (got % x)", err, got)
	}
	return got
}

// keptOpen sends b on a new connection, reads n bytes, and wants the
// connection still open: a further read times out.
func keptOpen(t *testing.T, addr string, b []byte, n int) []byte {
	t.Helper()
	c := dial(t, addr, b)
	defer c.Close()
	got := make([]byte, n)
	if k, err := io.ReadFull(c, got); err != nil {
		t.Errorf("reading %d bytes: %v (got % x)", n, err, got[:k])
	}
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	var ne net.Error
	if k, err := c.Read(make([]byte, 1)); !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("after the replies: read %d bytes, %v; want the connection open and silent", k, err)
	}
	return got
}

// dial connects to addr and sends b, with a read deadline well ahead.
func dial(t *testing.T, addr string, b []byte) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(b); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(time.Minute))
	return c
}

// apacheException is x as Apache's generated processor writes it (its
// Process: WriteMessageBegin EXCEPTION, x.Write, WriteMessageEnd, Flush).
func apacheException(t *testing.T, name string, seqid int32, x thrift.TApplicationException, framed bool) []byte {
	t.Helper()
	buf := thrift.NewTMemoryBuffer()
	var tr thrift.TTransport = buf
	if framed {
		tr = thrift.NewTFramedTransportConf(buf, &thrift.TConfiguration{})
	}
	p := thrift.NewTBinaryProtocolConf(tr, &thrift.TConfiguration{})
	ctx := context.Background()
	if err := errors.Join(p.WriteMessageBegin(ctx, name, thrift.EXCEPTION, seqid), x.Write(ctx, p), p.WriteMessageEnd(ctx), p.Flush(ctx)); err != nil {
		t.Fatal(err)
	}
	return slices.Clone(buf.Bytes())
}

// checkException reads reply as an Apache client does and wants one
// EXCEPTION message with name, seqid and the exception's type (and, if
// text is not "", its message), and nothing after it.
func checkException(t *testing.T, reply []byte, framed bool, name string, seqid int32, typ int32, text string) {
	t.Helper()
	buf := thrift.NewTMemoryBuffer()
	buf.Buffer = bytes.NewBuffer(reply)
	var tr thrift.TTransport = buf
	if framed {
		tr = thrift.NewTFramedTransportConf(buf, &thrift.TConfiguration{})
	}
	p := thrift.NewTBinaryProtocolConf(tr, &thrift.TConfiguration{})
	ctx := context.Background()
	gotName, gotType, gotSeq, err := p.ReadMessageBegin(ctx)
	if err != nil {
		t.Fatalf("reply % x: %v", reply, err)
	}
	x := thrift.NewTApplicationException(thrift.UNKNOWN_APPLICATION_EXCEPTION, "")
	if err := x.Read(ctx, p); err != nil {
		t.Fatalf("reply % x: reading the exception: %v", reply, err)
	}
	_ = p.ReadMessageEnd(ctx)
	if gotName != name || gotType != thrift.EXCEPTION || gotSeq != seqid || x.TypeId() != typ || (text != "" && x.Error() != text) {
		t.Errorf("reply: %s type %d seqid %d, exception %d %q; want %s EXCEPTION seqid %d, exception %d %q",
			gotName, gotType, gotSeq, x.TypeId(), x.Error(), name, seqid, typ, text)
	}
	if x.Error() == "" {
		t.Errorf("the exception has no text")
	}
	if buf.Len() != 0 {
		t.Errorf("%d bytes after the exception", buf.Len())
	}
}
