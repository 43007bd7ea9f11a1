// Command capture is the Memcached service and client whose loopback traffic
// scripts/capture.sh records for vectors/captures/: real Apache Thrift Go on both ends.
//
//	capture serve  -transport framed|buffered [-addr 127.0.0.1:0] [-timeout 2m]
//	capture client -transport framed|buffered -addr HOST:PORT -log CALLS.jsonl [-ready FILE -go FILE]
//
// serve prints "listening HOST:PORT" once it accepts connections and stops
// by itself after -timeout. client opens three connections, makes a fixed
// plan of Set and Get calls on them (the first connection makes two calls,
// then, with -ready/-go, writes FILE and waits for the -go file before going
// on, so that a capture started in between begins inside an open
// connection) and writes every call it made to the log, one JSON object a
// line (see docs/captures.md).
package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/internal/memcached"
	"arcalis/internal/splitmix"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: capture serve|client [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(os.Args[2:])
	case "client":
		err = client(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q (want serve or client)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "capture:", err)
		os.Exit(1)
	}
}

var conf = &thrift.TConfiguration{ConnectTimeout: 10 * time.Second, SocketTimeout: 30 * time.Second}

// handler is the service: an in-memory map.
type handler struct {
	mu    sync.Mutex
	items map[string][]byte
}

func (h *handler) Set(_ context.Context, _ int64, key, value []byte, _, _ int32) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.items[string(key)] = value
	return nil
}

func (h *handler) Get(_ context.Context, _ int64, key []byte) ([]byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.items[string(key)], nil
}

func transportFactory(name string) (thrift.TTransportFactory, error) {
	switch name {
	case "framed":
		return thrift.NewTFramedTransportFactoryConf(thrift.NewTTransportFactory(), conf), nil
	case "buffered":
		return thrift.NewTBufferedTransportFactory(8192), nil
	}
	return nil, fmt.Errorf("-transport %q: want framed or buffered", name)
}

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	transport := fs.String("transport", "", "framed or buffered")
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on (loopback)")
	timeout := fs.Duration("timeout", 2*time.Minute, "stop after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	srv, ss, err := newServer(*transport, *addr)
	if err != nil {
		return err
	}
	fmt.Printf("listening %s\n", ss.Addr())
	os.Stdout.Sync()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		select {
		case <-stop:
		case <-time.After(*timeout):
			fmt.Fprintln(os.Stderr, "capture serve: timeout, stopping")
		}
		srv.Stop()
	}()
	return srv.Serve()
}

// newServer makes the Thrift server, listening on a loopback address.
func newServer(transport, addr string) (*thrift.TSimpleServer, *thrift.TServerSocket, error) {
	tf, err := transportFactory(transport)
	if err != nil {
		return nil, nil, err
	}
	ss, err := thrift.NewTServerSocket(addr)
	if err != nil {
		return nil, nil, err
	}
	if err := ss.Listen(); err != nil {
		return nil, nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	if ip := ss.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		ss.Close()
		return nil, nil, fmt.Errorf("listening on %s: only loopback addresses are allowed", ss.Addr())
	}
	srv := thrift.NewTSimpleServer4(memcached.NewMemcachedServiceProcessor(&handler{items: map[string][]byte{}}),
		ss, tf, thrift.NewTBinaryProtocolFactoryConf(conf))
	return srv, ss, nil
}

// Call is one line of the client's log: one call as the client sent it.
type Call struct {
	Conn        int    `json:"conn"`     // connection 0, 1, 2
	Client      string `json:"client"`   // the connection's local address: the request flow's source
	Server      string `json:"server"`   // the server's address
	N           int    `json:"n"`        // the call's position on its connection
	Captured    bool   `json:"captured"` // made after the capture started
	Method      string `json:"method"`
	Type        string `json:"type"` // "CALL": the generated client makes no other
	SeqID       int32  `json:"seqid"`
	ReqID       int64  `json:"req_id"`
	KeyHex      string `json:"key_hex"`
	ValueLen    int    `json:"value_len,omitempty"`    // Set
	ValueSHA256 string `json:"value_sha256,omitempty"` // Set
	ValueHex    string `json:"value_hex,omitempty"`    // Set, values up to 4096 bytes
	Flags       int32  `json:"flags,omitempty"`        // Set
	Exptime     int32  `json:"exptime,omitempty"`      // Set
}

