package tb

import (
	"fmt"
	"testing"

	"arcalis/vectors"
)

// BenchmarkHarness runs vectors/default.vec through the harness at memory
// latency 4, as `arcalis run` does: ns/op is per request, and simulated
// cycles per second are reported. RunVector includes the scoreboard and the
// reference; Receive is the simulation and the bus-functional models alone.
func BenchmarkHarness(b *testing.B) {
	recs, err := vectors.ReadFile("../vectors/default.vec")
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name  string
		score bool
	}{{"RunVector", true}, {"Receive", false}} {
		b.Run(bc.name, func(b *testing.B) {
			onBench(b, func() error {
				old := dut.Mem.Config()
				if err := dut.Mem.SetConfig(MemConfig{Latency: 4, Seed: 1}); err != nil {
					return err
				}
				defer dut.Mem.SetConfig(old)
				c0 := dut.Cycle()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					k := i % len(recs)
					if bc.score {
						if r := dut.RunVector(k, recs[k].Source, recs[k].Msg, RunOptions{Offset: k % LineSize}); !r.OK() {
							return fmt.Errorf("vector %d: %v %v", k, r.Err, r.Verdict.Diffs)
						}
					} else if _, err := dut.Receive(Request{Msg: recs[k].Msg, Offset: k % LineSize}); err != nil {
						return fmt.Errorf("vector %d: %w", k, err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(dut.Cycle()-c0)/b.Elapsed().Seconds(), "cycles/s")
				return nil
			})
		})
	}
}

// onBench runs f on the model's thread (see on), waits for it and fails the
// benchmark with its error, from the benchmark's own goroutine.
func onBench(b *testing.B, f func() error) {
	b.Helper()
	done := make(chan error)
	jobs <- func() { done <- f() }
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
