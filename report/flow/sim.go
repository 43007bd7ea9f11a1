// Package flow runs the report's jobs end to end: Yosys synthesis, a traced
// workload for the activity, the power estimate, SAIF, and the output files.
package flow

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"arcalis/tb"
	"arcalis/vectors"
)

// Workload is the traced simulation run that gives the activity.
type Workload struct {
	Model      string // Verilated model library
	Vectors    string // vector file
	MemLatency int
	Seed       int64
}

// Trace runs every record of the vector file through the model with an FST
// waveform on and returns how many records ran. Every record must match the
// reference: the activity of a run the scoreboard rejects would describe a
// broken design.
func Trace(w Workload, fst string) (int, error) {
	recs, err := vectors.ReadFile(w.Vectors)
	if err != nil {
		return 0, err
	}
	if len(recs) == 0 {
		return 0, fmt.Errorf("%s: no records to run", w.Vectors)
	}
	// The model belongs to one OS thread (vpi's rule).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	acc, err := tb.Open(w.Model, tb.MemConfig{Latency: w.MemLatency, Seed: w.Seed})
	if err != nil {
		return 0, err
	}
	defer acc.Close()
	if err := os.MkdirAll(filepath.Dir(fst), 0o755); err != nil {
		return 0, err
	}
	if err := acc.TraceOn(fst); err != nil {
		return 0, fmt.Errorf("waveform %s: %w", fst, err)
	}
	if err := acc.Configure(tb.WindowBase, tb.WindowSize); err != nil {
		return 0, err
	}
	for i, r := range recs {
		run := acc.RunVector(i, r.Source, r.Msg, tb.RunOptions{Offset: -1})
		if !run.OK() {
			acc.TraceOff()
			if run.Err != nil {
				return 0, fmt.Errorf("%s record %d (%s): %w", w.Vectors, r.Index, r.Source, run.Err)
			}
			return 0, fmt.Errorf("%s record %d (%s): RTL and reference disagree: %v", w.Vectors, r.Index, r.Source, run.Verdict.Diffs)
		}
	}
	if err := acc.TraceOff(); err != nil {
		return 0, err
	}
	return len(recs), nil
}

// FSTToVCD converts with gtkwave's fst2vcd.
func FSTToVCD(ctx context.Context, fst, vcd string) error {
	out, err := os.Create(vcd)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "fst2vcd", "-f", fst)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &stderr
	err = cmd.Run()
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("fst2vcd -f %s (gtkwave, installed by scripts/setup.sh): %w %s", fst, err, stderr.String())
	}
	return nil
}
