package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	rpt "arcalis/report"
	"arcalis/report/yosys"
)

// The README's table of the services (issue 17: service, methods, max
// depth, LUTs, FFs, estimated Fmax, cycles per request, the paper's
// figures) is generated from the reports, so that it cannot drift from
// them: `go run ./bench/services -readme` (make readme-services) rewrites
// it between these markers, and go test ./bench/services checks it.
const (
	readmeBegin = "<!-- BEGIN services table: generated from reports/ by `make readme-services`; do not edit -->\n"
	readmeEnd   = "<!-- END services table -->\n"
)

// summary is one service's line of reports/bench-services.json: what the
// README's table takes from a bench-services run.
type summary struct {
	Service   string `json:"service"`
	Stem      string `json:"stem"` // the IDL's file stem: reports/schema/<stem>/
	Methods   string `json:"methods"`
	MaxDepth  int    `json:"max_depth"`
	Requests  int    `json:"requests"`
	Width     int    `json:"width"`
	Latencies []int  `json:"latencies"`
	Median    []int  `json:"median_cycles"` // per latency: recv + resp of a request, median
	// Activity is each unit's switching in the traced run at
	// activity_latency (recv_header, recv_schema, resp_schema).
	ActivityLatency int            `json:"activity_latency"`
	Activity        []rpt.Activity `json:"activity"`
}

// summaries are the report's lines for bench-services.json.
func (r *report) summaries() []summary {
	var out []summary
	for _, s := range r.Services {
		ss, _ := s.samples()
		sm := summary{Service: s.Service.Name, Stem: strings.TrimSuffix(filepath.Base(s.Service.IDL), ".thrift"),
			Methods: methodNames(s.Table), MaxDepth: maxDepth(s.Table), Requests: len(ss), Width: r.Width, Latencies: r.Latencies,
			ActivityLatency: activityLatency, Activity: s.Activity[:]}
		for li := range r.Latencies {
			sm.Median = append(sm.Median, median(column(ss, func(x sample) int { return x.recv[li] + x.resp[li] })))
		}
		out = append(out, sm)
	}
	return out
}

// unitFigures are one unit's synthesis and timing estimate, from its
// make schemahdr-report / schema-report / schematx-report directory.
type unitFigures struct {
	luts, ffs int
	fmax      float64
}

func readUnit(dir, module string) (unitFigures, error) {
	st, err := yosys.ReadStatFile(filepath.Join(dir, "stat.txt"))
	if err != nil {
		return unitFigures{}, err
	}
	m, ok := st.Module(module)
	if !ok {
		return unitFigures{}, fmt.Errorf("%s/stat.txt: no module %s", dir, module)
	}
	var u unitFigures
	for cell, n := range m.Cells {
		switch {
		case strings.HasPrefix(cell, "LUT"):
			u.luts += n
		case strings.HasPrefix(cell, "FD"):
			u.ffs += n
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "timing.json"))
	if err != nil {
		return unitFigures{}, err
	}
	var t struct {
		Fmax float64 `json:"fmax_mhz"`
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return unitFigures{}, fmt.Errorf("%s/timing.json: %v", dir, err)
	}
	u.fmax = t.Fmax
	return u, nil
}

// readmeTable is the table, from reports/ under root.
func readmeTable(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "reports", "bench-services.json"))
	if err != nil {
		return "", fmt.Errorf("%v (make bench-services writes it)", err)
	}
	var ss []summary
	if err := json.Unmarshal(b, &ss); err != nil {
		return "", fmt.Errorf("reports/bench-services.json: %v", err)
	}
	var t strings.Builder
	t.WriteString("| service | methods | max depth | LUTs (header + recv + resp) | FFs (header + recv + resp) | est. Fmax header / recv / resp | cycles per request | est. dynamic power | paper, Figure 19 |\n")
	t.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---|\n")
	for _, s := range ss {
		u, err := readUnits(root, s.Stem)
		if err != nil {
			return "", err
		}
		if len(s.Activity) != len(u) {
			return "", fmt.Errorf("reports/bench-services.json: %s has %d units' activity, want %d (make bench-services writes it)", s.Service, len(s.Activity), len(u))
		}
		var rate [3]float64
		for i, a := range s.Activity {
			rate[i] = a.Rate
		}
		pw, err := estimate(u, rate)
		if err != nil {
			return "", err
		}
		hd, rx, tx := u[0], u[1], u[2]
		var cyc []string
		for i, l := range s.Latencies {
			cyc = append(cyc, fmt.Sprintf("%s at L=%d", rpt.Thousands(s.Median[i]), l))
		}
		fmt.Fprintf(&t, "| %s | %s | %d | %s + %s + %s | %s + %s + %s | %.0f / %.0f / %.0f MHz | %s | %.0f mW | %s |\n",
			s.Service, s.Methods, s.MaxDepth, rpt.Thousands(hd.luts), rpt.Thousands(rx.luts), rpt.Thousands(tx.luts),
			rpt.Thousands(hd.ffs), rpt.Thousands(rx.ffs), rpt.Thousands(tx.ffs), hd.fmax, rx.fmax, tx.fmax, strings.Join(cyc, ", "),
			pw.TotalW*1000, paperFigures(s.Service, false))
	}
	return t.String(), nil
}

// paperFigures is Figure 19's line for the service (with its power
// only, powerOnly), or "–".
func paperFigures(service string, powerOnly bool) string {
	for _, p := range rpt.Figure19 {
		switch {
		case p.Name+"Service" != service:
		case powerOnly:
			return fmt.Sprintf("%g mW", p.DynamicW*1000)
		default:
			return fmt.Sprintf("%s LUTs, %s FFs, %g mW", rpt.Thousands(p.LUTs), rpt.Thousands(p.FFs), p.DynamicW*1000)
		}
	}
	return "–"
}

// readUnits are the service's three units' figures (units' order), from
// reports/ under root.
func readUnits(root, stem string) ([3]unitFigures, error) {
	var u [3]unitFigures
	for i, dir := range [3]string{"schemahdr", "schema", "schematx"} {
		var err error
		if u[i], err = readUnit(filepath.Join(root, "reports", dir, stem), units[i]); err != nil {
			return u, err
		}
	}
	return u, nil
}

// replaceReadme returns readme with the text between the markers
// replaced by table.
func replaceReadme(readme, table string) (string, error) {
	i, j := strings.Index(readme, readmeBegin), strings.Index(readme, readmeEnd)
	if i < 0 || j < i || strings.Count(readme, readmeBegin) != 1 || strings.Count(readme, readmeEnd) != 1 {
		return "", fmt.Errorf("README.md needs one %q and one %q, in that order", strings.TrimSpace(readmeBegin), strings.TrimSpace(readmeEnd))
	}
	return readme[:i+len(readmeBegin)] + table + readme[j:], nil
}

// writeReadme rewrites README.md's table from reports/.
func writeReadme(root string) error {
	table, err := readmeTable(root)
	if err != nil {
		return err
	}
	path := filepath.Join(root, "README.md")
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := replaceReadme(string(b), table)
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(out), 0o644)
}
