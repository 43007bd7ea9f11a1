package serve

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"text/tabwriter"
	"time"
)

// sample is one request's measurements.
type sample struct {
	method   string // "Set", "Get", or "other" for a request no method answered
	rtl      bool   // the RTL handled it (else software did)
	cycles   uint64 // simulated cycles of the whole exchange: commands, receive, reply
	rxCycles uint64 // from CMD_SEND_NET_LEN to the ready status (tb.Outcome.Cycles)
	read     time.Time
}

// MethodStats are one method's statistics.
type MethodStats struct {
	Method   string
	Requests int
	RTL      int    // handled by the RTL: read from App.Recv
	Software int    // handled by the software path
	Cycles   uint64 // simulated cycles, all requests together
	RxCycles []uint64
	Latency  []time.Duration // from the request read to its reply written (replied requests)
}

// Percentile is the p-th percentile (0..100) of xs, nearest rank; 0 if empty.
func Percentile[T uint64 | time.Duration](xs []T, p float64) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(p/100*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// Percentiles are the p50 and p99 of a method's cycles, then of its
// latencies (to the microsecond), as the tables of both servers' --stats
// print them: four tab-separated columns.
func Percentiles(cycles []uint64, latency []time.Duration) string {
	return fmt.Sprintf("%d\t%d\t%s\t%s", Percentile(cycles, 50), Percentile(cycles, 99),
		Percentile(latency, 50).Round(time.Microsecond), Percentile(latency, 99).Round(time.Microsecond))
}

// Throughput is how both servers' --stats begin their summary line: the
// requests, the time from the first to the last reply, and their rate.
func Throughput(requests int, busy time.Duration) string {
	rate := 0.0
	if busy > 0 {
		rate = float64(requests) / busy.Seconds()
	}
	return fmt.Sprintf("%d requests in %s (%.0f requests/s, first request to last reply)", requests, busy.Round(time.Millisecond), rate)
}

// Stats is what the server did.
type Stats struct {
	Methods    []MethodStats // Set, Get, then any other, in that order
	Requests   int           // requests handed to the model
	Faults     int           // requests answered with an exception or a closed connection
	Mismatches int           // with --check: requests where RTL and reference disagree
	Busy       time.Duration // from the first request to the last reply
}

// collector gathers samples from the model's goroutine and latencies from
// the connections.
type collector struct {
	mu          sync.Mutex
	by          map[string]*MethodStats
	requests    int
	faults      int
	mismatches  int
	first, last time.Time
}

func newCollector() *collector { return &collector{by: map[string]*MethodStats{}} }

func (c *collector) method(name string) *MethodStats {
	m := c.by[name]
	if m == nil {
		m = &MethodStats{Method: name}
		c.by[name] = m
	}
	return m
}

func (c *collector) request(s *sample) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.requests == 0 || s.read.Before(c.first) {
		c.first = s.read
	}
	c.requests++
	c.last = time.Now()
	m := c.method(s.method)
	m.Requests++
	if s.rtl {
		m.RTL++
	} else {
		m.Software++
	}
	m.Cycles += s.cycles
	m.RxCycles = append(m.RxCycles, s.rxCycles)
}

func (c *collector) latency(s *sample, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.method(s.method).Latency = append(c.method(s.method).Latency, d)
	c.last = time.Now()
}

func (c *collector) fault() {
	c.mu.Lock()
	c.faults++
	c.mu.Unlock()
}

func (c *collector) mismatch() {
	c.mu.Lock()
	c.mismatches++
	c.mu.Unlock()
}

func (c *collector) snapshot() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := Stats{Requests: c.requests, Faults: c.faults, Mismatches: c.mismatches, Busy: c.last.Sub(c.first)}
	names := []string{"Set", "Get"}
	for n := range c.by {
		if n != "Set" && n != "Get" {
			names = append(names, n)
		}
	}
	slices.Sort(names[2:])
	for _, n := range names {
		if m := c.by[n]; m != nil {
			cp := *m
			cp.RxCycles, cp.Latency = slices.Clone(m.RxCycles), slices.Clone(m.Latency)
			st.Methods = append(st.Methods, cp)
		}
	}
	return st
}

// Method returns the statistics of one method (zero if it had no request).
func (s Stats) Method(name string) MethodStats {
	for _, m := range s.Methods {
		if m.Method == name {
			return m
		}
	}
	return MethodStats{Method: name}
}

// Write prints the statistics: the rate, then per method the requests,
// how many the RTL and software handled, simulated cycles and latencies.
func (s Stats) Write(w io.Writer) error {
	fmt.Fprintf(w, "%s; %d faults; %d check mismatches\n", Throughput(s.Requests, s.Busy), s.Faults, s.Mismatches)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "method\trequests\tRTL\tsoftware\tsim cycles/request\trx cycles p50\tp99\tlatency p50\tp99")
	for _, m := range s.Methods {
		per := 0.0
		if m.Requests > 0 {
			per = float64(m.Cycles) / float64(m.Requests)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.1f\t%s\n", m.Method, m.Requests, m.RTL, m.Software, per, Percentiles(m.RxCycles, m.Latency))
	}
	return tw.Flush()
}
