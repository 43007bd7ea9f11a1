// Command load is `make serve-load`: a bounded ETC-like load over loopback
// against `arcalis serve` (package serve, the simulated RTL) and, in the same
// run, against Apache Thrift's own Go server (TSimpleServer with the
// generated processor) over the same business logic, written to
// reports/serve.md.
package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"arcalis/bench/workload"
	"arcalis/golden"
	"arcalis/internal/machine"
	"arcalis/serve"
	"arcalis/tb"
)

func main() {
	conns := flag.Int("conns", 8, "client connections")
	each := flag.Int("requests", 5000, "requests per connection")
	latency := flag.Int("mem-latency", 4, "memory latency of the simulated accelerator in cycles")
	out := flag.String("out", "reports/serve.md", "the report")
	model := flag.String("model", tb.FindModel(), "Verilated model library")
	flag.Parse()
	if err := run(*conns, *each, *latency, *model, *out); err != nil {
		fmt.Fprintln(os.Stderr, "serve-load:", err)
		os.Exit(1)
	}
}

// result is one server's side of the load.
type result struct {
	wall    time.Duration
	latency map[string][]time.Duration // by method, as the clients saw it
	stats   serve.Stats                // arcalis serve only
}

func run(conns, each, latency int, model, out string) error {
	began := time.Now()
	mix, err := workload.MixByName("etc")
	if err != nil {
		return err
	}
	reqs, err := mix.Generate(conns*each, 1)
	if err != nil {
		return err
	}
	// Rounds alternate the two servers, so that the shared machine's noise
	// falls on both; the report gives the median round of each.
	var ours, theirs []result
	for round := 1; round <= rounds; round++ {
		fmt.Fprintf(os.Stderr, "serve-load: round %d/%d: %d connections x %d requests against arcalis serve (simulated RTL), then Apache's TSimpleServer\n", round, rounds, conns, each)
		o, err := loadOurs(reqs, conns, latency, model)
		if err != nil {
			return err
		}
		a, err := loadApache(reqs, conns)
		if err != nil {
			return err
		}
		ours, theirs = append(ours, o), append(theirs, a)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	rep := report(conns, each, latency, ours, theirs, time.Since(began))
	if err := os.WriteFile(out, []byte(rep), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "serve-load: wrote %s\n", out)
	return nil
}

// rounds is how many times each server takes the load.
const rounds = 3

// loadOurs runs the load against arcalis serve.
func loadOurs(reqs []workload.Request, conns, latency int, model string) (result, error) {
	srv, err := serve.Start(serve.Config{Addr: "127.0.0.1:0", Transport: serve.Framed, Model: model, MemLatency: latency, Seed: 1, Log: os.Stderr})
	if err != nil {
		return result{}, err
	}
	r, lerr := load(srv.Addr().String(), reqs, conns)
	st, serr := srv.Shutdown(context.Background())
	if err := errors.Join(lerr, serr); err != nil {
		return r, fmt.Errorf("arcalis serve: %w", err)
	}
	r.stats = st
	return r, nil
}

// loadApache runs the load against Apache's TSimpleServer.
func loadApache(reqs []workload.Request, conns int) (result, error) {
	ap, err := serve.StartApache("127.0.0.1:0", serve.Framed, serve.NewStore(nil), func(string) {})
	if err != nil {
		return result{}, err
	}
	r, lerr := load(ap.Addr().String(), reqs, conns)
	if err := errors.Join(lerr, ap.Stop()); err != nil {
		return r, fmt.Errorf("apache: %w", err)
	}
	return r, nil
}

// median is the round with the median wall time.
func median(rs []result) result {
	s := slices.Clone(rs)
	slices.SortFunc(s, func(a, b result) int { return cmp.Compare(a.wall, b.wall) })
	return s[len(s)/2]
}

// load sends reqs over conns framed connections to addr, request i on
// connection i mod conns, each connection waiting for every reply before
// its next request, and checks that each reply answers its request.
func load(addr string, reqs []workload.Request, conns int) (result, error) {
	res := result{latency: map[string][]time.Duration{}}
	var mu sync.Mutex
	errs := make(chan error, conns)
	var wg sync.WaitGroup
	start := time.Now()
	for g := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat, err := connection(addr, g, reqs, conns)
			errs <- err
			mu.Lock()
			for m, ds := range lat {
				res.latency[m] = append(res.latency[m], ds...)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.wall = time.Since(start)
	close(errs)
	var all []error
	for err := range errs {
		all = append(all, err)
	}
	return res, errors.Join(all...)
}

func connection(addr string, g int, reqs []workload.Request, conns int) (map[string][]time.Duration, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	r, w := bufio.NewReader(c), bufio.NewWriter(c)
	lat := map[string][]time.Duration{}
	var hdr [4]byte
	for i := g; i < len(reqs); i += conns {
		msg := reqs[i].Msg
		t0 := time.Now()
		binary.BigEndian.PutUint32(hdr[:], uint32(len(msg)))
		w.Write(hdr[:])
		w.Write(msg)
		if err := w.Flush(); err != nil {
			return lat, fmt.Errorf("connection %d request %d: %w", g, i, err)
		}
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return lat, fmt.Errorf("connection %d request %d: reading the reply: %w", g, i, err)
		}
		reply := make([]byte, binary.BigEndian.Uint32(hdr[:]))
		if _, err := io.ReadFull(r, reply); err != nil {
			return lat, fmt.Errorf("connection %d request %d: reading the reply: %w", g, i, err)
		}
		d := time.Since(t0)
		// A REPLY (not an EXCEPTION) to this request's method and seqid.
		if len(reply) < 16 || binary.BigEndian.Uint32(reply) != golden.VersionReply || string(reply[8:11]) != string(msg[8:11]) || string(reply[11:15]) != string(msg[11:15]) {
			return lat, fmt.Errorf("connection %d request %d (%s): reply % x does not answer it", g, i, msg[8:11], reply[:min(len(reply), 32)])
		}
		m := "Get"
		if reqs[i].Set {
			m = "Set"
		}
		lat[m] = append(lat[m], d)
	}
	return lat, nil
}

func (r result) rate(n int) float64 { return float64(n) / r.wall.Seconds() }

// report is reports/serve.md.
func report(conns, each, latency int, oursAll, theirsAll []result, took time.Duration) string {
	ours, theirs := median(oursAll), median(theirsAll)
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	n := conns * each
	p("# arcalis serve under load\n\n")
	p("Written by `make serve-load` (`go run ./serve/load`) on %s in %s.\n\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"), took.Round(time.Second))
	p("Machine: %s; commit %s.\n\n", machine.Describe(), commit())
	p("Load: %d connections x %d requests (%d in all) over loopback, framed transport, the `etc`\n"+
		"mix of bench/workload (Facebook ETC key and value sizes, Zipf 0.99 key popularity, half\n"+
		"Sets and half Gets: the paper's mid write intensity), seed 1. Each connection sends a\n"+
		"request, waits for its reply and checks that it is a REPLY to that method and seqid.\n"+
		"Memory latency %d cycles. The same requests, in the same run, go first to `arcalis\n"+
		"serve` (every request through the Verilated RTL, one model for all connections) and then\n"+
		"to Apache Thrift 0.17's TSimpleServer with the generated processor over the same\n"+
		"key-value store (serve.Handler). Latency is the client's: request written to reply read.\n"+
		"The two servers take the load in turn, %d rounds each; the table is each server's\n"+
		"median round by wall time (every round's rate is listed below it). The machine is\n"+
		"shared: the ratio is the figure to compare, not the absolute rates.\n\n", conns, each, n, latency, rounds)
	p("| server | requests/s | wall | Set p50 | Set p99 | Get p50 | Get p99 |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range []struct {
		name string
		r    result
	}{{"arcalis serve (simulated RTL)", ours}, {"Apache TSimpleServer", theirs}} {
		p("| %s | %.0f | %s | %s | %s | %s | %s |\n", s.name, s.r.rate(n), s.r.wall.Round(time.Millisecond),
			us(serve.Percentile(s.r.latency["Set"], 50)), us(serve.Percentile(s.r.latency["Set"], 99)),
			us(serve.Percentile(s.r.latency["Get"], 50)), us(serve.Percentile(s.r.latency["Get"], 99)))
	}
	p("\nRounds, requests/s: arcalis serve %s; Apache %s.\n", rates(oursAll, n), rates(theirsAll, n))
	p("\n**arcalis serve runs at %.3f of Apache's request rate** (%.0f against %.0f requests/s):\n"+
		"each of its requests is a cycle-accurate simulation of the engine, Apache's a Go function call.\n\n",
		ours.rate(n)/theirs.rate(n), ours.rate(n), theirs.rate(n))
	p("What ran where in `arcalis serve` (its own statistics, `--stats`):\n\n")
	p("| method | requests | handled by the RTL | by software | simulated cycles/request | RxEngine cycles p50 | p99 |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, m := range ours.stats.Methods {
		p("| %s | %d | %d | %d | %.1f | %d | %d |\n", m.Method, m.Requests, m.RTL, m.Software,
			float64(m.Cycles)/float64(max(m.Requests, 1)), serve.Percentile(m.RxCycles, 50), serve.Percentile(m.RxCycles, 99))
	}
	p("\nSimulated cycles per request count the whole exchange (commands, receive, the Set's\n" +
		"reply); RxEngine cycles run from CMD_SEND_NET_LEN to the ready status. The RTL\n" +
		"deserializes Sets and Gets; a Get's reply is the reference serializer's (the TxEngine\n" +
		"writes Set's only).\n")
	return b.String()
}

// rates lists each round's requests/s.
func rates(rs []result, n int) string {
	var parts []string
	for _, r := range rs {
		parts = append(parts, fmt.Sprintf("%.0f", r.rate(n)))
	}
	return strings.Join(parts, ", ")
}

// commit is the checkout's short commit, "unknown" outside git.
func commit() string {
	o, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(o))
}

func us(d time.Duration) string { return fmt.Sprintf("%d µs", d.Microseconds()) }
