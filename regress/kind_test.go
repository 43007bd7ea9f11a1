package regress

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"arcalis/vectors"
)

// Tests of the supervisor with an engine of another kind, in Go and with
// no model: its lines have a shape of their own, as run --service's do.

// fakeSetup is fakeKind's setup: the run's stamps, and the vectors whose
// check disagrees or fails.
type fakeSetup struct {
	Total           int
	Config, Shard   string
	Disagree, Error int // vector indices; -1: none
}

// fakeLine is fakeKind's --json line: Result's fields that apply and one of
// its own, the message's hash.
type fakeLine struct {
	Index   int      `json:"index"`
	File    string   `json:"file"`
	Record  int      `json:"record"`
	Source  string   `json:"source"`
	Service string   `json:"service"`
	Status  string   `json:"status"`
	Match   bool     `json:"match"`
	Hash    string   `json:"msg_sha256"`
	Cycles  int      `json:"cycles"`
	Diffs   []string `json:"diffs,omitempty"`
	Replay  string   `json:"replay,omitempty"`
	Total   int      `json:"total"`
	Config  string   `json:"config"`
	Shard   string   `json:"shard,omitempty"`
}

// fakeKind is the fake's kind as a worker knows it (TestMain serves it).
var fakeKind = Kind{Name: "fake", Open: func(b []byte) (Engine, error) {
	e := &fakeEngine{}
	return e, json.Unmarshal(b, &e.s)
}}

type fakeEngine struct{ s fakeSetup }

func (e *fakeEngine) line(v Vector) fakeLine {
	return fakeLine{Index: v.Index, File: v.File, Record: v.Rec.Index, Source: v.Rec.Source, Service: "fake",
		Total: e.s.Total, Config: e.s.Config, Shard: e.s.Shard}
}

// Check "simulates" a cycle per message byte.
func (e *fakeEngine) Check(v Vector) (Checked, error) {
	if v.Index == e.s.Error {
		return Checked{}, errors.New("the fake's model failed\nover two lines")
	}
	l := e.line(v)
	sum := sha256.Sum256(v.Rec.Msg)
	l.Hash, l.Cycles, l.Status, l.Match = hex.EncodeToString(sum[:]), len(v.Rec.Msg), "ok", true
	if v.Index == e.s.Disagree {
		l.Status, l.Match, l.Diffs, l.Replay = "WRONG", false, []string{"disagrees as asked"}, fmt.Sprintf("replay %d", v.Index)
	}
	return fakeChecked(l)
}

func (e *fakeEngine) Close() {}

func fakeChecked(l fakeLine) (Checked, error) {
	b, err := json.Marshal(l)
	if err != nil {
		return Checked{}, err
	}
	r, err := ParseResult(b)
	return Checked{Result: r, Line: b, Cycles: uint64(l.Cycles)}, err
}

// runFake runs files' vectors with the fake, its setup s stamped with the
// plan's, and returns the lines emitted and the run's error.
func runFake(t *testing.T, s fakeSetup, pool Pool, shard, shards int, files ...string) ([]Result, string, error) {
	t.Helper()
	p, err := Load(files, Options{Record: -1, Shard: shard, Shards: shards})
	if err != nil {
		t.Fatal(err)
	}
	s.Total, s.Config, s.Shard = p.Total, p.Config, p.Shard
	e := &fakeEngine{s}
	k := fakeKind
	k.Setup = s
	k.Lost = func(v Vector, status string, diffs []string) (Checked, error) {
		l := e.line(v)
		l.Status, l.Diffs, l.Replay = status, diffs, fmt.Sprintf("replay %d", v.Index)
		return fakeChecked(l)
	}
	var got []Result
	var out bytes.Buffer
	_, err = RunKind(t.Context(), p, k, pool, func(r Result, line []byte) {
		if line == nil {
			t.Fatalf("vector %d: no line from the fake", r.Index)
		}
		got = append(got, r)
		out.Write(line)
		out.WriteByte('\n')
	})
	return got, out.String(), err
}

func noFakeFault() fakeSetup { return fakeSetup{Disagree: -1, Error: -1} }