// recorder passes writes through and remembers the last message header,
// so the log holds the seqid Apache's client really sent.
type recorder struct {
	thrift.TProtocol
	name  string
	typ   thrift.TMessageType
	seqid int32
}

func (r *recorder) WriteMessageBegin(ctx context.Context, name string, typ thrift.TMessageType, seqid int32) error {
	r.name, r.typ, r.seqid = name, typ, seqid
	return r.TProtocol.WriteMessageBegin(ctx, name, typ, seqid)
}

// step is one planned call.
type step struct {
	set      bool
	keyLen   int
	valueLen int
	keyOf    int // Get: the step whose key to read (-1: a key never set)
}

// plans are the calls of connections 0, 1 and 2. Connection 0's first two
// calls come before the capture starts. Values cross TCP segment sizes on
// loopback (MSS 65,483): 70,000 and 140,000 bytes come in two and three
// segments; the others cover empty values, 250-byte keys and 64-byte line
// boundaries.
var plans = [3][]step{
	{
		{set: true, keyLen: 8, valueLen: 8}, {keyOf: 0},
		{set: true, keyLen: 16, valueLen: 70_000}, {keyOf: 2},
		{set: true, keyLen: 250, valueLen: 0}, {keyOf: 4},
		{set: true, keyLen: 1, valueLen: 140_000}, {keyOf: -1},
	},
	{
		{set: true, keyLen: 8, valueLen: 8}, {set: true, keyLen: 16, valueLen: 32},
		{keyOf: 0}, {keyOf: 1}, {set: true, keyLen: 100, valueLen: 1000},
		{set: true, keyLen: 0, valueLen: 1}, {keyOf: 5}, {set: true, keyLen: 32, valueLen: 4096},
		{keyOf: 7}, {keyOf: 4},
	},
	{
		{set: true, keyLen: 16, valueLen: 63}, {set: true, keyLen: 16, valueLen: 64},
		{set: true, keyLen: 16, valueLen: 65}, {set: true, keyLen: 16, valueLen: 127},
		{set: true, keyLen: 16, valueLen: 128}, {set: true, keyLen: 16, valueLen: 129},
		{keyOf: 3}, {set: true, keyLen: 255, valueLen: 2000}, {keyOf: 7}, {keyOf: 0},
	},
}

// preCapture is how many of connection 0's calls come before the capture.
const preCapture = 2

