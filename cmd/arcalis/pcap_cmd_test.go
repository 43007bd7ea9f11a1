package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"arcalis/golden"
	"arcalis/vectors"
)

const (
	framedCapture   = "../../vectors/captures/framed.pcap"
	bufferedCapture = "../../vectors/captures/buffered.pcapng"
)

// acceptedByRun checks every record of a vector file the way `arcalis run`
// takes it: vectors.ReadFile reads the file, and the reference deserializer
// gives each message the result its method and type call for (the RTL is
// compared against exactly this).
func acceptedByRun(t *testing.T, path string) []vectors.Record {
	t.Helper()
	recs, err := vectors.ReadFile(path)
	if err != nil {
		t.Fatalf("vectors.ReadFile: %v", err)
	}
	img := make([]byte, golden.MaxCapacity)
	for _, rec := range recs {
		res := golden.Deserialize(rec.Msg, img)
		want := map[string]golden.Code{"Set": golden.CodeOK, "Get": golden.CodeOK}[methodOf(rec.Msg)]
		if typ := rec.Msg[3]; typ != 1 && typ != 4 { // REPLY, EXCEPTION
			want = golden.CodeBadMsgType
		}
		if res.Code != want {
			t.Errorf("record %d (%s): reference result %v, want %v", rec.Index, rec.Source, res.Code, want)
		}
		if err := vectors.CheckMessage(rec.Msg); err != nil {
			t.Errorf("record %d (%s): not one Thrift message: %v", rec.Index, rec.Source, err)
		}
	}
	return recs
}

func methodOf(msg []byte) string {
	if len(msg) < 11 {
		return ""
	}
	return string(msg[8:11])
}

func TestFromPcap(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		args    []string
		records int
		report  []string
	}{
		{"both captures", []string{framedCapture, bufferedCapture}, 52, []string{
			framedCapture + ": 181 packets", "TCP directions with data: 6 (6 framed)", "found 26 CALL, 26 REPLY; kept 26",
			bufferedCapture + ": 89 packets", "(6 buffered)", "wrote 52 records from 2 captures",
		}},
		{"with replies", []string{"--replies", framedCapture}, 52, []string{"kept 52"}},
		{"port filter that matches nothing", []string{framedCapture, "--port", "1"}, 0, []string{"0 TCP segments", "no Thrift messages; kept 0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".vec")
			stdout, err := runApp(t, append([]string{"vectors", "from-pcap", "-o", out}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.report {
				if !strings.Contains(stdout, want) {
					t.Errorf("report does not contain %q:\n%s", want, stdout)
				}
			}
			recs := acceptedByRun(t, out)
			if len(recs) != tc.records {
				t.Fatalf("%d records, want %d", len(recs), tc.records)
			}
			for _, rec := range recs {
				for _, k := range []string{"flow", "transport", "packets", "completed", "timestamp", "method", "type", "seqid"} {
					if _, ok := rec.Meta[k]; !ok {
						t.Fatalf("record %d: no %q in its metadata %v", rec.Index, k, rec.Meta)
					}
				}
				if ts, _ := rec.Meta["timestamp"].(json.Number).Int64(); ts <= 0 {
					t.Errorf("record %d: timestamp %v", rec.Index, rec.Meta["timestamp"])
				}
			}
		})
	}
}

// classicPacketOffset is the byte offset of packet n (1-based) in a classic,
// little-endian pcap.
func classicPacketOffset(t *testing.T, b []byte, n int) int {
	t.Helper()
	off := 24
	for i := 1; i < n; i++ {
		if off+16 > len(b) {
			t.Fatalf("capture has fewer than %d packets", n)
		}
		off += 16 + int(binary.LittleEndian.Uint32(b[off+8:]))
	}
	return off
}

func TestFromPcapBadInput(t *testing.T) {
	dir := t.TempDir()
	full, err := os.ReadFile(framedCapture)
	if err != nil {
		t.Fatal(err)
	}
	if binary.LittleEndian.Uint32(full) != 0xA1B2C3D4 {
		t.Fatalf("%s is not a little-endian classic pcap", framedCapture)
	}
	cut := filepath.Join(dir, "cut.pcap")
	if err := os.WriteFile(cut, full[:classicPacketOffset(t, full, 120)+16+20], 0o644); err != nil {
		t.Fatal(err)
	}
	notCap := writeVec(t, filepath.Join(dir, "x.vec"), vectors.Record{Source: "a", Msg: canonicalSet})
	tests := []struct {
		name string
		args []string
		err  string
	}{
		{"no output", []string{"vectors", "from-pcap", framedCapture}, "vectors from-pcap: missing -o OUT.vec"},
		{"no captures", []string{"vectors", "from-pcap", "-o", "OUT"}, "vectors from-pcap: no capture files"},
		{"bad port", []string{"vectors", "from-pcap", "-o", "OUT", "--port", "70000", framedCapture}, "--port 70000: want 1..65535"},
		{"missing file", []string{"vectors", "from-pcap", "-o", "OUT", filepath.Join(dir, "nope.pcap")}, "nope.pcap: no such file or directory (nothing written)"},
		{"truncated capture", []string{"vectors", "from-pcap", "-o", "OUT", framedCapture, cut},
			cut + ": packet 120: capture file truncated (the file ends inside the packet) (nothing written; --keep-partial keeps the"},
		{"not a capture", []string{"vectors", "from-pcap", "-o", "OUT", notCap}, notCap + ": file header: not a pcap or pcapng capture: starts with 41 52 43 56"},
		{"unknown flag", []string{"vectors", "from-pcap", "--replys", framedCapture}, "flag provided but not defined: -replys"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i, a := range tc.args {
				if a == "OUT" {
					tc.args[i] = filepath.Join(dir, "out.vec")
				}
			}
			_, err := runApp(t, tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			}
			if _, err := os.Stat(filepath.Join(dir, "out.vec")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("out.vec was written")
			}
		})
	}

	t.Run("truncated capture with --keep-partial", func(t *testing.T) {
		out := filepath.Join(dir, "partial.vec")
		var stdout, stderr bytes.Buffer
		err := newApp(&stdout, &stderr).Run([]string{"arcalis", "vectors", "from-pcap", "--keep-partial", "-o", out, cut})
		if err != nil {
			t.Fatal(err)
		}
		if want := "warning: " + cut + ": packet 120: capture file truncated"; !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr %q does not contain %q", stderr.String(), want)
		}
		recs := acceptedByRun(t, out)
		whole, err := runApp(t, "vectors", "from-pcap", "-o", filepath.Join(dir, "whole.vec"), framedCapture)
		if err != nil {
			t.Fatal(err)
		}
		all, _ := vectors.ReadFile(filepath.Join(dir, "whole.vec"))
		if len(recs) == 0 || len(recs) >= len(all) {
			t.Fatalf("kept %d records of the %d in the whole capture (%s)", len(recs), len(all), whole)
		}
		for i, r := range recs { // the same messages as the whole capture's first ones
			if !bytes.Equal(r.Msg, all[i].Msg) {
				t.Fatalf("record %d differs from the whole capture's", i)
			}
			if pk := r.Meta["packets"].([]any); len(pk) == 0 {
				t.Fatalf("record %d: no packets", i)
			}
		}
	})
}

