package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	rpt "arcalis/report"
	"arcalis/tb/schemacase"
	"arcalis/thriftidl/schema"
)

// report is everything one run measured.
type report struct {
	Date      time.Time
	Machine   string
	Elapsed   time.Duration
	Width     int
	Latencies []int
	Services  []serviceReport
}

// serviceReport is one service's two runs (recv: recv_header and
// recv_schema; resp: resp_schema), the three units' switching in the
// traced runs and their synthesis figures (units' order).
type serviceReport struct {
	Service    schemacase.Service
	Table      *schema.Table
	Recv, Resp unitRun
	Activity   [3]rpt.Activity
	Figures    [3]unitFigures
}

// sample is one request both units ran: its cycles per latency.
type sample struct {
	method           string
	recv, resp       []int
	header           []int // recv_header's part of recv
	reqBytes, rBytes int
	reads            int
}

// samples are the requests of s that both units measured, and how many
// records were left out and why (a message the reference refuses, a
// ONEWAY call: no reply).
func (s serviceReport) samples() (out []sample, left map[string]int) {
	left = map[string]int{}
	for i, rv := range s.Recv.Requests {
		rs := s.Resp.Requests[i]
		switch {
		case rv.Err != "":
			left["recv differs from the reference: "+rv.Err]++
		case rs.Err != "":
			left["resp differs from the reference: "+rs.Err]++
		case rv.Skip != "":
			left[rv.Skip]++
		case rs.Skip != "":
			left[rs.Skip]++
		default:
			out = append(out, sample{method: rv.Method, recv: rv.Cycles, header: rv.Header, resp: rs.Cycles, reqBytes: rv.Bytes, rBytes: rs.Bytes, reads: rs.Reads})
		}
	}
	return out, left
}

// failures counts the requests that differed from the reference.
func (r *report) failures() int {
	n := 0
	for _, s := range r.Services {
		for i, rv := range s.Recv.Requests {
			if rv.Err != "" || s.Resp.Requests[i].Err != "" {
				n++
			}
		}
	}
	return n
}

// median and p90 of xs (nearest rank); xs is sorted in place.
func median(xs []int) int { return rank(xs, 50) }
func p90(xs []int) int    { return rank(xs, 90) }

func rank(xs []int, pct int) int {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	k := (pct*len(xs) + 99) / 100 // ceil(pct% of n), 1-based
	return xs[max(k, 1)-1]
}

// column gathers one number of each sample.
func column(ss []sample, f func(sample) int) []int {
	out := make([]int, len(ss))
	for i, s := range ss {
		out[i] = f(s)
	}
	return out
}

// maxDepth is the deepest args or result nesting of the tables, as the
// generated package's MaxDepth.
func maxDepth(t *schema.Table) int {
	d := 0
	for _, m := range t.Methods {
		d = max(d, m.ArgsDepth, m.ResultDepth)
	}
	return d
}

func methodNames(t *schema.Table) string {
	var names []string
	for _, m := range t.Methods {
		names = append(names, m.Name)
	}
	return strings.Join(names, ", ")
}

