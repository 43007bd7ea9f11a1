package regress

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestJobFrames round-trips worker jobs through their frames and checks
// that a worker's reader rejects truncated and malformed input.
func TestJobFrames(t *testing.T) {
	jobs := []workerJob{
		{Index: 0, Record: 7, File: "a.vec", Source: "gen/etc", Msg: []byte{0x80, 1, 0, 1}, Reply: bytes.Repeat([]byte{7}, 32), ReplyMsg: []byte{0x80, 1, 0, 2}},
		{Index: 1 << 20, Record: 0, File: "", Source: "", Msg: nil},
		{Index: 3, Record: 9, File: "dir/b.vec", Source: "pcap", Msg: bytes.Repeat([]byte{0xA5}, 70000)},
	}
	var b []byte
	for _, j := range jobs {
		b = appendJob(b, j)
	}
	r := bufio.NewReader(bytes.NewReader(b))
	for i, want := range jobs {
		got, err := readJob(r)
		if err != nil || got.Index != want.Index || got.Record != want.Record || got.File != want.File ||
			got.Source != want.Source || !bytes.Equal(got.Msg, want.Msg) || !bytes.Equal(got.Reply, want.Reply) ||
			!bytes.Equal(got.ReplyMsg, want.ReplyMsg) {
			t.Fatalf("job %d: %+v, %v", i, got, err)
		}
	}
	if _, err := readJob(r); err != io.EOF {
		t.Fatalf("after the last job: %v, want io.EOF", err)
	}
	one := appendJob(nil, jobs[0])
	for _, tc := range []struct {
		name, want string
		in         []byte
	}{
		{"cut in the length", "inside a job's length", one[:2]},
		{"cut in the frame", "inside a job of", one[:len(one)-1]},
		{"empty frame", "malformed job of 0 bytes", []byte{0, 0, 0, 0}},
		{"absurd length", "more than the", []byte{0xff, 0xff, 0xff, 0xff}},
		{"field past the end", "malformed job", append([]byte{16, 0, 0, 0}, append(make([]byte, 8), 9, 0, 0, 0, 1, 2, 3, 4)...)},
		{"bytes after the fields", "malformed job", append(append([]byte{21, 0, 0, 0}, make([]byte, 20)...), 1)},
	} {
		if _, err := readJob(bufio.NewReader(bytes.NewReader(tc.in))); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// TestParseReply reads a worker's result line, decoding the JSON only when
// asked to or when the vector failed.
func TestParseReply(t *testing.T) {
	line := []byte(`R 5 1 120 0.25 {"index":5,"status":"ok","match":true,"file":"a.vec","total":9,"config":"c"}` + "\n")
	rep, err := parseReply(line, false)
	if err != nil || rep.Result.Index != 5 || !rep.Result.Match || rep.Cycles != 120 || rep.Seconds != 0.25 || rep.Result.File != "" {
		t.Errorf("passing vector, not decoded: %+v %+v, %v", rep, rep.Result, err)
	}
	if rep, err = parseReply(line, true); err != nil || rep.Result.File != "a.vec" || rep.Result.Total != 9 {
		t.Errorf("passing vector, decoded: %+v, %v", rep.Result, err)
	}
	failed := []byte(`R 6 0 7 1 {"index":6,"status":"PARSE_ERROR","match":false,"file":"b.vec"}` + "\n")
	if rep, err = parseReply(failed, false); err != nil || rep.Result.File != "b.vec" || rep.Result.Status != "PARSE_ERROR" {
		t.Errorf("failing vector: %+v, %v", rep.Result, err)
	}
	for _, bad := range []string{"READY\n", "R 1 1 x 0 {}\n", "R 1 1 2 3\n", "R 1 0 2 3 {not json}\n"} {
		if _, err := parseReply([]byte(bad), false); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
