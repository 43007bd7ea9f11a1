package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestClientServer runs the server and the client on loopback (no capture)
// and checks the log: every planned call, in order on each connection, with
// the seqids Apache's client numbers from 1, and the Gets answered with what
// was set (the client checks that itself and fails otherwise).
func TestClientServer(t *testing.T) {
	for _, transport := range []string{"framed", "buffered"} {
		t.Run(transport, func(t *testing.T) {
			srv, ss, err := newServer(transport, "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- srv.Serve() }()
			defer func() {
				srv.Stop()
				select {
				case <-done:
				case <-time.After(10 * time.Second):
					t.Error("server did not stop")
				}
			}()
			log := filepath.Join(t.TempDir(), "calls.jsonl")
			if err := client([]string{"-transport", transport, "-addr", ss.Addr().String(), "-log", log, "-timeout", "30s"}); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(log)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<20)
			next := map[int]int{}
			total := 0
			for sc.Scan() {
				var c Call
				if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
					t.Fatal(err)
				}
				total++
				if c.N != next[c.Conn] {
					t.Errorf("connection %d: call %d logged where %d was next", c.Conn, c.N, next[c.Conn])
				}
				next[c.Conn]++
				if c.SeqID != int32(c.N+1) || c.Type != "CALL" {
					t.Errorf("connection %d call %d: seqid %d type %q", c.Conn, c.N, c.SeqID, c.Type)
				}
				step := plans[c.Conn][c.N]
				if want := map[bool]string{true: "Set", false: "Get"}[step.set]; c.Method != want {
					t.Errorf("connection %d call %d: %s, planned %s", c.Conn, c.N, c.Method, want)
				}
				if step.set && (c.ValueLen != step.valueLen || len(c.KeyHex) != 2*step.keyLen) {
					t.Errorf("connection %d call %d: key %d value %d bytes, planned %d and %d", c.Conn, c.N, len(c.KeyHex)/2, c.ValueLen, step.keyLen, step.valueLen)
				}
			}
			want := 0
			for _, p := range plans {
				want += len(p)
			}
			if total != want {
				t.Errorf("%d calls logged, %d planned", total, want)
			}
		})
	}
}