func (r *report) markdown() (string, error) {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Cycles per request of each service: the header check, generic recvFunction and respFunction\n\n")
	p("Written by `make bench-services` (`go run ./bench/services`) on %s UTC in %s.\n\n", r.Date.Format("2006-01-02 15:04"), r.Elapsed.Round(time.Second))
	p("Machine: %s.\n\n", r.Machine)
	p("**Unit level.** `rtl/generic/schema_rx.sv` (`recv_header.sv`, then `recv_schema.sv`) and\n"+
		"`resp_schema.sv` are not yet inside the engine (`arcalis_top`): they are simulated as units\n"+
		"(Verilator; in one model, `schema_pair`) at Width %d bytes a cycle, with the memory modelled at\n"+
		"their ports. The cycles leave out what the engine would add around them: the command, the header\n"+
		"line's store, the reply's message header and its stores. Cycles are deterministic (no timing\n"+
		"noise): one run is the measurement. See docs/reports.md.\n\n", r.Width)
	p("- **recv**: cycles from schema_rx's `start_i` to its `done_o`: the message header's check by\n" +
		"  recv_header (**header**, its `start_i` to `done_o`), two edges, then recv_schema's walk of the args\n" +
		"  from where the header ended. One stream of the message is fed as the engine's load queue would:\n" +
		"  the first bytes L cycles after `start_i` (L = 0: in that cycle), then Width more bytes every cycle\n" +
		"  (`tb/schemarx.RecvStream`); stores are accepted at once (posted, no `stall_i`). Each header is\n" +
		"  checked against `schemagold.CheckHeader`, each walk against `schemagold.Deserialize` (header\n" +
		"  line, image, read-back args).\n")
	p("- **resp**: cycles from `start_i` to `done_o` of resp_schema serializing the reply's App.Resp image\n" +
		"  (`schemagold.BuildResp` of the result below), every image read made at an edge t answered at\n" +
		"  edge t+1+L (the engine memory's latency: L = 0 is the next cycle, the soonest the port allows),\n" +
		"  in order, the output never stalled (`tb/schematx.Drive`). The bytes are checked against\n" +
		"  `schemagold.Serialize`.\n")
	p("- **total**: recv + resp of the same request (its median is not the sum of the medians).\n\n")
	p("The requests are each service's default vectors (MemcachedService: `vectors/default.vec`, the\n" +
		"hand-written engine's; the others `vectors/default-<stem>.vec`). Medians and p90 are nearest-rank.\n" +
		"MemcachedService's file is a test set rather than a workload mix: Sets (values of 0 bytes to\n" +
		"64 KiB, keys at every offset, random ones), a few Gets, and malformed messages (listed at the\n" +
		"end, not counted).\n\n")

	p("## Summary\n\n")
	p("| service | methods | max depth | requests |")
	for _, l := range r.Latencies {
		p(" cycles/request at L=%d: median (p90) |", l)
	}
	p("\n|---|---|---:|---:|%s\n", strings.Repeat("---:|", len(r.Latencies)))
	for _, s := range r.Services {
		ss, _ := s.samples()
		p("| %s | %s | %d | %d |", s.Service.Name, methodNames(s.Table), maxDepth(s.Table), len(ss))
		for li := range r.Latencies {
			tot := column(ss, func(x sample) int { return x.recv[li] + x.resp[li] })
			p(" %d (%d) |", median(tot), p90(tot))
		}
		p("\n")
	}
	p("\nMax depth is the generated package's `MaxDepth`: the deepest args or result nesting of the\n" +
		"service's methods (the args struct is level 1).\n\n")

	for li, l := range r.Latencies {
		p("## At memory latency %d\n\n", l)
		p("| service / method | requests | recv median | recv p90 | of which header (median) | resp median | resp p90 | total median | total p90 | request bytes (median) | reply bytes (median) | reads (median) |\n")
		p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, s := range r.Services {
			ss, _ := s.samples()
			row := func(name string, ss []sample) {
				recv := column(ss, func(x sample) int { return x.recv[li] })
				resp := column(ss, func(x sample) int { return x.resp[li] })
				tot := column(ss, func(x sample) int { return x.recv[li] + x.resp[li] })
				p("| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", name, len(ss),
					median(recv), p90(recv), median(column(ss, func(x sample) int { return x.header[li] })),
					median(resp), p90(resp), median(tot), p90(tot),
					median(column(ss, func(x sample) int { return x.reqBytes })),
					median(column(ss, func(x sample) int { return x.rBytes })),
					median(column(ss, func(x sample) int { return x.reads })))
			}
			row("**"+s.Service.Name+"**", ss)
			if len(s.Table.Methods) > 1 {
				for _, m := range s.Table.Methods {
					ms := slices.DeleteFunc(slices.Clone(ss), func(x sample) bool { return x.method != m.Name })
					if len(ms) > 0 {
						row("&nbsp;&nbsp;"+m.Name, ms)
					}
				}
			}
		}
		p("\nRequest bytes: the whole message (header included, no frame length). Reply bytes: the\n" +
			"result struct's encoding resp_schema writes (after the REPLY's message header). Reads: 8-byte\n" +
			"image reads of resp_schema.\n\n")
	}

	p("## Methods, depths and the results used\n\n")
	p("| service | method | args depth | result depth | requests | result the reply carries |\n|---|---|---:|---:|---:|---|\n")
	for _, s := range r.Services {
		ss, _ := s.samples()
		for _, m := range s.Table.Methods {
			n := 0
			for _, x := range ss {
				if x.method == m.Name {
					n++
				}
			}
			doc := resultDoc[s.Service.Name+"."+m.Name]
			if doc == "" {
				return "", fmt.Errorf("no result documented for %s.%s", s.Service.Name, m.Name)
			}
			p("| %s | %s | %d | %d | %d | %s |\n", s.Service.Name, m.Name, m.ArgsDepth, m.ResultDepth, n, doc)
		}
	}
	p("\nThe default vectors ask for ids, keys and short URLs at random: a request for something the\n" +
		"workload did not store earlier is answered with what the workload stores, in turn, as if the\n" +
		"store held it, so that each reply has the size a hit would (serve's in-memory logic would\n" +
		"answer most of them with an empty value or a ServiceException).\n\n")

	p("## The read port\n\n")
	most := 0
	for _, s := range r.Services {
		for _, x := range s.Resp.Requests {
			most = max(most, x.Most)
		}
	}
	p("resp_schema keeps one image read outstanding for a presence word, a value slot or a descriptor\n"+
		"(it waits for the answer before the next), and up to four for a string's bytes (it reads a\n"+
		"string ahead, 8 bytes a read, into a four-word buffer). The most reads outstanding at once in\n"+
		"this run, at L=%d: %d. So at latency L each read of the first kind costs about L cycles more,\n"+
		"and a string about L cycles more per four words.\n\n", r.Latencies[len(r.Latencies)-1], most)

	p("## Dynamic power estimate\n\n")
	p("**A model estimate, not a measurement or a Vivado result**: make report's model for the engine\n"+
		"(docs/reports.md), over the three units. Each unit's LUTs and FFs (its make schemahdr-report,\n"+
		"schema-report or schematx-report) switch at the toggle rate measured for it (toggles per bit per\n"+
		"cycle of every signal in its own scope) in a traced run of the service's default vectors at\n"+
		"memory latency %d, as above but with an FST waveform, reset and idle cycles included; the\n"+
		"model's fixed clocking term is counted once. At %d MHz. Its two coefficients are fitted to the\n"+
		"paper's two designs, so the paper's column is not an independent check of them.\n\n", activityLatency, rpt.Figure19FreqMHz)
	p("| service | recv_header: LUTs + FFs, rate, mW | recv_schema | resp_schema | fixed term | est. total | paper, Figure 19 |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range r.Services {
		pw, err := s.power()
		if err != nil {
			return "", err
		}
		p("| %s |", s.Service.Name)
		for i, u := range s.Figures {
			p(" %s × %.4f → %.1f |", rpt.Thousands(u.luts+u.ffs), s.Activity[i].Rate, pw.Units[i]*1000)
		}
		p(" %.1f | **%.1f mW** | %s |\n", pw.FixedW*1000, pw.TotalW*1000, paperFigures(s.Service.Name, true))
	}
	p("\n")

	p("## Requests not counted\n\n")
	listed := false
	for _, s := range r.Services {
		_, left := s.samples()
		keys := make([]string, 0, len(left))
		for k := range left {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			p("- %s: %d: %s\n", s.Service.Name, left[k], k)
			listed = true
		}
	}
	if !listed {
		p("None: every record of every service's vectors was counted.\n")
	}
	return b.String(), nil
}

// power is the service's estimate from its units' figures and rates.
func (s serviceReport) power() (power, error) {
	var rate [3]float64
	for i, a := range s.Activity {
		rate[i] = a.Rate
	}
	return estimate(s.Figures, rate)
}
