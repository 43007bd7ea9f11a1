package regress

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/internal/memcached"
	"arcalis/tb"
	"arcalis/vectors"
)

// lines is the results' JSON lines.
func lines(rs []Result) string {
	var b bytes.Buffer
	for _, r := range rs {
		b.Write(r.MarshalLine())
		b.WriteByte('\n')
	}
	return b.String()
}

func TestRunJobsSameAsOne(t *testing.T) {
	opt := options(t)
	one, oneJSON := runAll(t, opt, defaultSet)
	if len(one) != 282 {
		t.Fatalf("%d results, want 282", len(one))
	}
	opt.Jobs, opt.WorkerCmd = 2, workerCmd(t, "")
	if _, two := runAll(t, opt, defaultSet); two != oneJSON {
		t.Errorf("--jobs 2 printed other results than --jobs 1")
	}
	opt.Full = true
	if two, _ := runAll(t, opt, defaultSet); lines(two) != oneJSON {
		t.Errorf("--jobs 2, decoded in full: other results than --jobs 1")
	}
	opt.Jobs = 3
	three, _ := runAll(t, opt, defaultSet, defaultSet)
	if len(three) != 2*282 {
		t.Fatalf("--jobs 3 on the set twice: %d results, want %d", len(three), 2*282)
	}
	for i, r := range three {
		if r.Index != i || r.Total != 2*282 || !r.Match {
			t.Fatalf("result %d: index %d total %d match %v", i, r.Index, r.Total, r.Match)
		}
	}
	// The second copy of the file differs from the first only where the
	// index does: the start offset (index mod 64) and the fields it moves.
	for i, r := range three[:282] {
		if r.Status != one[i].Status || r.KeyHex != one[i].KeyHex || r.ValueSHA256 != one[i].ValueSHA256 {
			t.Fatalf("record %d: %+v, alone %+v", i, r, one[i])
		}
	}
}

