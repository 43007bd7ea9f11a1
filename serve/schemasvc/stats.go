package schemasvc

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"text/tabwriter"
	"time"

	"arcalis/serve"
	"arcalis/thriftidl/schema"
)

// ReceivePath and ReplyPath say where requests are read and replies come
// from, for --stats and the logs.
const (
	ReceivePath = "receive: RTL (rtl/generic/schema_rx.sv: recv_header.sv then recv_schema.sv, the header checked against golden/schemagold.CheckHeader, App.Recv read back with schemagold.ReadBack)"
	ReplyPath   = "reply: RTL respFunction (rtl/generic/resp_schema.sv, in one model with schema_rx: schema_pair), checked against golden/schemagold.Serialize (a mismatch is answered with its bytes)"
)

// MethodStats are one method's statistics.
type MethodStats struct {
	Method   string
	Requests int // handed to the model

	HeaderCycles []uint64 // recv_header cycles, start_i to done_o, per request it checked (its run ended with done_o)
	// HeaderMismatches are headers recv_header got wrong (a result unlike
	// the reference's or Apache's reading, a take other than the header,
	// or its run failed): dispatched as Apache's reader read them.
	HeaderMismatches int
	// HeaderApache are headers recv_header and the reference refuse but
	// Apache's reader accepts (non-strict, REPLY or EXCEPTION: docs/abi.md
	// section 7): dispatched as Apache's reader read them.
	HeaderApache int

	RTL      int // RTL result OK: read back from App.Recv and answered
	Rejected int // RTL result not OK (or the simulation failed): PROTOCOL_ERROR
	// ByReference are requests whose args the reference walked, after a
	// header MISMATCH (an RTL bug): neither RTL nor Rejected.
	ByReference int
	Thrown      int      // answered with the method's declared exception
	Internal    int      // the business logic or the reply failed: INTERNAL_ERROR
	Cycles      []uint64 // schema_rx cycles, start_i to done_o, per request the RTL received
	Latency     []time.Duration

	Replies  int      // replies resp_schema serialized (its run ended with done_o)
	TxCycles []uint64 // resp_schema cycles, start_i to done_o, per reply it serialized
	// Mismatches are replies resp_schema got wrong (unlike the reference's,
	// or its run failed): answered with the reference's bytes.
	Mismatches int
}

// Stats is what the server did.
type Stats struct {
	Service  string
	Methods  []MethodStats // in the tables' order, those with a request
	Requests int           // handed to the model
	Faults   int           // answered without the model: unreadable header, unknown method, unreadable unframed args
	Busy     time.Duration // from the first request to the last reply

	// HeaderMismatches, every method's HeaderMismatches: results of
	// recv_header unlike the reference's, or its runs that failed (an RTL
	// bug).
	HeaderMismatches int
	// ReplyMismatches, every method's Mismatches: replies of resp_schema
	// unlike the reference's, or its runs that failed (an RTL bug).
	ReplyMismatches int
}

// collector gathers the samples of the model's goroutine and the
// connections'.
type collector struct {
	mu          sync.Mutex
	t           *schema.Table
	by          []MethodStats
	requests    int
	faults      int
	first, last time.Time
}

func newCollector(t *schema.Table) *collector {
	c := &collector{t: t, by: make([]MethodStats, len(t.Methods))}
	for i, m := range t.Methods {
		c.by[i].Method = m.Name
	}
	return c
}

// request counts a request handed to the model; rtl: the RTL walked its
// args (else the reference did), ok: the walk's result was OK.
func (c *collector) request(method int, rtl, ok bool, cycles uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if c.requests == 0 {
		c.first = now
	}
	c.requests++
	c.last = now
	m := &c.by[method]
	m.Requests++
	switch {
	case !rtl:
		m.ByReference++
		return
	case ok:
		m.RTL++
	default:
		m.Rejected++
	}
	m.Cycles = append(m.Cycles, cycles)
}

// headerUse is what a request's dispatch took from recv_header's result.
type headerUse int

const (
	headerRTL      headerUse = iota // the RTL's result: the reference's and Apache's reading
	headerMismatch                  // an RTL bug: Apache's reading
	headerApache                    // refused by design (docs/abi.md section 7): Apache's reading
)

