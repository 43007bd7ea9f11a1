package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"arcalis/regress"
	"arcalis/serve/schemasvc"
	"arcalis/tb/schemarx"
	"arcalis/vectors"
)

// Tests of arcalis run --service with --jobs, --shard and merge: the same
// results as one process, whatever the number of workers or shards.

// cyclesIn is the wall time of a summary's first line, the one thing in it
// that differs between two runs.
var cyclesIn = regexp.MustCompile(`(?m)^(\d+ vectors, \d+ simulated cycles) in .*$`)

// summary is a run's summary without its wall time and without the lines
// of the model's build and of progress, which come and go.
func summary(s string) string {
	var keep []string
	for _, l := range strings.Split(cyclesIn.ReplaceAllString(s, "$1"), "\n") {
		if !strings.HasPrefix(l, "run: make ") && !strings.HasPrefix(l, "... run: ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// lineMaps decodes --json output into one map per line.
func lineMaps(t *testing.T, out string) []map[string]any {
	t.Helper()
	var ls []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("bad JSON line %q: %v", line, err)
		}
		ls = append(ls, m)
	}
	return ls
}

// serviceLib builds the model of service name (make schema-pair-model) and
// returns its path: runs given it with --model skip make's own check, a
// second or two each.
func serviceLib(t *testing.T, name string) string {
	t.Helper()
	sc, err := schemasvc.PairCase(name)
	if err != nil {
		t.Fatal(err)
	}
	lib, err := sc.Build(checkout(t), 0)
	if err != nil {
		t.Fatal(err)
	}
	return lib
}

// junitTimes are a JUnit file's wall times.
var junitTimes = regexp.MustCompile(`time="[^"]*"`)

func TestRunServiceJobsSameAsOne(t *testing.T) {
	root := checkout(t)
	file := filepath.Join(root, "vectors", "default-unique_id.vec")
	recs, err := vectors.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dir, lib := t.TempDir(), serviceLib(t, "UniqueIdService")
	run := func(jobs string) (invocation, string) {
		junit := filepath.Join(dir, "jobs"+jobs+".xml")
		inv := runService(t, "UniqueIdService", "--json", "--jobs", jobs, "--junit", junit, "--run-id", "r1", "--wave", dir, "--model", lib, file)
		b, err := os.ReadFile(junit)
		if err != nil {
			t.Fatalf("--jobs %s: exit %d, %v\n%s", jobs, inv.code, err, inv.stderr)
		}
		return inv, junitTimes.ReplaceAllString(string(b), `time=""`)
	}
	one, oneJUnit := run("1")
	three, threeJUnit := run("3")
	if one.code != exitOK || three.code != one.code {
		t.Fatalf("exit %d with one job, %d with three; want 0\n%s\n%s", one.code, three.code, one.stderr, three.stderr)
	}
	lines := lineMaps(t, one.stdout)
	if len(lines) != len(recs) {
		t.Fatalf("%d lines for %d records", len(lines), len(recs))
	}
	for i, l := range lines {
		if l["index"] != float64(i) || l["record"] != float64(i) || l["service"] != "UniqueIdService" || l["match"] != true {
			t.Fatalf("line %d: %v", i, l)
		}
	}
	if three.stdout != one.stdout {
		t.Errorf("--jobs 3 printed other lines than --jobs 1:\n%.600s\nwant\n%.600s", three.stdout, one.stdout)
	}
	want := fmt.Sprintf("%d vectors, ", len(recs))
	if s := summary(one.stderr); !strings.Contains(s, want) || summary(three.stderr) != s {
		t.Errorf("summaries:\n%s\nwith three jobs\n%s", s, summary(three.stderr))
	}
	// A --service line has no Net.Recv start offset to report.
	if !strings.Contains(oneJUnit, fmt.Sprintf(`tests="%d"`, len(recs))) || threeJUnit != oneJUnit ||
		strings.Contains(oneJUnit, "start offset") || !strings.Contains(oneJUnit, "<system-out>index 0, ") {
		t.Errorf("JUnit files differ, or lack the %d tests:\n%.800s\nwith three jobs\n%.800s", len(recs), oneJUnit, threeJUnit)
	}

	// A vector lost with its worker (serviceKind's Lost): the reference's
	// code and offset as the run gave them, no RTL, and a replay line.
	s := schemaSetup{Service: "UniqueIdService", Root: root, Capacity: schemarx.MaxCap, Total: len(recs), Config: "c"}
	lr, err := loadSchemaRun(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range []int{0, len(recs) - 1} {
		v := regress.Vector{Index: rec, File: file, Rec: recs[rec]}
		ck, err := lr.lost(v, "TIMEOUT", []string{"TIMEOUT: no result within 1s; worker killed"})
		if err != nil {
			t.Fatal(err)
		}
		var l map[string]any
		if err := json.Unmarshal(ck.Line, &l); err != nil {
			t.Fatal(err)
		}
		replay := fmt.Sprintf("arcalis run --service UniqueIdService --record %d --wave waves %s", rec, file)
		if l["status"] != "TIMEOUT" || l["match"] != false || l["expected"] != lines[rec]["expected"] ||
			l["expected_offset"] != lines[rec]["expected_offset"] || l["replay"] != replay || l["index"] != float64(rec) {
			t.Errorf("lost record %d: %s; the run's line %v, want replay %q", rec, ck.Line, lines[rec], replay)
		}
		if r := ck.Result; r.Status != "TIMEOUT" || r.Match || r.Replay != replay || r.Record != rec || len(r.Diffs) != 1 {
			t.Errorf("lost record %d's result: %+v", rec, r)
		}
	}
}

// TestRunServiceJobsFailures runs UniqueIdService's first records on
// another service's model (as TestRunServiceMismatch does): the failure
// reports, their waveforms and replay lines, and the exit status are the
// same with one job and with three.
func TestRunServiceJobsFailures(t *testing.T) {
	root := checkout(t)
	lib := serviceLib(t, "PostStorageService")
	recs, err := vectors.ReadFile(filepath.Join(root, "vectors", "default-unique_id.vec"))
	if err != nil {
		t.Fatal(err)
	}
	file := writeVec(t, filepath.Join(t.TempDir(), "first.vec"), recs[:12]...)
	waves := t.TempDir()
	run := func(jobs string) (invocation, []string) {
		os.RemoveAll(waves)
		inv := runService(t, "UniqueIdService", "--jobs", jobs, "--model", lib, "--wave", waves, "--run-id", "r2", file)
		var names []string
		if ents, err := os.ReadDir(waves); err == nil {
			for _, e := range ents {
				if fi, err := e.Info(); err == nil && fi.Size() > 0 {
					names = append(names, filepath.Join(waves, e.Name()))
				}
			}
		}
		return inv, names
	}
	one, oneWaves := run("1")
	three, threeWaves := run("3")
	if one.code != exitFindings || three.code != one.code {
		t.Fatalf("exit %d with one job, %d with three; want %d\n%s\n%s", one.code, three.code, exitFindings, one.stderr, three.stderr)
	}
	failed := strings.Count(one.stdout, "MISMATCH ")
	printed := regexp.MustCompile(`(?m)^    waveform: (.*)$`).FindAllStringSubmatch(one.stdout, -1)
	if failed == 0 || strings.Count(one.stdout, "\n    replay:   arcalis run --service UniqueIdService --record ") != failed || len(printed) != failed {
		t.Fatalf("%d failures, %d waveforms printed; want some, each with its waveform and replay line:\n%s", failed, len(printed), one.stdout)
	}
	var paths []string
	for _, m := range printed {
		paths = append(paths, m[1])
	}
	slices.Sort(paths)
	if !reflect.DeepEqual(oneWaves, paths) || !reflect.DeepEqual(threeWaves, paths) {
		t.Errorf("waveforms written: %q with one job, %q with three; printed %q", oneWaves, threeWaves, paths)
	}
	if summary(three.stdout) != summary(one.stdout) {
		t.Errorf("--jobs 3 printed\n%s\nwant --jobs 1's\n%s", summary(three.stdout), summary(one.stdout))
	}
	if want := fmt.Sprintf("FAIL %d of 12 vectors disagree", failed); !strings.Contains(one.stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, one.stdout)
	}
}

// TestRunServiceShards runs the two shards of a --service run (one with
// workers) and checks that together they are the unsharded run, and that
// arcalis merge makes it of them.
func TestRunServiceShards(t *testing.T) {
	root := checkout(t)
	file := filepath.Join(root, "vectors", "default-unique_id.vec")
	lib := serviceLib(t, "UniqueIdService")
	whole := runService(t, "UniqueIdService", "--json", "--model", lib, file)
	if whole.code != exitOK {
		t.Fatalf("unsharded run: exit %d\n%s", whole.code, whole.stderr)
	}
	want := lineMaps(t, whole.stdout)
	dir := t.TempDir()
	var files []string
	seen := 0
	for i, jobs := range []string{"1", "2"} {
		shard := fmt.Sprintf("%d/2", i+1)
		inv := runService(t, "UniqueIdService", "--json", "--shard", shard, "--jobs", jobs, "--model", lib, file)
		if inv.code != exitOK {
			t.Fatalf("shard %s: exit %d\n%s", shard, inv.code, inv.stderr)
		}
		for _, l := range lineMaps(t, inv.stdout) {
			index := int(l["index"].(float64))
			if index%2 != i || l["shard"] != shard {
				t.Fatalf("shard %s ran vector %d (shard field %v)", shard, index, l["shard"])
			}
			delete(l, "shard")
			if !reflect.DeepEqual(l, want[index]) {
				t.Errorf("shard %s, vector %d: %v\nunsharded: %v", shard, index, l, want[index])
			}
			seen++
		}
		f := filepath.Join(dir, fmt.Sprintf("shard%d.jsonl", i+1))
		if err := os.WriteFile(f, []byte(inv.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if seen != len(want) {
		t.Errorf("the shards ran %d vectors, the whole run %d", seen, len(want))
	}
	merged := arcalisIn(t, "", []string{"NO_COLOR=1"}, "merge", "--json", files[1], files[0])
	if merged.code != exitOK || merged.stdout != whole.stdout {
		t.Errorf("merge --json: exit %d, the unsharded lines: %v\n%.600s", merged.code, merged.stdout == whole.stdout, merged.stdout)
	}
	// merge's summary has no cycles: the rest is the unsharded run's.
	_, wholeCounts, _ := strings.Cut(summary(whole.stderr), "\n")
	if first, counts, _ := strings.Cut(merged.stderr, "\n"); first != fmt.Sprintf("%d vectors", len(want)) || counts != wholeCounts {
		t.Errorf("merge's summary:\n%s\nwant %d vectors and\n%s", merged.stderr, len(want), wholeCounts)
	}
}
