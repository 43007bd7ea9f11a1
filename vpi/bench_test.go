package vpi

import (
	"testing"
)

// BenchmarkCycle compares three ways to drive the counter for one cycle
// while setting two inputs and reading two outputs; ns/op is per cycle and
// cycles/s is reported for each.
//
//	ports/Cycle(1)     one cgo call per cycle, values through the port buffers
//	ports/Cycle(1000)  one cgo call per 1000 cycles
//	vpi/per-signal     vpi_put_value/vpi_get_value per signal per cycle
func BenchmarkCycle(b *testing.B) {
	b.Run("ports/Cycle(1)", func(b *testing.B) {
		s := openCounter(b)
		p := registerPorts(b, s)
		p.apply(stimulus{rst: true, limit: 1 << 30})
		var sink uint64
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			p.en.Set(uint64(i & 1))
			p.step.Set(uint64(i))
			if err := s.Cycle(1); err != nil {
				b.Fatal(err)
			}
			sink += p.count.U64()
			if p.hit.Bit() {
				sink++
			}
		}
		report(b, sink)
	})
	b.Run("ports/Cycle(1000)", func(b *testing.B) {
		s := openCounter(b)
		p := registerPorts(b, s)
		p.apply(stimulus{rst: true, en: true, step: 1, limit: 1 << 30})
		var sink uint64
		b.ResetTimer()
		for i := 0; i < b.N; i += 1000 {
			if err := s.Cycle(min(1000, b.N-i)); err != nil {
				b.Fatal(err)
			}
			sink += p.count.U64()
		}
		report(b, sink)
	})
	b.Run("vpi/per-signal", func(b *testing.B) {
		s := openCounter(b)
		mustPut(b, mustSignal(b, s, "counter.rst_ni"), 1)
		mustPut(b, mustSignal(b, s, "counter.limit_i"), 1<<30)
		en, step := mustSignal(b, s, "counter.en_i"), mustSignal(b, s, "counter.step_i")
		count, hit := mustSignal(b, s, "counter.count_o"), mustSignal(b, s, "counter.hit_o")
		var sink uint64
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := en.PutU64(uint64(i & 1)); err != nil {
				b.Fatal(err)
			}
			if err := step.PutU64(uint64(i)); err != nil {
				b.Fatal(err)
			}
			if err := s.Cycle(1); err != nil {
				b.Fatal(err)
			}
			c, err := count.GetU64()
			if err != nil {
				b.Fatal(err)
			}
			h, err := hit.GetU64()
			if err != nil {
				b.Fatal(err)
			}
			sink += c + h
		}
		report(b, sink)
	})
}

func report(b *testing.B, sink uint64) {
	b.StopTimer()
	if sec := b.Elapsed().Seconds(); sec > 0 {
		b.ReportMetric(float64(b.N)/sec, "cycles/s")
	}
	if sink == 42 {
		b.Log("unlikely") // keeps sink alive
	}
}
