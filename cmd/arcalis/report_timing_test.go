package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportTimingGate: make timing is a gate. A design that closes the
// target with its 20 % margin exits 0; one below the target or the
// margin, or with an input reaching an output through logic, is a finding
// (exit 1); a missing netlist is an input error (exit 2). The netlists are
// report/timing's hand-made ones.
func TestReportTimingGate(t *testing.T) {
	nl := func(name string) string { return filepath.Join("..", "..", "report", "timing", "testdata", name) }
	tests := []struct {
		name    string
		args    []string
		code    int
		errText string
	}{
		// lut_chain's longest path is 0.456 + 4 x 0.60 + 3 x 0.124 = 3.228 ns:
		// 309.8 MHz, which is 250 MHz with 20 % to spare (3.333 ns), and
		// 280 MHz without it (2.976 ns).
		{"closes 250 with the margin", []string{"--freq", "250", "--netlist", nl("lut_chain.json")}, exitOK, ""},
		{"closes 280 without the margin", []string{"--freq", "280", "--netlist", nl("lut_chain.json")}, exitFindings, "1 endpoints are above the 20 % margin's 2.976 ns"},
		{"below 320", []string{"--freq", "320", "--netlist", nl("lut_chain.json")}, exitFindings, "below the 320.0 MHz target"},
		{"input to output", []string{"--netlist", nl("in_out.json")}, exitFindings, "1 output bits are reached from an input"},
		{"loop", []string{"--netlist", nl("loop.json")}, exitError, "combinational loop"},
		{"no netlist", []string{"--netlist", "no-such.json"}, exitError, "no-such.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			args := append([]string{"report", "timing", "--out", out}, tc.args...)
			_, err := runApp(t, args...)
			if got := exitStatus(err); got != tc.code {
				t.Fatalf("exit %d (%v), want %d", got, err, tc.code)
			}
			if tc.errText != "" && !strings.Contains(err.Error(), tc.errText) {
				t.Errorf("error %q lacks %q", err, tc.errText)
			}
			if tc.code != exitError {
				if _, err := os.Stat(filepath.Join(out, "timing.md")); err != nil {
					t.Errorf("no report written: %v", err)
				}
			}
		})
	}
}

func exitStatus(err error) int {
	if err == nil {
		return exitOK
	}
	return exitCode(err)
}