// checkFakeLines checks that out holds the fake's line of every vector of
// the default set from index from, step step, up to n of them.
func checkFakeLines(t *testing.T, out string, from, step, n int) {
	t.Helper()
	recs, err := vectors.ReadFile(defaultSet)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("%d lines, want %d", len(lines), n)
	}
	for i, line := range lines {
		var l fakeLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		index := from + i*step
		sum := sha256.Sum256(recs[index%len(recs)].Msg)
		if l.Index != index || l.Service != "fake" || l.Hash != hex.EncodeToString(sum[:]) || l.Cycles != len(recs[index%len(recs)].Msg) {
			t.Fatalf("line %d: %s; want vector %d's", i, line, index)
		}
	}
}

func TestKindJobsSameAsOne(t *testing.T) {
	one, oneOut, err := runFake(t, noFakeFault(), Pool{}, 0, 0, defaultSet, defaultSet)
	if err != nil {
		t.Fatal(err)
	}
	checkFakeLines(t, oneOut, 0, 1, 2*282)
	pool := Pool{Jobs: 3, WorkerCmd: workerCmd(t, "")}
	if _, out, err := runFake(t, noFakeFault(), pool, 0, 0, defaultSet, defaultSet); err != nil || out != oneOut {
		t.Errorf("--jobs 3: other lines than --jobs 1 (%v)", err)
	}
	pool.Full = true
	three, _, err := runFake(t, noFakeFault(), pool, 0, 0, defaultSet, defaultSet)
	if err != nil {
		t.Fatal(err)
	}
	for i := range one {
		// The results read from the lines, but the wall time.
		three[i].seconds, one[i].seconds = 0, 0
		if fmt.Sprintf("%+v", three[i]) != fmt.Sprintf("%+v", one[i]) {
			t.Fatalf("result %d, decoded in full: %+v, with one job %+v", i, three[i], one[i])
		}
	}
}

// A vector whose check fails stops the run there with any number of jobs:
// the same results before it, the same error naming its file and record.
func TestKindEngineError(t *testing.T) {
	s := noFakeFault()
	s.Error = 100
	_, oneOut, oneErr := runFake(t, s, Pool{}, 0, 0, defaultSet)
	want := defaultSet + ` record 100: the fake's model failed` + "\nover two lines"
	if oneErr == nil || oneErr.Error() != want {
		t.Fatalf("--jobs 1: error %v, want %q", oneErr, want)
	}
	checkFakeLines(t, oneOut, 0, 1, 100)
	_, out, err := runFake(t, s, Pool{Jobs: 3, WorkerCmd: workerCmd(t, "")}, 0, 0, defaultSet)
	if err == nil || err.Error() != want || out != oneOut {
		t.Errorf("--jobs 3: error %v and %d bytes of lines; want %q and --jobs 1's %d", err, len(out), want, len(oneOut))
	}
}

// A worker that crashes or hangs is reported with its vector, in the
// kind's own line (Lost), and replaced: every other vector's line is the
// one of a run without faults.
func TestKindWorkerCrashAndHang(t *testing.T) {
	s := noFakeFault()
	s.Disagree = 5
	_, wantOut, err := runFake(t, s, Pool{}, 0, 0, defaultSet)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(wantOut, "\n"), "\n")
	for _, tc := range []struct {
		fault, status string
		index         int
		timeout       time.Duration
	}{
		{"crash:17", "CRASH", 17, time.Minute},
		{"hang:200", "TIMEOUT", 200, time.Second},
	} {
		t.Run(tc.status, func(t *testing.T) {
			pool := Pool{Jobs: 2, Full: true, Timeout: tc.timeout, WorkerCmd: workerCmd(t, tc.fault)}
			got, out, err := runFake(t, s, pool, 0, 0, defaultSet)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(got) != len(want) || len(lines) != len(want) {
				t.Fatalf("%d results, %d lines; want %d", len(got), len(lines), len(want))
			}
			for i, r := range got {
				if i != tc.index {
					if lines[i] != want[i] {
						t.Errorf("vector %d: %s\nwant %s", i, lines[i], want[i])
					}
					continue
				}
				var l fakeLine
				if err := json.Unmarshal([]byte(lines[i]), &l); err != nil {
					t.Fatal(err)
				}
				diffs := strings.Join(l.Diffs, "\n")
				if l.Index != i || l.Service != "fake" || l.Status != tc.status || l.Match || l.Replay != fmt.Sprintf("replay %d", i) ||
					!strings.HasPrefix(diffs, tc.status+": ") {
					t.Errorf("lost vector: %s", lines[i])
				}
				if tc.status == "CRASH" && !strings.Contains(diffs, "worker stderr: worker: crashing on vector 17") {
					t.Errorf("the crashed worker's stderr is not in the diffs: %q", l.Diffs)
				}
				if r.Status != tc.status || r.Match || r.Replay != l.Replay {
					t.Errorf("lost vector's result: %+v", r)
				}
			}
			if _, failed := Tally(got); failed != 2 {
				t.Errorf("%d failed, want 2: the lost vector and vector 5", failed)
			}
		})
	}
}