// header counts a header recv_header checked in cycles (ran: its run ended
// with done_o), and what the dispatch took from it.
func (c *collector) header(method int, ran bool, cycles uint64, use headerUse) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := &c.by[method]
	if ran {
		m.HeaderCycles = append(m.HeaderCycles, cycles)
	}
	switch use {
	case headerMismatch:
		m.HeaderMismatches++
	case headerApache:
		m.HeaderApache++
	}
}

// reply counts a reply resp_schema serialized in cycles (ran: its run
// ended with done_o), and whether it differed from the reference's.
func (c *collector) reply(method int, ran bool, cycles uint64, mismatch bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := &c.by[method]
	if ran {
		m.Replies++
		m.TxCycles = append(m.TxCycles, cycles)
	}
	if mismatch {
		m.Mismatches++
	}
}

func (c *collector) thrown(method int) {
	c.mu.Lock()
	c.by[method].Thrown++
	c.mu.Unlock()
}

func (c *collector) internal(method int) {
	c.mu.Lock()
	c.by[method].Internal++
	c.mu.Unlock()
}

func (c *collector) latency(method int, d time.Duration) {
	c.mu.Lock()
	c.by[method].Latency = append(c.by[method].Latency, d)
	c.last = time.Now()
	c.mu.Unlock()
}

func (c *collector) fault() {
	c.mu.Lock()
	c.faults++
	c.mu.Unlock()
}

func (c *collector) snapshot() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := Stats{Service: c.t.Service, Requests: c.requests, Faults: c.faults, Busy: c.last.Sub(c.first)}
	for _, m := range c.by {
		if m.Requests > 0 {
			m.Cycles, m.Latency, m.TxCycles = slices.Clone(m.Cycles), slices.Clone(m.Latency), slices.Clone(m.TxCycles)
			m.HeaderCycles = slices.Clone(m.HeaderCycles)
			st.Methods = append(st.Methods, m)
			st.HeaderMismatches += m.HeaderMismatches
			st.ReplyMismatches += m.Mismatches
		}
	}
	return st
}

// Method returns one method's statistics (zero if it had no request).
func (s Stats) Method(name string) MethodStats {
	for _, m := range s.Methods {
		if m.Method == name {
			return m
		}
	}
	return MethodStats{Method: name}
}

// Write prints the statistics: where receive and reply run, the rate and
// the header and reply mismatches, then per method the requests, how the
// RTL ended them, the replies, the cycles and the latencies, and the
// headers' cycles and how many were Apache's (new columns go last:
// `arcalis serve --service`'s test reads the first ones).
func (s Stats) Write(w io.Writer) error {
	fmt.Fprintf(w, "%s: %s; %s\n", s.Service, ReceivePath, ReplyPath)
	fmt.Fprintf(w, "%s; %d faults; %d header mismatches (recv_header against the reference); %d reply mismatches (RTL respFunction against the reference)\n",
		serve.Throughput(s.Requests, s.Busy), s.Faults, s.HeaderMismatches, s.ReplyMismatches)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "method\trequests\tRTL OK\tRTL rejected\texception\tinternal error\tRTL replies\tmismatches\t"+
		"rx cycles/request\tp50\tp99\tlatency p50\tp99\ttx cycles/reply\theader cycles/request\theader mismatches\theader by Apache\targs by reference")
	for _, m := range s.Methods {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f\t%s\t%.1f\t%.1f\t%d\t%d\t%d\n", m.Method, m.Requests, m.RTL, m.Rejected, m.Thrown, m.Internal,
			m.Replies, m.Mismatches, mean(m.Cycles), serve.Percentiles(m.Cycles, m.Latency), mean(m.TxCycles),
			mean(m.HeaderCycles), m.HeaderMismatches, m.HeaderApache, m.ByReference)
	}
	return tw.Flush()
}

// mean is the cycles' mean, 0 for none.
func mean(cycles []uint64) float64 {
	var sum uint64
	for _, c := range cycles {
		sum += c
	}
	return float64(sum) / float64(max(1, len(cycles)))
}
