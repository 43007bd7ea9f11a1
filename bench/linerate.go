package main

import (
	"fmt"
	"sort"

	"arcalis/bench/workload"
	"arcalis/golden"
	"arcalis/tb"
)

// streamBound is the datapath's streaming rate in lines per cycle: one
// chunk of width bytes a cycle, and one cycle lost each time the head
// crosses into the next line (docs/abi.md section 10): width/(64 + width).
func streamBound(width int) float64 { return float64(width) / float64(tb.LineSize+width) }

// InFlight is how many loads (and stores) arcalis_top lets fly by default
// (its LdqDepth and StqDepth parameters).
const InFlight = 32

// lineRateSizes are the message sizes of section 1: one byte below, at and
// above every line multiple of a ladder from 1 to 1024 lines (64 B .. 64 KiB).
func lineRateSizes() []int {
	var sizes []int
	for _, k := range []int{1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024} {
		for _, s := range []int{64*k - 1, 64 * k, 64*k + 1} {
			if s >= 64 && s <= 64*1024 {
				sizes = append(sizes, s)
			}
		}
	}
	return sizes
}

// linePoint is one request of the line-rate sweep.
type linePoint struct {
	Size, Offset, Latency int
	Touched               int // lines of Net.Recv holding the message
	Cycles                int // CMD_SEND_NET_LEN to ready
}

// touchedLines is how many lines [offset, offset+size) spans.
func touchedLines(offset, size int) int { return (offset%64 + size + 63) / 64 }

// runLineRate sends one Set of every size at every start offset through the
// engine at the given memory latency and checks each against the reference.
func runLineRate(a *tb.Accel, sizes, offsets []int, latency int) ([]linePoint, error) {
	if err := a.Mem.SetConfig(tb.MemConfig{Latency: latency, Seed: 1}); err != nil {
		return nil, err
	}
	var out []linePoint
	for i, size := range sizes {
		msg, err := workload.SetOfSize(size, int32(i+1))
		if err != nil {
			return nil, err
		}
		for _, off := range offsets {
			r := a.RunVector(i, fmt.Sprintf("set-%d", size), msg, tb.RunOptions{Offset: off})
			if !r.OK() {
				return nil, fmt.Errorf("line rate: %d-byte Set at offset %d, latency %d: %v %v", size, off, latency, r.Err, r.Verdict.Diffs)
			}
			if r.Verdict.Ref.Code != golden.CodeOK {
				return nil, fmt.Errorf("line rate: %d-byte Set at offset %d: reference says %s", size, off, r.Verdict.Ref.Code)
			}
			out = append(out, linePoint{Size: size, Offset: off, Latency: latency,
				Touched: touchedLines(off, size), Cycles: int(r.Outcome.Cycles)})
		}
	}
	return out, nil
}

// sizeSummary is one size over every start offset, against setSchedule
// (the points must be at latency 0).
type sizeSummary struct {
	Size                 int
	MinCycles, MaxCycles int
	MinSched, MaxSched   int
	WorstOver            int // max over offsets of cycles - schedule
	BestOver             int // min over offsets of cycles - schedule
	WorstOffset          int
}

func summarizeSizes(pts []linePoint, width int) []sizeSummary {
	by := map[int]*sizeSummary{}
	for _, p := range pts {
		s := by[p.Size]
		sched := setSchedule(p.Size, p.Offset, width)
		over := p.Cycles - sched
		if s == nil {
			s = &sizeSummary{Size: p.Size, MinCycles: p.Cycles, MaxCycles: p.Cycles, MinSched: sched, MaxSched: sched,
				WorstOver: over, BestOver: over, WorstOffset: p.Offset}
			by[p.Size] = s
		}
		s.MinCycles, s.MaxCycles = min(s.MinCycles, p.Cycles), max(s.MaxCycles, p.Cycles)
		s.MinSched, s.MaxSched = min(s.MinSched, sched), max(s.MaxSched, sched)
		s.BestOver = min(s.BestOver, over)
		if over > s.WorstOver {
			s.WorstOver, s.WorstOffset = over, p.Offset
		}
	}
	var out []sizeSummary
	for _, s := range by {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Size < out[j].Size })
	return out
}

// rateResult is the sustained load rate of large requests at one latency.
type rateResult struct {
	Latency     int
	Small, Big  linePoint // the two sizes the marginal rate is taken between
	Marginal    float64   // extra lines per extra cycle from Small to Big
	Overall     float64   // Big's lines per cycle, fixed costs included
	LittleBound float64   // InFlight loads in flight / (latency + 1) cycles round trip, at most 1
}

// BytesPerCycle is the sustained rate in message bytes per cycle: the bytes
// Big has over Small by the cycles it takes over Small (fixed costs cancel).
func (q rateResult) BytesPerCycle() float64 {
	if q.Big.Cycles <= q.Small.Cycles {
		return 0
	}
	return float64(q.Big.Size-q.Small.Size) / float64(q.Big.Cycles-q.Small.Cycles)
}

// runRates measures the line rate of 32 KiB and 64 KiB Sets at offset 0.
func runRates(a *tb.Accel, latencies []int) ([]rateResult, error) {
	var out []rateResult
	for _, l := range latencies {
		pts, err := runLineRate(a, []int{32 * 1024, 64 * 1024}, []int{0}, l)
		if err != nil {
			return nil, err
		}
		s, b := pts[0], pts[1]
		out = append(out, rateResult{
			Latency: l, Small: s, Big: b,
			Marginal:    float64(b.Touched-s.Touched) / float64(b.Cycles-s.Cycles),
			Overall:     float64(b.Touched) / float64(b.Cycles),
			LittleBound: min(1, InFlight/float64(l+1)),
		})
	}
	return out, nil
}

// tinyResult is the memc-tiny Set (8-byte key, 8-byte value: 71 bytes) at
// zero memory latency over every start offset, against its schedule.
type tinyResult struct {
	Size, Min, Max      int
	MinSched, MaxSched  int
	WorstOver, BestOver int // max and min over offsets of cycles - schedule
}

func memcTiny(a *tb.Accel, width int) (tinyResult, error) {
	offs := make([]int, 64)
	for i := range offs {
		offs[i] = i
	}
	size := workload.MinSetSize + 8
	pts, err := runLineRate(a, []int{size}, offs, 0)
	if err != nil {
		return tinyResult{}, err
	}
	s := summarizeSizes(pts, width)[0]
	return tinyResult{Size: size, Min: s.MinCycles, Max: s.MaxCycles, MinSched: s.MinSched, MaxSched: s.MaxSched,
		WorstOver: s.WorstOver, BestOver: s.BestOver}, nil
}