func TestShardsMergeToWholeRun(t *testing.T) {
	dir := t.TempDir()
	opt := options(t)
	_, whole := runAll(t, opt, defaultSet)
	var files []string
	seen := 0
	for i := 1; i <= 3; i++ {
		opt.Shard, opt.Shards = i, 3
		rs, js := runAll(t, opt, defaultSet)
		for _, r := range rs {
			if r.Index%3 != i-1 || r.Shard != fmt.Sprintf("%d/3", i) {
				t.Fatalf("shard %d/3 ran vector %d (shard field %q)", i, r.Index, r.Shard)
			}
			seen++
		}
		f := filepath.Join(dir, fmt.Sprintf("shard%d.jsonl", i))
		if err := os.WriteFile(f, []byte(js), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if seen != 282 {
		t.Fatalf("the shards ran %d vectors, want 282", seen)
	}
	merged, err := Merge([]string{files[2], files[0], files[1]})
	if err != nil {
		t.Fatal(err)
	}
	if lines(merged) != whole {
		t.Error("merged shards differ from the unsharded run")
	}
	junit := filepath.Join(dir, "merged.xml")
	if err := WriteJUnit(junit, merged); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if b, err := os.ReadFile(junit); err != nil || xml.Unmarshal(b, &doc) != nil || doc.Tests != 282 || doc.Failures+doc.Errors != 0 {
		t.Errorf("merged JUnit: %+v, %v", doc, err)
	}

	// Incomplete, duplicated and mixed inputs are refused with the reason.
	opt.Shard, opt.Shards, opt.Latency = 1, 3, 7
	_, js := runAll(t, opt, defaultSet)
	other := filepath.Join(dir, "other.jsonl")
	os.WriteFile(other, []byte(js), 0o644)
	cut := filepath.Join(dir, "cut.jsonl")
	b, _ := os.ReadFile(files[1])
	os.WriteFile(cut, b[:len(b)/2], 0o644)
	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"a shard missing", files[:2], "94 of the run's 282 vectors are missing (indices 2, 5, 8"},
		{"a shard twice", append(files, files[0]), "vector 0 again (first in " + files[0] + ":1)"},
		{"another run's shard", []string{files[1], files[2], other}, "the results come from different runs"},
		{"a file cut short", []string{files[0], cut, files[2]}, cut + ":"},
		{"not results", []string{defaultSet}, "not a line of `arcalis run --json`"},
		{"no such file", []string{filepath.Join(dir, "nope.jsonl")}, "nope.jsonl: no such file"},
		{"no files", nil, "no result files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Merge(tc.files); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("merge: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestWorkerCrashAndHang(t *testing.T) {
	dir := t.TempDir()
	opt := options(t)
	want, _ := runAll(t, opt, defaultSet)
	for _, tc := range []struct {
		fault   string
		index   int
		status  string
		timeout time.Duration
	}{
		{"crash:17", 17, "CRASH", time.Minute},
		{"hang:40", 40, "TIMEOUT", time.Second},
	} {
		t.Run(tc.status, func(t *testing.T) {
			opt := opt
			opt.Jobs, opt.Full, opt.Timeout, opt.WorkerCmd = 2, true, tc.timeout, workerCmd(t, tc.fault)
			got, _ := runAll(t, opt, defaultSet)
			if len(got) != len(want) {
				t.Fatalf("%d results, want %d", len(got), len(want))
			}
			for i, r := range got {
				if i == tc.index {
					replay := fmt.Sprintf("--record %d --offset %d ", tc.index, tc.index)
					if r.Status != tc.status || r.Match || r.Expected != want[i].Expected || !strings.Contains(r.Replay, replay) || len(r.Diffs) == 0 {
						t.Errorf("lost vector: %+v", r)
					}
					if tc.status == "CRASH" && !strings.Contains(strings.Join(r.Diffs, "\n"), "crashing on vector 17") {
						t.Errorf("the crashed worker's stderr is not in the diffs: %q", r.Diffs)
					}
					continue
				}
				if b := r.MarshalLine(); !bytes.Equal(b, want[i].MarshalLine()) {
					t.Errorf("vector %d after a lost one: %s, want %s", i, b, want[i].MarshalLine())
				}
			}
			if _, failed := Tally(got); failed != 1 {
				t.Errorf("%d failed, want 1", failed)
			}
			junit := filepath.Join(dir, tc.status+".xml")
			if err := WriteJUnit(junit, got); err != nil {
				t.Fatal(err)
			}
			var doc junitSuites
			if b, err := os.ReadFile(junit); err != nil || xml.Unmarshal(b, &doc) != nil {
				t.Fatalf("JUnit file: %v", err)
			}
			if doc.Tests != 282 || doc.Errors != 1 || doc.Failures != 0 || len(doc.Suites) != 1 {
				t.Fatalf("JUnit counts: %d tests, %d errors, %d failures", doc.Tests, doc.Errors, doc.Failures)
			}
			c := doc.Suites[0].Cases[tc.index]
			if c.Error == nil || c.Error.Type != tc.status || !strings.Contains(c.Error.Text, fmt.Sprintf("replay: arcalis run --record %d", tc.index)) {
				t.Errorf("JUnit case %d: %+v", tc.index, c)
			}
		})
	}
}

// faultyMemory makes every load answer with an error, so that every vector
// disagrees with the reference, which knows nothing of the memory.
func faultyMemory(t *testing.T) {
	testMemory = func(c *tb.MemConfig) { c.LoadFault = 1 }
	t.Cleanup(func() { testMemory = nil })
}

// A failing vector's waveform is named after its file, record, index and
// run: two runs, and one file given twice, write different files, and
// the replay command printed with it reproduces the failure.
func TestWaveNamesUniqueAndReplay(t *testing.T) {
	faultyMemory(t)
	vec := someVectors(t, "three.vec", 3)
	opt := options(t)
	var all []Result
	for run := 0; run < 2; run++ {
		rs, _ := runAll(t, opt, vec, vec)
		if len(rs) != 6 {
			t.Fatalf("%d results, want 6", len(rs))
		}
		all = append(all, rs...)
	}
	seen := map[string]bool{}
	for _, r := range all {
		if r.Match || r.Wave == "" {
			t.Fatalf("vector %d: match %v, wave %q: want a failure with a waveform", r.Index, r.Match, r.Wave)
		}
		prefix := filepath.Join(opt.WaveDir, fmt.Sprintf("three-r%d-v%d-", r.Record, r.Index))
		if !strings.HasPrefix(r.Wave, prefix) || !strings.HasSuffix(r.Wave, ".fst") {
			t.Errorf("waveform %s, want %s<run id>.fst", r.Wave, prefix)
		}
		if seen[r.Wave] {
			t.Errorf("waveform %s written twice", r.Wave)
		}
		seen[r.Wave] = true
		if fi, err := os.Stat(r.Wave); err != nil || fi.Size() < 330 {
			t.Errorf("waveform %s: %v", r.Wave, err)
		}
	}
	if files, _ := os.ReadDir(opt.WaveDir); len(files) != len(all) {
		t.Errorf("%d files in the waveform directory, want %d", len(files), len(all))
	}

	// Run the replay command of the file's second copy's record 1 (index 4).
	r := all[4]
	args := strings.Fields(r.Replay)
	if len(args) < 3 || args[0] != "arcalis" || args[1] != "run" {
		t.Fatalf("replay %q", r.Replay)
	}
	ro := Options{RunOptions: tb.RunOptions{Offset: -1}, Record: -1, Model: opt.Model}
	var files []string
	for i := 2; i < len(args); i++ {
		if !strings.HasPrefix(args[i], "--") {
			files = append(files, args[i])
			continue
		}
		i++
		n, _ := strconv.ParseInt(args[i], 10, 64)
		switch args[i-1] {
		case "--record":
			ro.Record = int(n)
		case "--offset":
			ro.Offset = int(n)
		case "--mem-latency":
			ro.Latency = int(n)
		case "--seed":
			ro.Seed = n
		case "--wave":
			ro.WaveDir = args[i]
		default:
			t.Fatalf("replay %q: unexpected %s", r.Replay, args[i-1])
		}
	}
	again, _ := runAll(t, ro, files...)
	if len(again) != 1 {
		t.Fatalf("replay ran %d vectors", len(again))
	}
	a := again[0]
	if a.Match || a.Status != r.Status || a.Cycles != r.Cycles || a.Offset != r.Offset || strings.Join(a.Diffs, "\n") != strings.Join(r.Diffs, "\n") {
		t.Errorf("replay: %+v\nwant the failure %+v", a, r)
	}
	if a.Wave == r.Wave || seen[a.Wave] {
		t.Errorf("the replay wrote over waveform %s", a.Wave)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	vec := someVectors(t, "two.vec", 2)
	data, _ := os.ReadFile(vec)
	cut := filepath.Join(dir, "cut.vec")
	os.WriteFile(cut, data[:40], 0o644)
	for _, tc := range []struct {
		name  string
		files []string
		opt   Options
		want  string
	}{
		{"missing file", []string{filepath.Join(dir, "nope.vec")}, Options{Record: -1}, "nope.vec: no such file"},
		{"damaged file", []string{vec, cut}, Options{Record: -1}, cut + ": record 0"},
		{"record past the end", []string{vec}, Options{Record: 2}, vec + ": --record 2: the file has 2 records"},
		{"bad shard", []string{vec}, Options{Record: -1, Shard: 3, Shards: 2}, "shard 3/2"},
		{"no files", nil, Options{Record: -1}, "no vector files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Load(tc.files, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load: %v, want an error containing %q", err, tc.want)
			}
		})
	}
	for _, s := range []string{"0/3", "4/3", "2", "a/b", "1/0"} {
		if _, _, err := ParseShard(s); err == nil {
			t.Errorf("ParseShard(%q): no error", s)
		}
	}
	if i, n, err := ParseShard("2/4"); i != 2 || n != 4 || err != nil {
		t.Errorf("ParseShard(2/4) = %d, %d, %v", i, n, err)
	}
}

func TestWaveName(t *testing.T) {
	for _, tc := range []struct {
		file          string
		record, index int
		want          string
	}{
		{"vectors/default.vec", 17, 17, "default-r17-v17-RUN.fst"},
		{"/a/b/etc.small.vec", 0, 300, "etc.small-r0-v300-RUN.fst"},
		{"noext", 2, 5, "noext-r2-v5-RUN.fst"},
	} {
		if got := WaveName(tc.file, tc.record, tc.index, "RUN"); got != tc.want {
			t.Errorf("WaveName(%q, %d, %d) = %q, want %q", tc.file, tc.record, tc.index, got, tc.want)
		}
	}
	if a, b := NewRunID(), NewRunID(); a == b || len(a) != len("20261202T021100Z-abcdef") {
		t.Errorf("run ids %q and %q", a, b)
	}
}

// TestRecordedReply: a Set CALL's reply is held to the record's
// reply_sha256 (Apache's processor's reply, in the default set): the same
// bytes match; a record whose recorded reply differs fails with a diff, a
// waveform and a replay line; a malformed one stops the run at Load, naming
// the file, record and key.
func TestRecordedReply(t *testing.T) {
	recs, err := vectors.ReadFile(defaultSet)
	if err != nil {
		t.Fatal(err)
	}
	set := recs[0] // set/canonical: a Set CALL the engine answers
	if _, ok, err := set.ReplySHA256(); !ok || err != nil {
		t.Fatalf("record 0 (%s) has no recorded reply: %v", set.Source, err)
	}
	wrong := set
	wrong.Meta = map[string]any{vectors.MetaReplySHA256: strings.Repeat("ab", 32)}
	dir := t.TempDir()
	path := filepath.Join(dir, "replies.vec")
	if err := vectors.WriteFile(path, []vectors.Record{set, wrong}); err != nil {
		t.Fatal(err)
	}
	got, _ := runAll(t, options(t), path)
	if r := got[0]; !r.Match || r.ReplyMatch == nil || !*r.ReplyMatch || r.ReplySHA256 != set.Meta[vectors.MetaReplySHA256] {
		t.Errorf("the recorded reply: match %v, reply_match %v, reply_sha256 %s; want both true and the recorded hash %v",
			r.Match, r.ReplyMatch, r.ReplySHA256, set.Meta[vectors.MetaReplySHA256])
	}
	r := got[1]
	if r.Match || r.ReplyMatch == nil || *r.ReplyMatch || r.Wave == "" || !strings.Contains(r.Replay, "--record 1 ") ||
		!strings.Contains(strings.Join(r.Diffs, "\n"), "not the recorded reply") {
		t.Errorf("a wrong recorded reply: match %v, reply_match %v, wave %q, replay %q, diffs %q", r.Match, r.ReplyMatch, r.Wave, r.Replay, r.Diffs)
	}

	wrong.Meta = map[string]any{vectors.MetaReplySHA256: "not hex"}
	bad := filepath.Join(dir, "bad.vec")
	if err := vectors.WriteFile(bad, []vectors.Record{set, wrong}); err != nil {
		t.Fatal(err)
	}
	_, err = Load([]string{bad}, options(t))
	if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "record 1") || !strings.Contains(err.Error(), `"reply_sha256"`) {
		t.Errorf("Load of a malformed reply_sha256: %v; want an error naming the file, record 1 and the key", err)
	}
}

