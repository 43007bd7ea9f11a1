package main

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestTouchedLines checks the rate's line counts.
func TestTouchedLines(t *testing.T) {
	for _, tc := range []struct{ offset, size, touched int }{
		{0, 64, 1}, {1, 64, 2}, {63, 1, 1}, {63, 2, 2}, {0, 65, 2}, {32, 4096, 65}, {0, 65536, 1024},
	} {
		if got := touchedLines(tc.offset, tc.size); got != tc.touched {
			t.Errorf("touchedLines(%d, %d) = %d, want %d", tc.offset, tc.size, got, tc.touched)
		}
	}
}

// TestSetSchedule checks setSchedule against sums worked by hand from the
// step table of docs/abi.md section 10. memc-tiny (71 bytes, 8-byte key and
// value) at offset 0, 16 B/cycle: 1 + 6 + 4 (start) + 4 x 5 (header) +
// 5 + 5 (req_id) + 5 + 6 + 6 + 1 (key: header, length, one chunk, after)
// + the same for the value + 4 x 5 (flags, exptime) + 5 (STOP) + 10 + 64/16.
func TestSetSchedule(t *testing.T) {
	for _, tc := range []struct{ size, offset, width, want int }{
		{71, 0, 16, 116},
		{71, 62, 16, 117}, // the version word spans two lines
		{71, 0, 64, 113},  // the header line is one chunk
		{71, 0, 8, 120},   // eight
		{63, 0, 16, 108},  // empty value: no body, and one cycle less
		// A 64-byte value from byte 48: chunks at 48, 64, 80, 96, the
		// second in a later line: 116 - 6 + (6 + 3 + 1).
		{127, 0, 16, 120},
		// The same value from byte 0 of line 1 (offset 16): no crossing.
		{127, 16, 16, 119},
	} {
		if got := setSchedule(tc.size, tc.offset, tc.width); got != tc.want {
			t.Errorf("setSchedule(%d, %d, %d) = %d, want %d", tc.size, tc.offset, tc.width, got, tc.want)
		}
	}
}

func TestParseProfile(t *testing.T) {
	top := `File: bench
Type: cpu
Duration: 3s, Total samples = 2.50s (83.33%)
Showing nodes accounting for 2.50s, 100% of 2.50s total
      flat  flat%   sum%        cum   cum%
         0     0%     0%      2.40s 96.00%  arcalis/tb.(*Accel).RunVector
     0.90s 36.00% 36.00%      1.00s 40.00%  runtime.cgocall
         0     0% 36.00%      1.00s 40.00%  arcalis/vpi.(*Sim).Cycle
         0     0% 36.00%      100ms  4.00%  arcalis/vpi.(*Sim).RunUntilAny
     500ms 20.00% 56.00%      800ms 32.00%  arcalis/tb.Score
      50ms  2.00% 58.00%      200ms  8.00%  arcalis/tb.(*Memory).snapshot
`
	var s timeSplit
	if err := s.parse(top); err != nil {
		t.Fatal(err)
	}
	want := timeSplit{Total: 2500 * time.Millisecond, Eval: 900 * time.Millisecond, Crossing: 200 * time.Millisecond,
		Score: 800 * time.Millisecond, Snapshot: 200 * time.Millisecond, Harness: 300 * time.Millisecond, Runtime: 100 * time.Millisecond}
	if s != want {
		t.Errorf("parse:\n got %+v\nwant %+v", s, want)
	}
	if err := new(timeSplit).parse("no profile here"); err == nil {
		t.Error("parse of text without a total succeeded")
	}
}

func TestDur(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"0": 0, "10ms": 10 * time.Millisecond, "1.25s": 1250 * time.Millisecond, "450µs": 450 * time.Microsecond, "7ns": 7,
	} {
		if got := dur(in); got != want {
			t.Errorf("dur(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestFreshCopies(t *testing.T) {
	src := t.TempDir()
	a, b := filepath.Join(src, "prog"), filepath.Join(src, "lib.so")
	if err := os.WriteFile(a, []byte("program"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("library"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "copies")
	got, err := freshCopies(dir, a, b)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"program", "library"} {
		body, err := os.ReadFile(got[i])
		if err != nil || string(body) != want {
			t.Errorf("copy %d (%s): %q, %v; want %q", i, got[i], body, err, want)
		}
		if fi, err := os.Stat(got[i]); err != nil || fi.Mode()&0o100 == 0 || filepath.Dir(got[i]) != dir {
			t.Errorf("copy %d: %s is not an executable file in %s (%v)", i, got[i], dir, err)
		}
	}
	other := filepath.Join(t.TempDir(), "prog")
	if err := os.WriteFile(other, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := freshCopies(dir, a, other); err == nil || !strings.Contains(err.Error(), "two files named prog") {
		t.Errorf("two files named prog: err = %v", err)
	}
	if _, err := freshCopies(dir, filepath.Join(src, "missing")); err == nil {
		t.Error("copying a missing file succeeded")
	}
}

func TestCPUFor(t *testing.T) {
	c0, c1 := cpuFor(0), cpuFor(1)
	if runtime.NumCPU() < 2 {
		if c0 != -1 {
			t.Fatalf("one CPU: cpuFor(0) = %d, want -1", c0)
		}
		return
	}
	if c0 < 0 || c1 < 0 || c0 == c1 || cpuFor(2) != c0 {
		t.Fatalf("cpuFor 0, 1, 2 = %d, %d, %d: want two CPUs in turn", c0, c1, cpuFor(2))
	}
	errs := make(chan error)
	go func() { errs <- pinThread(c1) }() // the goroutine's thread ends with it
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	if err := pinThread(-1); err == nil {
		t.Error("pinThread(-1) succeeded")
	}
}

func TestStreamBound(t *testing.T) {
	// One chunk a cycle, one cycle lost per 64-byte line: 64/W chunks and a bubble per line.
	for w, want := range map[int]float64{8: 1.0 / 9, 16: 1.0 / 5, 32: 1.0 / 3, 64: 1.0 / 2} {
		if got := streamBound(w); math.Abs(got-want) > 1e-12 {
			t.Errorf("streamBound(%d) = %v, want %v", w, got, want)
		}
	}
}