// TestFromPcapReplies: with --replies each CALL of the capture (a real
// Apache Thrift client and server) carries its reply and the reply's hash,
// and `arcalis run --json`, the application answering as the server did,
// holds the TxEngine's reply to each Set and Get CALL to the reply the
// server sent: reply_match on every one.
func TestFromPcapReplies(t *testing.T) {
	out := filepath.Join(t.TempDir(), "replies.vec")
	if _, err := runApp(t, "vectors", "from-pcap", "--replies", "-o", out, framedCapture); err != nil {
		t.Fatal(err)
	}
	recs, err := vectors.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	replies := map[string]bool{} // hashes of the capture's REPLY messages
	for _, rec := range recs {
		if rec.Meta["type"] == "REPLY" {
			sum := sha256.Sum256(rec.Msg)
			replies[hex.EncodeToString(sum[:])] = true
		}
	}
	calls := 0
	for _, rec := range recs {
		if rec.Meta["type"] != "CALL" {
			continue
		}
		calls++
		if h, _ := rec.Meta[vectors.MetaReplySHA256].(string); !replies[h] {
			t.Errorf("record %d (%v seqid %v): reply_sha256 %q is no REPLY of the capture", rec.Index, rec.Meta["method"], rec.Meta["seqid"], h)
		}
	}
	run := arcalis(t, "run", "--json", out)
	if run.code != 0 {
		t.Fatalf("arcalis run: exit status %d\n%s", run.code, run.stderr)
	}
	compared := 0
	for _, r := range results(t, run.stdout) {
		if r.ReplyMatch == nil {
			continue
		}
		compared++
		if !*r.ReplyMatch {
			t.Errorf("record %d (%s): reply_match %v, reply_sha256 %s", r.Record, r.Method, *r.ReplyMatch, r.ReplySHA256)
		}
	}
	if calls == 0 || compared == 0 {
		t.Errorf("%d CALLs, %d replies compared", calls, compared)
	}
}