// TestArgsJSON: every vector the RTL takes (OK) carries its arguments as
// read back from App.Recv, in TSimpleJSONProtocol form, and they are what
// Apache's generated code reads from the message itself.
func TestArgsJSON(t *testing.T) {
	recs, err := vectors.ReadFile(defaultSet)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := runAll(t, options(t), defaultSet)
	checked := map[string]int{}
	for i, r := range got {
		if r.Status != "ok" {
			if r.Args != nil {
				t.Errorf("record %d (%s): args %s for a result %s", i, r.Source, r.Args, r.Status)
			}
			continue
		}
		var args map[string]any
		dec := json.NewDecoder(bytes.NewReader(r.Args))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil {
			t.Fatalf("record %d (%s): args %q: %v", i, r.Source, r.Args, err)
		}
		want, err := apacheArgs(recs[i].Msg)
		if err != nil {
			// Only the UUID divergence (docs/abi.md section 7): the set marks it.
			if recs[i].Meta["apache"] != "reject" {
				t.Errorf("record %d (%s): Apache cannot read it (%v), and the set says it can", i, r.Source, err)
			}
			checked["Apache rejects"]++
			continue
		}
		if len(args) != len(want) {
			t.Errorf("record %d (%s): args %v, Apache reads %v", i, r.Source, args, want)
		}
		for k, v := range want {
			if fmt.Sprint(args[k]) != v {
				t.Errorf("record %d (%s): %s = %v, Apache reads %s", i, r.Source, k, args[k], v)
			}
		}
		checked[r.Method]++
	}
	if checked["Set"] == 0 || checked["Get"] == 0 {
		t.Errorf("args checked %v: want Sets and Gets", checked)
	}
}

// apacheArgs is what Apache's generated code reads from msg (a Set or Get
// CALL), as the strings TSimpleJSONProtocol's fields decode to: numbers in
// decimal, binary in base64.
func apacheArgs(msg []byte) (map[string]string, error) {
	ctx := context.Background()
	buf := thrift.NewTMemoryBuffer()
	buf.Write(msg)
	p := thrift.NewTBinaryProtocolConf(buf, nil)
	name, _, _, err := p.ReadMessageBegin(ctx)
	if err != nil {
		return nil, err
	}
	b64 := base64.StdEncoding.EncodeToString
	if name == "Get" {
		var a memcached.MemcachedServiceGetArgs
		err := a.Read(ctx, p)
		return map[string]string{"req_id": fmt.Sprint(a.ReqID), "key": b64(a.Key)}, err
	}
	var a memcached.MemcachedServiceSetArgs
	err = a.Read(ctx, p)
	return map[string]string{"req_id": fmt.Sprint(a.ReqID), "key": b64(a.Key), "value": b64(a.Value),
		"flags": fmt.Sprint(a.Flags), "exptime": fmt.Sprint(a.Exptime)}, err
}
