package vpi_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"arcalis/tb"
	"arcalis/vpi"
)

// busRun is everything one run of the requester did that the way its
// cycles ran must not change, and how they ran.
type busRun struct {
	log           []vpi.MemEvent
	sum, acks     uint64 // the requester's folds of every answer it got
	violations    []string
	loads, stores int
	mem           []byte // the region, the lines past it and the far page's
	handoffs      int
	calls         uint64
}

// The requester's address space (vpi/testdata/requester.sv): 32 lines from
// reqBase, 32 lines past them, and 32 lines a page off.
const (
	reqBase = 0x0030_0000
	farPage = reqBase + 0x10_0000
)

// runRequester runs the requester from seed for cycles cycles after a
// reset, on a fresh model and memory, through the line memory (as many
// cycles per call as it runs) or a cycle at a time with Memory answering
// in Go.
func runRequester(t *testing.T, lib string, seed uint64, odd bool, cfg tb.MemConfig, rd, wr tb.Region, cycles int, lineMem bool) busRun {
	t.Helper()
	s, err := vpi.Open(lib, vpi.Options{Clock: "clk_i"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}()
	var p vpi.LineMemPorts
	var rst, seedIn, baseIn, oddIn, sum, acks *vpi.Port
	for _, b := range []struct {
		name  string
		input bool
		port  **vpi.Port
	}{
		{"rst_ni", true, &rst}, {"seed_i", true, &seedIn}, {"base_i", true, &baseIn}, {"odd_i", true, &oddIn},
		{"ld_req_ready_i", true, &p.LdReqReady}, {"ld_rsp_valid_i", true, &p.LdRspValid}, {"ld_rsp_tag_i", true, &p.LdRspTag},
		{"ld_rsp_data_i", true, &p.LdRspData}, {"ld_rsp_err_i", true, &p.LdRspErr},
		{"st_req_ready_i", true, &p.StReqReady}, {"st_ack_valid_i", true, &p.StAckValid}, {"st_ack_tag_i", true, &p.StAckTag},
		{"ld_req_valid_o", false, &p.LdReqValid}, {"ld_req_addr_o", false, &p.LdReqAddr}, {"ld_req_tag_o", false, &p.LdReqTag},
		{"st_req_valid_o", false, &p.StReqValid}, {"st_req_addr_o", false, &p.StReqAddr}, {"st_req_tag_o", false, &p.StReqTag},
		{"st_req_data_o", false, &p.StReqData}, {"st_req_strb_o", false, &p.StReqStrb},
		{"state_o", false, &p.Watch[0]}, {"sum_o", false, &sum}, {"acks_o", false, &acks},
	} {
		get := s.Output
		if b.input {
			get = s.Input
		}
		if *b.port, err = get(b.name); err != nil {
			t.Fatal(err)
		}
	}
	m := tb.NewMemory(cfg)
	for i := range 32 * 64 * 2 {
		m.Write(reqBase+uint64(i), []byte{byte(i*7 + int(seed))})
	}
	m.Readable, m.Writable = rd, wr
	bus, err := tb.NewMemBus(s, m, p)
	if err != nil {
		t.Fatal(err)
	}
	seedIn.Set(seed)
	baseIn.Set(reqBase)
	oddIn.Set(map[bool]uint64{false: 0, true: 1}[odd])
	rst.Set(0)
	if err := s.Cycle(2); err != nil {
		t.Fatal(err)
	}
	rst.Set(1)
	calls := s.Calls()
	for done := 0; done < cycles; {
		n := 1
		if lineMem {
			n, err = bus.Run(cycles - done)
		} else {
			err = bus.Step()
		}
		if err != nil {
			t.Fatalf("seed %d, line memory %v, cycle %d: %v", seed, lineMem, done, err)
		}
		done += n
	}
	return busRun{
		log: slices.Clone(bus.Log()), sum: sum.U64(), acks: acks.U64(),
		violations: slices.Clone(m.Violations), loads: m.LoadCount, stores: m.StoreCount,
		mem:      append(m.Read(reqBase, 64*64), m.Read(farPage, 32*64)...),
		handoffs: bus.Handoffs(), calls: s.Calls() - calls,
	}
}

// TestLineMemMatchesMemory drives the requester's random loads and stores
// (the same line at the same edge among them; in all but the "plain" case
// lines outside the regions, addresses not line aligned, a page not yet
// made) through the line
// memory, judged by tb.Memory from its log, and a cycle at a time with
// tb.Memory answering in Go, from the same seeds at several latencies and
// regions. The two must agree cycle for cycle: the same log (every
// request, answer and change of state_o with its edge), the same answers
// (the requester folds each one's data and tag, in order), the same
// violations and counts, the same memory afterwards.
func TestLineMemMatchesMemory(t *testing.T) {
	lib := vpi.BuildRequester(t)
	region := tb.Region{Name: "the region", Base: reqBase, Size: 32 * 64}
	for _, tc := range []struct {
		name   string
		odd    bool
		rd, wr tb.Region
	}{
		// Requests to the region only: no handoff, and calls that end
		// with the log full.
		{"plain", false, region, region},
		// Loads anywhere but the far page; stores to the region only.
		{"regions", true, tb.Region{Name: "region and past", Base: reqBase, Size: 64 * 64}, region},
		// Everything readable; stores to a range that ends inside lines,
		// so the line memory hands back the stores to its first and last
		// lines and Memory writes part of them.
		{"ragged", true, tb.Region{Name: "all", Base: 0, Size: 1 << 40}, tb.Region{Name: "ragged", Base: reqBase + 40, Size: 40*64 + 3}},
	} {
		for _, lat := range []int{0, 1, 4, 9} {
			for _, seed := range []uint64{1, 0x9e3779b97f4a7c15, 0xdeadbeef} {
				name := fmt.Sprintf("%s/latency %d/seed %#x", tc.name, lat, seed)
				cfg := tb.MemConfig{Latency: lat, Seed: int64(seed)}
				const cycles = 5000
				g := runRequester(t, lib, seed, tc.odd, cfg, tc.rd, tc.wr, cycles, false)
				l := runRequester(t, lib, seed, tc.odd, cfg, tc.rd, tc.wr, cycles, true)
				compareRuns(t, name, g, l)
				if tc.odd && (l.handoffs == 0 || len(g.violations) == 0) {
					t.Errorf("%s: %d handoffs, %d violations: the odd requests did not happen", name, l.handoffs, len(g.violations))
				}
				if !tc.odd && (l.handoffs != 0 || len(g.violations) != 0 || l.calls < 2 || l.calls > 4) {
					t.Errorf("%s: %d handoffs, %d violations, %d calls: want none, none and the log filling up once or twice", name, l.handoffs, len(g.violations), l.calls)
				}
				if l.calls*10 > g.calls {
					t.Errorf("%s: %d calls through the line memory for %d cycles", name, l.calls, g.calls)
				}
				same := 0
				for i := 1; i < len(g.log); i++ {
					a, b := g.log[i-1], g.log[i]
					if a.Kind == vpi.MemLoadTaken && b.Kind == vpi.MemStoreTaken && a.Edge == b.Edge && a.Addr == b.Addr {
						same++
					}
				}
				if same == 0 {
					t.Errorf("%s: no edge loaded and stored one line", name)
				}
				t.Logf("%s: %d events, %d loads, %d stores (%d of one line at one edge), %d violations; %d calls, %d handoffs",
					name, len(g.log), g.loads, g.stores, same, len(g.violations), l.calls, l.handoffs)
			}
		}
	}
}

// compareRuns reports where the line memory's run l differs from Go's g.
func compareRuns(t *testing.T, name string, g, l busRun) {
	t.Helper()
	if i := firstDiff(g.log, l.log); i >= 0 {
		at := func(v []vpi.MemEvent) string {
			if i < len(v) {
				return fmt.Sprintf("%+v", v[i])
			}
			return "the end"
		}
		t.Errorf("%s: logs differ at event %d of %d and %d: Go %s, line memory %s", name, i, len(g.log), len(l.log), at(g.log), at(l.log))
	}
	if g.sum != l.sum || g.acks != l.acks {
		t.Errorf("%s: answers differ: Go folds %#x and %#x, line memory %#x and %#x", name, g.sum, g.acks, l.sum, l.acks)
	}
	if !slices.Equal(g.violations, l.violations) {
		t.Errorf("%s: violations differ: Go %q, line memory %q", name, g.violations, l.violations)
	}
	if g.loads != l.loads || g.stores != l.stores {
		t.Errorf("%s: counts differ: Go %d loads and %d stores, line memory %d and %d", name, g.loads, g.stores, l.loads, l.stores)
	}
	if !bytes.Equal(g.mem, l.mem) {
		i := 0
		for g.mem[i] == l.mem[i] {
			i++
		}
		t.Errorf("%s: memory differs first at byte %d of the lines read back: Go %#x, line memory %#x", name, i, g.mem[i], l.mem[i])
	}
}

func firstDiff(a, b []vpi.MemEvent) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
