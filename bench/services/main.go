// Command services measures cycles per request of each service of idl/
// through the generic units of issue 17 (`make bench-services`):
// rtl/generic/schema_rx.sv (the header check recv_header.sv, then the
// recvFunction recv_schema.sv) receiving each request of the service's
// default vectors,
// and the respFunction resp_schema.sv serializing a reply to it, at memory
// latencies 0 and 100, and estimates each service's dynamic power from
// the units' switching in a traced run (power.go). It writes
// reports/bench-services.md and bench-services.json, from which -readme
// writes README.md's services table.
//
// The units are not yet inside the engine (arcalis_top): these are unit
// cycles, with the memory modelled at their ports (tb/schemarx.RecvStream
// for the receive window, tb/schematx.Drive for the resp read port).
// Cycles are
// deterministic: one run is the measurement.
//
// VPI holds one model per process, so the parent builds the models (make
// schema-pair-model and make schematx-model, as tb/schemacase.Case.Build
// runs them) and runs itself as a child per model (-child recv or -child resp),
// which prints its measurements as JSON.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"arcalis/internal/machine"
	rpt "arcalis/report"
	"arcalis/tb/schemacase"
	"arcalis/tb/schemarx"
	"arcalis/tb/schematx"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench-services:", err)
		os.Exit(1)
	}
}

// options are the command line.
type options struct {
	out       string
	width     int
	latencies []int
	jobs      int
	child     string // "recv" or "resp": measure one model and print JSON
	service   string // with -child: the service
	lib       string // with -child: the model library
	fst       string // with -child: trace the run into this FST file (the activity run)
	readme    bool   // rewrite README.md's table from reports/ and stop
}

func run() error {
	var o options
	var lats string
	flag.StringVar(&o.out, "out", "reports", "directory for bench-services.md")
	flag.IntVar(&o.width, "width", 16, "the units' Width (bytes a cycle)")
	flag.StringVar(&lats, "latencies", "0,100", "memory latencies in cycles, comma-separated")
	flag.IntVar(&o.jobs, "jobs", 0, "VPI_JOBS for the model builds (0: vpi/build.mk's default)")
	flag.StringVar(&o.child, "child", "", "internal: measure one model (recv or resp) and print JSON")
	flag.StringVar(&o.service, "service", "", "with -child: the service")
	flag.StringVar(&o.lib, "lib", "", "with -child: the model library")
	flag.StringVar(&o.fst, "fst", "", "with -child: trace the run into this FST waveform")
	flag.BoolVar(&o.readme, "readme", false, "rewrite README.md's services table from reports/ (no simulation) and stop")
	flag.Parse()
	for _, f := range strings.Split(lats, ",") {
		l, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || l < 0 {
			return fmt.Errorf("-latencies %q: want non-negative integers", lats)
		}
		o.latencies = append(o.latencies, l)
	}
	root, err := schemacase.FindRoot("run it inside the repository (no go.mod above the working directory)")
	if err != nil {
		return err
	}
	if o.child != "" {
		return childMain(o, root)
	}
	if o.readme {
		return writeReadme(root)
	}
	return parentMain(o, root)
}

// services are the services of idl/, with the vectors tb/schemarx checks
// them on (MemcachedService: vectors/default.vec, the hand-written
// engine's, as there is no default-memcached.vec).
func services() []schemacase.Service {
	var out []schemacase.Service
	for _, s := range schemarx.Services {
		if filepath.Dir(s.IDL) == "idl" && s.Vectors != "" {
			out = append(out, s)
		}
	}
	return out
}

// unitRun is what a child measured: one entry per record of the vectors.
type unitRun struct {
	Unit     string      `json:"unit"`
	Service  string      `json:"service"`
	Requests []reqResult `json:"requests"`
}

// reqResult is one record through one unit. Cycles has one entry per
// latency (the order of -latencies); none when the unit had nothing to do
// (Skip says why) or failed (Err).
type reqResult struct {
	Index  int    `json:"index"`
	Method string `json:"method,omitempty"`
	Cycles []int  `json:"cycles,omitempty"`
	Header []int  `json:"header_cycles,omitempty"` // recv: recv_header's part of Cycles, start_i to done_o
	Bytes  int    `json:"bytes"`                   // recv: the message's bytes; resp: the reply's bytes after its message header
	Reads  int    `json:"reads"`                   // resp: image reads
	Most   int    `json:"most,omitempty"`          // resp: the most reads outstanding at once (at the largest latency)
	Skip   string `json:"skip,omitempty"`
	Err    string `json:"err,omitempty"`
}

