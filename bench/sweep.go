package main

import (
	"fmt"

	"arcalis/bench/workload"
	"arcalis/tb"
)

// sweepLatencies are the memory latencies of the Figure-15-shaped sweep, in
// engine cycles (1 GHz: 5 ns .. 900 ns, the paper's range).
var sweepLatencies = []int{5, 10, 20, 50, 100, 200, 300, 500, 700, 900}

// sweepSeed is the seed of every mix's requests: the sweep and the Pareto
// report's per-width runs use the same requests.
const sweepSeed = 15

// sweepPoint is the mean end-to-end cost of one mix at one latency.
type sweepPoint struct {
	Mix        string
	InFlight   int // loads (and stores) in flight: 0 for the RTL's own (InFlight)
	Latency    int
	Requests   int
	PerReq     float64 // cycles from the first command to the last status, per request
	PerSet     float64
	PerGet     float64
	Sets       int
	Mismatches int
}

// runSweep runs n requests of every mix at every latency, with the RTL's
// own limit on requests in flight and with one at a time, and checks every
// request against the reference.
func runSweep(a *tb.Accel, n int) ([]sweepPoint, error) {
	var out []sweepPoint
	for _, mix := range workload.Mixes {
		reqs, err := mix.Generate(n, sweepSeed)
		if err != nil {
			return nil, err
		}
		for _, inflight := range []int{0, 1} {
			for _, lat := range sweepLatencies {
				p, err := runMix(a, mix.Name, reqs, lat, inflight)
				if err != nil {
					return nil, err
				}
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// runMix runs reqs one after another at memory latency lat with at most
// inflight loads and stores in flight (0: the RTL's own limit) and returns
// the mean cycles per request; any disagreement with the reference is an
// error.
func runMix(a *tb.Accel, name string, reqs []workload.Request, lat, inflight int) (sweepPoint, error) {
	if err := a.Mem.SetConfig(tb.MemConfig{Latency: lat, Seed: 1, MaxInFlight: inflight}); err != nil {
		return sweepPoint{}, err
	}
	p := sweepPoint{Mix: name, InFlight: inflight, Latency: lat, Requests: len(reqs)}
	var setCycles, getCycles uint64
	for i, r := range reqs {
		c0 := a.Cycle()
		run := a.RunVector(i, name, r.Msg, tb.RunOptions{Offset: r.Offset})
		if run.Err != nil {
			return p, fmt.Errorf("sweep %s latency %d: request %d: %w", name, lat, i, run.Err)
		}
		if !run.OK() {
			p.Mismatches++
		}
		c := a.Cycle() - c0
		if r.Set {
			setCycles += c
			p.Sets++
		} else {
			getCycles += c
		}
	}
	p.PerReq = float64(setCycles+getCycles) / float64(len(reqs))
	if p.Sets > 0 {
		p.PerSet = float64(setCycles) / float64(p.Sets)
	}
	if gets := len(reqs) - p.Sets; gets > 0 {
		p.PerGet = float64(getCycles) / float64(gets)
	}
	if p.Mismatches > 0 {
		return p, fmt.Errorf("sweep %s latency %d: %d requests disagree with the reference", name, lat, p.Mismatches)
	}
	return p, nil
}
