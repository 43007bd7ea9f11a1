package main

import (
	"fmt"
	"sort"

	"arcalis/bench/workload"
	"arcalis/golden"
	"arcalis/tb"
)

// PipelineDepth is the fixed part of the line-rate bound, in cycles: the
// stages every request crosses once whatever its size (see lineBound).
const PipelineDepth = 8

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
	Touched, Written      int // lines of Net.Recv holding the message; App.Recv lines written
	Stores                int // line stores the engine issued to App.Recv
	Cycles                int // CMD_SEND_NET_LEN to ready
}

// Bound is the lower bound: lines touched + lines written + depth.
func (p linePoint) Bound() int { return p.Touched + p.Written + PipelineDepth }

// StreamBound is the bound of a pipeline that loads and stores in the same
// cycles: the larger line count + depth.
func (p linePoint) StreamBound() int { return max(p.Touched, p.Written) + PipelineDepth }

// touchedLines is how many lines [offset, offset+size) spans.
func touchedLines(offset, size int) int { return (offset%64 + size + 63) / 64 }

// writtenLines is how many App.Recv lines a Set with an 8-byte key and a
// value of v bytes writes: the header line, the key's line, the value's.
func writtenLines(v int) int { return 2 + (v+63)/64 }

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
			stores := a.Mem.StoreCount
			r := a.RunVector(i, fmt.Sprintf("set-%d", size), msg, tb.RunOptions{Offset: off})
			if !r.OK() {
				return nil, fmt.Errorf("line rate: %d-byte Set at offset %d, latency %d: %v %v", size, off, latency, r.Err, r.Verdict.Diffs)
			}
			if r.Verdict.Ref.Code != golden.CodeOK {
				return nil, fmt.Errorf("line rate: %d-byte Set at offset %d: reference says %s", size, off, r.Verdict.Ref.Code)
			}
			v := size - workload.MinSetSize
			out = append(out, linePoint{
				Size: size, Offset: off, Latency: latency,
				Touched: touchedLines(off, size), Written: writtenLines(v),
				Stores: a.Mem.StoreCount - stores - 1, // the reply's store to Net.Resp is not App.Recv's
				Cycles: int(r.Outcome.Cycles),
			})
		}
	}
	return out, nil
}

// sizeSummary is the worst case over start offsets of one size.
type sizeSummary struct {
	Size                 int
	MinCycles, MaxCycles int
	WorstOver            int // max over offsets of cycles - bound
	WorstOverStream      int // max over offsets of cycles - stream bound
	WorstOffset          int
	Touched, Written     int // at the worst offset
	Stores               int
}

func summarizeSizes(pts []linePoint) []sizeSummary {
	by := map[int]*sizeSummary{}
	for _, p := range pts {
		s := by[p.Size]
		over, overS := p.Cycles-p.Bound(), p.Cycles-p.StreamBound()
		if s == nil {
			s = &sizeSummary{Size: p.Size, MinCycles: p.Cycles, MaxCycles: p.Cycles, WorstOver: over, WorstOverStream: overS,
				WorstOffset: p.Offset, Touched: p.Touched, Written: p.Written, Stores: p.Stores}
			by[p.Size] = s
		}
		s.MinCycles, s.MaxCycles = min(s.MinCycles, p.Cycles), max(s.MaxCycles, p.Cycles)
		s.WorstOverStream = max(s.WorstOverStream, overS)
		if over > s.WorstOver {
			s.WorstOver, s.WorstOffset, s.Touched, s.Written, s.Stores = over, p.Offset, p.Touched, p.Written, p.Stores
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
// zero memory latency over every start offset.
type tinyResult struct {
	Size, Min, Max int
}

func memcTiny(a *tb.Accel) (tinyResult, error) {
	offs := make([]int, 64)
	for i := range offs {
		offs[i] = i
	}
	size := workload.MinSetSize + 8
	pts, err := runLineRate(a, []int{size}, offs, 0)
	if err != nil {
		return tinyResult{}, err
	}
	t := tinyResult{Size: size, Min: pts[0].Cycles, Max: pts[0].Cycles}
	for _, p := range pts {
		t.Min, t.Max = min(t.Min, p.Cycles), max(t.Max, p.Cycles)
	}
	return t, nil
}