// parentMain builds each service's two models, runs a child on each and
// writes the report.
func parentMain(o options, root string) error {
	start := time.Now()
	r := &report{Date: start.UTC(), Machine: machine.Describe(), Width: o.width, Latencies: o.latencies}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	for _, s := range services() {
		table, err := schemacase.Pair.Case(s, o.width).Table(root)
		if err != nil {
			return fmt.Errorf("%s: %w", s.Name, err)
		}
		sr := serviceReport{Service: s, Table: table}
		pair := schemacase.Pair.Case(s, o.width)
		// The units' reports at this width: reports/<unit>/<stem>[-wN].
		at := strings.TrimPrefix(filepath.Base(pair.OutDir()), pair.Target+"-")
		if sr.Figures, err = readUnits(root, at); err != nil {
			return fmt.Errorf("%s: %w (make report SERVICE=... writes the units' reports)", s.Name, err)
		}
		for _, u := range []struct {
			name   string
			c      schemacase.Case
			into   *unitRun
			act    []*rpt.Activity // the units' activity, in scopes' order
			scopes []string
		}{
			{"recv", pair, &sr.Recv, []*rpt.Activity{&sr.Activity[0], &sr.Activity[1]}, []string{rxScope + ".u_hd", rxScope + ".u_rx"}},
			{"resp", schematx.Module.Case(s, o.width), &sr.Resp, []*rpt.Activity{&sr.Activity[2]}, []string{"resp_schema"}},
		} {
			fmt.Fprintf(os.Stderr, "bench-services: %s: %s model (make %s-model SERVICE=%s) ...\n", s.Name, u.name, u.c.Target, u.c.Stem())
			lib, err := u.c.Build(root, o.jobs)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "bench-services: %s: %s at latencies %v ...\n", s.Name, u.name, o.latencies)
			// Under the model's lock: no go test rebuilds it while the
			// child runs it.
			unlock, err := u.c.LockModel(root)
			if err != nil {
				return err
			}
			*u.into, err = runChild(exe, root, u.name, s.Name, lib, o.width, o.latencies, "")
			if err == nil {
				fmt.Fprintf(os.Stderr, "bench-services: %s: %s's activity at latency %d (FST trace) ...\n", s.Name, u.name, activityLatency)
				err = traceActivity(exe, root, u.name, s.Name, at, lib, o.width, u.scopes, u.act)
			}
			unlock()
			if err != nil {
				return fmt.Errorf("%s %s: %w", s.Name, u.name, err)
			}
		}
		r.Services = append(r.Services, sr)
	}
	r.Elapsed = time.Since(start)
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	md, err := r.markdown()
	if err != nil {
		return err
	}
	path := filepath.Join(o.out, "bench-services.md")
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r.summaries(), "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.out, "bench-services.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "bench-services: wrote %s and bench-services.json in %s\n", path, r.Elapsed.Round(time.Second))
	if n := r.failures(); n > 0 {
		return fmt.Errorf("%d requests differed from the reference or broke a unit's protocol: see %s", n, path)
	}
	return nil
}

// runChild runs this command on one model at the latencies given, with
// an FST trace into fst unless it is "", and reads what it printed.
func runChild(exe, root, unit, service, lib string, width int, latencies []int, fst string) (unitRun, error) {
	var ur unitRun
	lats := make([]string, len(latencies))
	for i, l := range latencies {
		lats[i] = strconv.Itoa(l)
	}
	cmd := exec.Command(exe, "-child", unit, "-service", service, "-lib", lib, "-width", strconv.Itoa(width), "-latencies", strings.Join(lats, ","), "-fst", fst)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return ur, fmt.Errorf("child: %v\n%s", err, stderr.Bytes())
	}
	if err := json.Unmarshal(out, &ur); err != nil {
		return ur, fmt.Errorf("child's output: %v", err)
	}
	return ur, nil
}
