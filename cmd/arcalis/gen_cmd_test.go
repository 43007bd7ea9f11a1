package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"arcalis/vectors"
	"arcalis/vectors/workload"
)

func TestGen(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		args    []string
		records int
		summary string
	}{
		{"memc-tiny read-intense", []string{"--workload", "memc-tiny", "--count", "500", "--seed", "3", "--set-ratio", "5/95"}, 500, "of memc-tiny, seed 3"},
		{"memc-small high", []string{"-w", "memc-small", "-n", "500", "--set-ratio", "high", "--keys", "100"}, 500, "of memc-small, seed 1"},
		{"etc", []string{"--workload", "etc", "--count", "1000", "--seed", "9", "--zipf", "0.8"}, 1000, "of etc, seed 9"},
		{"etc sweep", []string{"--workload", "etc", "--count", "2", "--sweep"}, 2 * len(workload.SweepLengths()), "Get;"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".vec")
			stdout, err := runApp(t, append([]string{"vectors", "gen", "-o", out}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(stdout, tc.summary) {
				t.Errorf("summary %q does not contain %q", stdout, tc.summary)
			}
			recs := acceptedByRun(t, out)
			if len(recs) != tc.records {
				t.Fatalf("%d records, want %d", len(recs), tc.records)
			}
			// The same command writes the same bytes.
			again := out + ".again"
			if _, err := runApp(t, append([]string{"vectors", "gen", "-o", again}, tc.args...)...); err != nil {
				t.Fatal(err)
			}
			a, _ := os.ReadFile(out)
			b, _ := os.ReadFile(again)
			if string(a) != string(b) {
				t.Errorf("two runs with the same seed wrote different files")
			}
			if v, err := runApp(t, "vectors", "verify", out); err != nil {
				t.Errorf("verify: %v\n%s", err, v)
			}
		})
	}
}

// TestGenService: --service writes the generator's records for a service,
// and arcalis run takes them (the Memcached engine says UNKNOWN_METHOD, as
// the reference does: the generated recvFunctions are still to come).
func TestGenService(t *testing.T) {
	out := filepath.Join(t.TempDir(), "ps.vec")
	stdout, err := runApp(t, "vectors", "gen", "--service", "PostStorageService", "--count", "30", "--seed", "3", "-o", out)
	if err != nil || !strings.Contains(stdout, "generated 30 records of PostStorageService, seed 3") {
		t.Fatalf("gen --service: %v\n%s", err, stdout)
	}
	recs, err := vectors.ReadFile(out)
	if err != nil || len(recs) != 30 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	for _, rec := range recs {
		if m := rec.Meta["method"]; m != "StorePost" && m != "ReadPost" && m != "ReadPosts" {
			t.Fatalf("record %d: method %v", rec.Index, m)
		}
		if err := vectors.CheckMessage(rec.Msg); err != nil {
			t.Fatalf("record %d: %v", rec.Index, err)
		}
	}
}

func TestGenBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.vec")
	tests := []struct {
		args []string
		err  string
	}{
		{[]string{"--count", "5", "-o", out}, "vectors gen: missing --workload (one of memc-tiny, memc-small, etc) or --service (one of PostStorageService, UniqueIdService, UrlShortenService, UserTimelineService)"},
		{[]string{"--workload", "etc", "--service", "UniqueIdService", "-o", out}, "vectors gen: --workload and --service: give one"},
		{[]string{"--service", "Nope", "-o", out}, `vectors gen: --service "Nope": want one of PostStorageService, UniqueIdService`},
		{[]string{"--service", "UniqueIdService", "--count", "0", "-o", out}, "vectors gen: --count 0: want at least 1"},
		{[]string{"--workload", "etc"}, "vectors gen: missing -o OUT.vec"},
		{[]string{"--workload", "ycsb", "-o", out}, `vectors gen: unknown workload "ycsb" (want memc-tiny, memc-small, etc)`},
		{[]string{"--workload", "etc", "--count", "0", "-o", out}, "vectors gen: count 0: want at least 1"},
		{[]string{"--workload", "etc", "--set-ratio", "lots", "-o", out}, `vectors gen: --set ratio "lots": want low, mid, high`},
		{[]string{"--workload", "etc", "--set-ratio", "5/", "-o", out}, `--set ratio "5/": want SET/GET as two numbers >= 0`},
		{[]string{"--workload", "etc", "--keys", "0", "-o", out}, "vectors gen: keys 0: want at least 1"},
		{[]string{"--workload", "etc", "--zipf", "-2", "-o", out}, "vectors gen: zipf: skew -2: want a number >= 0"},
		{[]string{"--workload", "etc", "-o", out, "extra"}, `vectors gen: unexpected argument "extra"`},
		{[]string{"--workload", "etc", "--count", "x", "-o", out}, `invalid value "x" for flag -count`},
		{[]string{"--workload", "etc", "-o", filepath.Join(dir, "no", "such", "dir.vec")}, "no such file or directory"},
	}
	for _, tc := range tests {
		_, err := runApp(t, append([]string{"vectors", "gen"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("gen %v: error %v, want one containing %q", tc.args, err, tc.err)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("gen %v wrote %s", tc.args, out)
		}
	}
}
