package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"arcalis/tb"
)

// Tests of arcalis run --jobs, --shard and --junit, and arcalis merge. They
// run a built arcalis binary, as a user would: the workers of --jobs are
// that binary started again.

// arcalisBin builds the arcalis command into the temporary directory of the
// top-level test (its subtests share it).
func arcalisBin(t *testing.T) string {
	t.Helper()
	top, _, _ := strings.Cut(t.Name(), "/")
	if bin, ok := built[top]; ok {
		return bin
	}
	bin := filepath.Join(t.TempDir(), "arcalis")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building arcalis: %v: %s", err, out)
	}
	built[top] = bin
	return bin
}

// built maps a top-level test's name to its arcalis binary; the tests here
// run one at a time.
var built = map[string]string{}

// arcalis runs the built binary with the model of this checkout and
// returns its stdout, stderr and whether it exited 0.
func arcalis(t *testing.T, env []string, args ...string) (stdout, stderr string, ok bool) {
	t.Helper()
	cmd := exec.Command(arcalisBin(t), args...)
	cmd.Env = append(append(os.Environ(), "ARCALIS_MODEL="+tb.FindModel()), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		t.Fatalf("arcalis %v: %v", args, err)
	}
	return out.String(), errOut.String(), err == nil
}

// results decodes arcalis run --json output.
func results(t *testing.T, out string) []vectorResult {
	t.Helper()
	var rs []vectorResult
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r vectorResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("bad JSON line %q: %v", line, err)
		}
		rs = append(rs, r)
	}
	return rs
}

func TestRunJobsSameAsOne(t *testing.T) {
	waves := t.TempDir()
	one, _, ok1 := arcalis(t, nil, "run", "--json", "--wave", waves, defaultSet)
	two, _, ok2 := arcalis(t, nil, "run", "--json", "--jobs", "2", "--wave", waves, defaultSet)
	three, _, ok3 := arcalis(t, nil, "run", "--json", "-j", "3", "--wave", waves, defaultSet, defaultSet)
	if !ok1 || !ok2 || !ok3 {
		t.Fatalf("runs failed: %v %v %v", ok1, ok2, ok3)
	}
	if one != two {
		t.Errorf("--jobs 2 printed other results than --jobs 1")
	}
	// The model on a thread of its own, here and in the workers.
	for _, jobs := range []string{"1", "2"} {
		if piped, _, ok := arcalis(t, nil, "run", "--json", "--sim-thread", "--jobs", jobs, "--wave", waves, defaultSet); !ok || piped != one {
			t.Errorf("--sim-thread --jobs %s: exit ok %v, same results as without: %v", jobs, ok, piped == one)
		}
	}
	rs := results(t, three)
	if len(rs) != 2*282 {
		t.Fatalf("--jobs 3 on the set twice: %d results, want %d", len(rs), 2*282)
	}
	for i, r := range rs {
		if r.Index != i || r.Total != 2*282 || !r.Match {
			t.Fatalf("result %d: index %d total %d match %v", i, r.Index, r.Total, r.Match)
		}
	}
	// The second copy of the file differs from the first only where the
	// index does: the start offset (index mod 64) and the fields it moves.
	first := results(t, one)
	for i, r := range rs[:282] {
		if r.Status != first[i].Status || r.KeyHex != first[i].KeyHex || r.ValueSHA256 != first[i].ValueSHA256 {
			t.Fatalf("record %d: %+v, alone %+v", i, r, first[i])
		}
	}
}