func client(args []string) error {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	transport := fs.String("transport", "", "framed or buffered")
	addr := fs.String("addr", "", "server address (loopback)")
	logPath := fs.String("log", "", "file to write the calls to (JSON lines)")
	ready := fs.String("ready", "", "after connection 0's first calls, create this file and wait for -go")
	goFile := fs.String("go", "", "file whose existence lets the client go on")
	seed := fs.Uint64("seed", 1, "seed of key and value contents")
	timeout := fs.Duration("timeout", time.Minute, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := transportFactory(*transport); err != nil {
		return err
	}
	if *logPath == "" || *addr == "" {
		return errors.New("client: -addr and -log are required")
	}
	if (*ready == "") != (*goFile == "") {
		return errors.New("client: -ready and -go go together")
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("client: %s is not a loopback address", *addr)
	}
	deadline := time.Now().Add(*timeout)

	var mu sync.Mutex
	var calls []Call
	logCall := func(c Call) {
		mu.Lock()
		calls = append(calls, c)
		mu.Unlock()
	}
	conns := make([]*connection, len(plans))
	for i := range conns {
		if conns[i], err = dial(i, *addr, *transport, *seed); err != nil {
			return err
		}
		defer conns[i].close()
		if i == 0 { // connection 0 is open, and has made calls, before the capture
			for n := 0; n < preCapture; n++ {
				c, err := conns[0].call(n, false)
				if err != nil {
					return err
				}
				logCall(c)
			}
			if *ready != "" {
				if err := os.WriteFile(*ready, []byte("ready\n"), 0o644); err != nil {
					return err
				}
				for {
					if _, err := os.Stat(*goFile); err == nil {
						break
					}
					if time.Now().After(deadline) {
						return fmt.Errorf("client: %s did not appear before the timeout", *goFile)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		}
	}
	// The three connections make their calls at the same time.
	var wg sync.WaitGroup
	errs := make([]error, len(conns))
	for i, cn := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			first := 0
			if i == 0 {
				first = preCapture
			}
			for n := first; n < len(plans[i]); n++ {
				c, err := cn.call(n, true)
				if err != nil {
					errs[i] = err
					return
				}
				logCall(c)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return writeLog(*logPath, calls)
}

func writeLog(path string, calls []Call) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, c := range calls {
		if err := enc.Encode(c); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// connection is one client connection and the keys it has set.
type connection struct {
	id     int
	sock   *thrift.TSocket
	client *memcached.MemcachedServiceClient
	rec    *recorder
	local  string
	server string
	rng    splitmix.Source
	keys   map[int][]byte // step -> key
	values map[int][]byte // step -> value
}

func dial(id int, addr, transport string, seed uint64) (*connection, error) {
	nc, err := net.DialTimeout("tcp", addr, conf.ConnectTimeout)
	if err != nil {
		return nil, fmt.Errorf("connection %d: %w", id, err)
	}
	sock := thrift.NewTSocketFromConnConf(nc, conf)
	var trans thrift.TTransport = sock
	if transport == "framed" {
		trans = thrift.NewTFramedTransportConf(sock, conf)
	} else {
		trans = thrift.NewTBufferedTransport(sock, 8192)
	}
	rec := &recorder{TProtocol: thrift.NewTBinaryProtocolConf(trans, conf)}
	in := thrift.NewTBinaryProtocolConf(trans, conf)
	return &connection{
		id: id, sock: sock, rec: rec,
		client: memcached.NewMemcachedServiceClient(thrift.NewTStandardClient(in, rec)),
		local:  nc.LocalAddr().String(), server: nc.RemoteAddr().String(),
		rng:  splitmix.Source(seed*1000 + uint64(id)),
		keys: map[int][]byte{}, values: map[int][]byte{},
	}, nil
}

func (c *connection) close() { c.sock.Close() }

// call makes step n of the connection's plan and returns its log line.
func (c *connection) call(n int, captured bool) (Call, error) {
	ctx := context.Background()
	s := plans[c.id][n]
	reqID := int64(c.id)<<32 | int64(n+1)
	entry := Call{Conn: c.id, Client: c.local, Server: c.server, N: n, Captured: captured, ReqID: reqID}
	if s.set {
		key := c.rng.Bytes(s.keyLen)
		value := c.rng.Bytes(s.valueLen)
		flags, exptime := int32(c.rng.Next()), int32(c.rng.Next()%86400)
		if err := c.client.Set(ctx, reqID, key, value, flags, exptime); err != nil {
			return Call{}, fmt.Errorf("connection %d call %d (Set): %w", c.id, n, err)
		}
		c.keys[n], c.values[n] = key, value
		sum := sha256.Sum256(value)
		entry.KeyHex, entry.ValueLen, entry.ValueSHA256 = hex.EncodeToString(key), len(value), hex.EncodeToString(sum[:])
		if len(value) <= 4096 {
			entry.ValueHex = hex.EncodeToString(value)
		}
		entry.Flags, entry.Exptime = flags, exptime
	} else {
		key, ok := c.keys[s.keyOf]
		if !ok {
			key = []byte("never-set")
		}
		got, err := c.client.Get(ctx, reqID, key)
		if err != nil {
			return Call{}, fmt.Errorf("connection %d call %d (Get): %w", c.id, n, err)
		}
		if want := c.values[s.keyOf]; string(got) != string(want) {
			return Call{}, fmt.Errorf("connection %d call %d: Get returned %d bytes, want the %d that were set", c.id, n, len(got), len(want))
		}
		entry.KeyHex = hex.EncodeToString(key)
	}
	entry.Method, entry.SeqID = c.rec.name, c.rec.seqid
	entry.Type = map[thrift.TMessageType]string{thrift.CALL: "CALL", thrift.ONEWAY: "ONEWAY"}[c.rec.typ]
	return entry, nil
}