// The shards of a run of another kind merge into the unsharded run's
// lines, byte for byte: the kind's own fields kept, the shard dropped.
func TestKindShardsMerge(t *testing.T) {
	s := noFakeFault()
	s.Disagree = 7
	_, whole, err := runFake(t, s, Pool{}, 0, 0, defaultSet)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var files []string
	for i := 1; i <= 2; i++ {
		_, out, err := runFake(t, s, Pool{Jobs: 2, WorkerCmd: workerCmd(t, "")}, i, 2, defaultSet)
		if err != nil {
			t.Fatal(err)
		}
		checkFakeLines(t, out, i-1, 2, 141)
		if !strings.Contains(out, fmt.Sprintf(`"shard":"%d/2"}`, i)) {
			t.Fatalf("shard %d/2: no shard field in its lines", i)
		}
		f := filepath.Join(dir, fmt.Sprintf("shard%d.jsonl", i))
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	merged, err := Merge([]string{files[1], files[0]})
	if err != nil {
		t.Fatal(err)
	}
	if got := lines(merged); got != whole {
		t.Errorf("merged shards differ from the unsharded run:\n%.400s\nwant\n%.400s", got, whole)
	}
	if _, failed := Tally(merged); failed != 1 || merged[7].Match || merged[7].Replay != "replay 7" {
		t.Errorf("merged: %d failed, vector 7 %+v; want vector 7 alone, with its replay line", failed, merged[7])
	}
	// A line of Result's own shape with a field it does not have is still
	// refused: only a line with a "service" has fields of its own.
	odd := filepath.Join(dir, "odd.jsonl")
	os.WriteFile(odd, []byte(`{"index":0,"total":1,"config":"c","msg_sha256":"00"}`+"\n"), 0o644)
	if _, err := Merge([]string{odd}); err == nil || !strings.Contains(err.Error(), "not a line of `arcalis run --json`") {
		t.Errorf("merge of a line with an unknown field and no service: %v", err)
	}
}

// TestParseFailReply reads a worker's "E" line: its engine's error on a
// vector, on one line however many the message has.
func TestParseFailReply(t *testing.T) {
	rep, err := parseReply([]byte(`E 7 "model failed\nat cycle 3"`+"\n"), false)
	if err != nil || rep.Result.Index != 7 || rep.Fail != "model failed\nat cycle 3" {
		t.Errorf("E line: %+v, %v", rep, err)
	}
	for _, bad := range []string{"E 7 unquoted\n", `E x "m"` + "\n", `E 7 ""` + "\n"} {
		if _, err := parseReply([]byte(bad), false); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestWithoutKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1,"shard":"1/2"}`, `{"a":1}`},
		{`{"shard":"1/2","b":{"shard":"x"},"c":[1,"shard"]}`, `{"b":{"shard":"x"},"c":[1,"shard"]}`},
		{`{"a":"\u003c"}`, `{"a":"\u003c"}`},
		{`{}`, `{}`},
	} {
		got, err := withoutKey([]byte(tc.in), "shard")
		if err != nil || string(got) != tc.want {
			t.Errorf("withoutKey(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	if _, err := withoutKey([]byte(`[1]`), "shard"); err == nil {
		t.Error("withoutKey of an array: no error")
	}
}