func TestShardsMergeToWholeRun(t *testing.T) {
	dir := t.TempDir()
	whole, _, ok := arcalis(t, nil, "run", "--json", "--wave", dir, defaultSet)
	if !ok {
		t.Fatal("unsharded run failed")
	}
	var files []string
	seen := 0
	for i := 1; i <= 3; i++ {
		shard := fmt.Sprintf("%d/3", i)
		out, _, ok := arcalis(t, nil, "run", "--json", "--shard", shard, "--wave", dir, defaultSet)
		if !ok {
			t.Fatalf("shard %s failed", shard)
		}
		for _, r := range results(t, out) {
			if r.Index%3 != i-1 || r.Shard != shard {
				t.Fatalf("shard %s ran vector %d (shard field %q)", shard, r.Index, r.Shard)
			}
			seen++
		}
		f := filepath.Join(dir, fmt.Sprintf("shard%d.jsonl", i))
		if err := os.WriteFile(f, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if seen != 282 {
		t.Fatalf("the shards ran %d vectors, want 282", seen)
	}
	junit := filepath.Join(dir, "merged.xml")
	merged, _, ok := arcalis(t, nil, append([]string{"merge", "--json", "--junit", junit}, files[2], files[0], files[1])...)
	if !ok {
		t.Fatal("merge failed")
	}
	if merged != whole {
		t.Error("merged shards differ from the unsharded run")
	}
	var doc junitSuites
	if b, err := os.ReadFile(junit); err != nil || xml.Unmarshal(b, &doc) != nil || doc.Tests != 282 || doc.Failures+doc.Errors != 0 {
		t.Errorf("merged JUnit: %+v, %v", doc, err)
	}

	// Incomplete, duplicated and mixed inputs are refused with the reason.
	other := filepath.Join(dir, "other.jsonl")
	out, _, _ := arcalis(t, nil, "run", "--json", "--shard", "1/3", "--mem-latency", "7", "--wave", dir, defaultSet)
	os.WriteFile(other, []byte(out), 0o644)
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
	} {
		_, stderr, ok := arcalis(t, nil, append([]string{"merge"}, tc.files...)...)
		if ok || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: ok %v, stderr %q, want it to contain %q", tc.name, ok, stderr, tc.want)
		}
	}
}

func TestWorkerCrashAndHang(t *testing.T) {
	dir := t.TempDir()
	whole, _, _ := arcalis(t, nil, "run", "--json", "--wave", dir, defaultSet)
	want := results(t, whole)
	junit := filepath.Join(dir, "crash.xml")
	for _, tc := range []struct {
		fault  string
		index  int
		status string
		args   []string
	}{
		{"crash:17", 17, "CRASH", []string{"--junit", junit}},
		{"hang:40", 40, "TIMEOUT", []string{"--timeout", "1s"}},
	} {
		t.Run(tc.status, func(t *testing.T) {
			args := append([]string{"run", "--json", "--jobs", "2", "--wave", dir}, tc.args...)
			out, stderr, ok := arcalis(t, []string{"ARCALIS_WORKER_FAULT=" + tc.fault}, append(args, defaultSet)...)
			if ok {
				t.Fatal("run with a lost vector exited 0")
			}
			got := results(t, out)
			if len(got) != len(want) {
				t.Fatalf("%d results, want %d (stderr %s)", len(got), len(want), stderr)
			}
			for i, r := range got {
				if i == tc.index {
					if r.Status != tc.status || r.Match || r.Expected != want[i].Expected ||
						!strings.Contains(r.Replay, "--record 17 --offset 17") && tc.index == 17 || len(r.Diffs) == 0 {
						t.Errorf("lost vector: %+v", r)
					}
					continue
				}
				r.seconds, want[i].seconds = 0, 0
				if b1, _ := json.Marshal(r); !bytes.Equal(b1, mustJSON(want[i])) {
					t.Errorf("vector %d after a lost one: %s, want %s", i, b1, mustJSON(want[i]))
				}
			}
			if !strings.Contains(stderr, "1 of 282 vectors disagree") {
				t.Errorf("summary: %s", stderr)
			}
		})
	}
	var doc junitSuites
	if b, err := os.ReadFile(junit); err != nil || xml.Unmarshal(b, &doc) != nil {
		t.Fatalf("JUnit file: %v", err)
	}
	if doc.Tests != 282 || doc.Errors != 1 || doc.Failures != 0 || len(doc.Suites) != 1 {
		t.Fatalf("JUnit counts: %d tests, %d errors, %d failures", doc.Tests, doc.Errors, doc.Failures)
	}
	tc := doc.Suites[0].Cases[17]
	if tc.Error == nil || tc.Error.Type != "CRASH" || !strings.Contains(tc.Error.Text, "replay: arcalis run --record 17") {
		t.Errorf("JUnit case 17: %+v", tc)
	}
}

func mustJSON(r vectorResult) []byte {
	b, _ := json.Marshal(r)
	return b
}

func TestRunFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "0/3"}, `--shard "0/3": want i/n with 1 <= i <= n`},
		{[]string{"--shard", "4/3"}, `--shard "4/3"`},
		{[]string{"--shard", "2"}, `--shard "2"`},
		{[]string{"--jobs", "0"}, "--jobs 0: want 1..1024"},
	} {
		_, err := runApp(t, append(append([]string{"run"}, tc.args...), defaultSet)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run %v: %v, want %q", tc.args, err, tc.want)
		}
	}
	if _, err := runApp(t, "merge"); err == nil || !strings.Contains(err.Error(), "no result files") {
		t.Errorf("merge without files: %v", err)
	}
}
