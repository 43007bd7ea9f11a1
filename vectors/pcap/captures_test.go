package pcap

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/internal/memcached"
)

// loggedCall is one line of a capture's call log, as vectors/capture writes it.
type loggedCall struct {
	Conn        int    `json:"conn"`
	Client      string `json:"client"`
	Server      string `json:"server"`
	N           int    `json:"n"`
	Captured    bool   `json:"captured"`
	Method      string `json:"method"`
	Type        string `json:"type"`
	SeqID       int32  `json:"seqid"`
	ReqID       int64  `json:"req_id"`
	KeyHex      string `json:"key_hex"`
	ValueLen    int    `json:"value_len"`
	ValueSHA256 string `json:"value_sha256"`
	ValueHex    string `json:"value_hex"`
	Flags       int32  `json:"flags"`
	Exptime     int32  `json:"exptime"`
}

func readCalls(t *testing.T, path string) []loggedCall {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var calls []loggedCall
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		var c loggedCall
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		calls = append(calls, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return calls
}

// decoded is a request as Apache's generated code reads it.
type decoded struct {
	method string
	typ    thrift.TMessageType
	seqid  int32
	reqID  int64
	key    []byte
	value  []byte
	flags  int32
	exp    int32
}

func decodeRequest(t *testing.T, msg []byte) decoded {
	t.Helper()
	ctx := context.Background()
	buf := &thrift.TMemoryBuffer{Buffer: bytes.NewBuffer(msg)}
	p := thrift.NewTBinaryProtocolConf(buf, &thrift.TConfiguration{})
	var d decoded
	var err error
	d.method, d.typ, d.seqid, err = p.ReadMessageBegin(ctx)
	if err != nil {
		t.Fatalf("message header: %v", err)
	}
	switch d.method {
	case "Set":
		a := memcached.NewMemcachedServiceSetArgs()
		err = a.Read(ctx, p)
		d.reqID, d.key, d.value, d.flags, d.exp = a.ReqID, a.Key, a.Value, a.Flags, a.Exptime
	case "Get":
		a := memcached.NewMemcachedServiceGetArgs()
		err = a.Read(ctx, p)
		d.reqID, d.key = a.ReqID, a.Key
	default:
		t.Fatalf("method %q", d.method)
	}
	if err != nil {
		t.Fatalf("%s arguments: %v", d.method, err)
	}
	if buf.Len() != 0 {
		t.Fatalf("%d bytes after the message", buf.Len())
	}
	return d
}

// TestCommittedCaptures: from the captures scripts/capture.sh recorded, Read
// recovers exactly the calls the client logged as made during the capture,
// in order on each connection, with every field equal to what was sent.
// ARCALIS_CAPTURES=DIR checks a new recording instead (scripts/capture.sh DIR).
func TestCommittedCaptures(t *testing.T) {
	for _, tc := range []struct{ capture, transport string }{
		{"framed.pcap", "framed"},
		{"buffered.pcapng", "buffered"},
	} {
		t.Run(tc.capture, func(t *testing.T) {
			dir := filepath.Join("..", "captures")
			if d := os.Getenv("ARCALIS_CAPTURES"); d != "" { // a fresh scripts/capture.sh run
				dir = d
			}
			path := filepath.Join(dir, tc.capture)
			calls := readCalls(t, filepath.Join(dir, tc.transport+".calls.jsonl"))
			res, err := ReadFile(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range Reasons() {
				if n := res.Stats.Unusable[r]; n != 0 {
					t.Errorf("%s: %d (%s)", r, n, res.Stats.Example(r))
				}
			}
			// The calls of each connection, in the order it made them.
			want := map[string][]loggedCall{}
			captured := 0
			for _, c := range calls {
				if c.Captured {
					flow := c.Client + "->" + c.Server
					want[flow] = append(want[flow], c)
					captured++
				}
			}
			if len(res.Messages) != captured {
				t.Fatalf("%d messages, the client logged %d calls during the capture", len(res.Messages), captured)
			}
			next := map[string]int{}
			multi := 0
			for i, m := range res.Messages {
				k := next[m.Flow]
				next[m.Flow]++
				if k >= len(want[m.Flow]) {
					t.Fatalf("message %d: flow %s has more messages than the %d calls logged on it", i, m.Flow, len(want[m.Flow]))
				}
				c := want[m.Flow][k]
				if m.Transport != tc.transport {
					t.Errorf("message %d: transport %q", i, m.Transport)
				}
				if len(m.Packets) > 1 {
					multi++
				}
				d := decodeRequest(t, m.Msg)
				sum := sha256.Sum256(d.value)
				checks := []struct {
					field     string
					got, want any
				}{
					{"method", d.method, c.Method},
					{"header method", m.Method, c.Method},
					{"type", TypeName(d.typ), c.Type},
					{"seqid", d.seqid, c.SeqID},
					{"req_id", d.reqID, c.ReqID},
					{"key", hex.EncodeToString(d.key), c.KeyHex},
				}
				if c.Method == "Set" {
					checks = append(checks, []struct {
						field     string
						got, want any
					}{
						{"value length", len(d.value), c.ValueLen},
						{"value sha256", hex.EncodeToString(sum[:]), c.ValueSHA256},
						{"flags", d.flags, c.Flags},
						{"exptime", d.exp, c.Exptime},
					}...)
					if c.ValueHex != "" || c.ValueLen == 0 {
						checks = append(checks, struct {
							field     string
							got, want any
						}{"value", hex.EncodeToString(d.value), c.ValueHex})
					}
				}
				for _, ck := range checks {
					if ck.got != ck.want {
						t.Errorf("message %d (connection %d call %d): %s %v, the client sent %v", i, c.Conn, c.N, ck.field, ck.got, ck.want)
					}
				}
			}
			for flow, cs := range want {
				if next[flow] != len(cs) {
					t.Errorf("flow %s: %d messages, %d calls logged", flow, next[flow], len(cs))
				}
			}
			if multi == 0 {
				t.Errorf("no message came in more than one packet: the capture does not test reassembly")
			}

			// Every call was answered: with --replies the replies come too.
			all, err := ReadFile(path, Options{Replies: true})
			if err != nil {
				t.Fatal(err)
			}
			if got := all.Stats.Found[thrift.REPLY]; got != captured {
				t.Errorf("%d replies, want one per call (%d)", got, captured)
			}
			if len(all.Messages) != 2*captured {
				t.Errorf("with replies: %d messages, want %d", len(all.Messages), 2*captured)
			}
		})
	}
}
