package vivado

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"arcalis/report"
)

// PowerReport is a parsed report_power file.
type PowerReport struct {
	Header     Header
	TotalW     float64 // Total On-Chip Power
	DynamicW   float64 // Dynamic
	StaticW    float64 // Device Static
	Activity   string  // Simulation Activity File ("---" when vectorless)
	Confidence string
	// Hierarchy is the per-instance power (W) by dotted path from the top,
	// from the "| Name | Power (W) |" table; empty if the report has none.
	Hierarchy map[string]float64
}

// ReadPowerFile parses one report_power output file.
func ReadPowerFile(path string) (*PowerReport, error) { return readFile(path, ParsePower) }

// ParsePower reads report_power's summary table ("Total On-Chip Power (W)",
// "Dynamic (W)", "Device Static (W)", ...) and its hierarchy table. A
// missing summary row or a value that is not a number is an error naming
// the file (and the line).
func ParsePower(r io.Reader, name string) (*PowerReport, error) {
	lines, ts, err := readTables(r, name)
	if err != nil {
		return nil, err
	}
	p := &PowerReport{Header: readHeader(lines), Hierarchy: map[string]float64{}}
	seen := map[string]bool{}
	want := map[string]*float64{"Total On-Chip Power (W)": &p.TotalW, "Dynamic (W)": &p.DynamicW, "Device Static (W)": &p.StaticW}
	for _, t := range ts {
		if len(t.header) == 2 && strings.EqualFold(t.header[0], "Name") && strings.HasPrefix(t.header[1], "Power (W)") {
			if err := p.readHierarchy(t, name); err != nil {
				return nil, err
			}
			continue
		}
		// The summary is a headerless two-column key/value table
		// ("| Total On-Chip Power (W) | 0.123 |").
		if t.header != nil || len(t.rows) == 0 || len(t.rows[0]) != 2 {
			continue
		}
		for i, kv := range t.rows {
			key, val := kv[0], kv[1]
			switch key {
			case "Simulation Activity File":
				p.Activity = val
			case "Confidence Level":
				p.Confidence = val
			}
			dst, ok := want[key]
			if !ok {
				continue
			}
			// "0.123 (Junction temp exceeded!)": the number is the first word.
			fields := strings.Fields(val)
			if len(fields) == 0 {
				return nil, fmt.Errorf("%s:%d: %s has no value", name, t.lines[i], key)
			}
			v, err := number(fields[0], false)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %s: %w", name, t.lines[i], key, err)
			}
			*dst = v
			seen[key] = true
		}
	}
	for _, k := range []string{"Total On-Chip Power (W)", "Dynamic (W)", "Device Static (W)"} {
		if !seen[k] {
			return nil, fmt.Errorf("%s: no %q row in a summary table: not a report_power file, or a truncated one", name, k)
		}
	}
	if math.Abs(p.TotalW-p.DynamicW-p.StaticW) > 0.0015+0.01*p.TotalW {
		return nil, fmt.Errorf("%s: Total On-Chip Power %.3f W is not Dynamic %.3f W + Device Static %.3f W", name, p.TotalW, p.DynamicW, p.StaticW)
	}
	return p, nil
}

func (p *PowerReport) readHierarchy(t *table, name string) error {
	var stack []string
	for i, row := range t.rows {
		raw := t.raw[i][0]
		indent := len(raw) - len(strings.TrimLeft(raw, " ")) - 1
		if indent < 0 || indent%2 != 0 {
			return fmt.Errorf("%s:%d: %q is indented by %d spaces, not a multiple of two", name, t.lines[i], row[0], indent)
		}
		depth := indent / 2
		if depth > len(stack) {
			return fmt.Errorf("%s:%d: %q is nested two levels below its parent", name, t.lines[i], row[0])
		}
		stack = append(stack[:depth], row[0])
		v, err := number(row[1], false)
		if err != nil {
			return fmt.Errorf("%s:%d: %s, Power (W): %w", name, t.lines[i], row[0], err)
		}
		p.Hierarchy[strings.Join(stack, ".")] = v
	}
	return nil
}

// Apply puts the report's power on the blocks (by path; the hierarchy
// table's top row names the top instance) and sets the summary.
func (p *PowerReport) Apply(rep *report.Report) {
	for i := range rep.Blocks {
		if w, ok := p.Hierarchy[rep.Blocks[i].Path]; ok {
			rep.Blocks[i].Power = &report.Power{TotalW: w}
		}
	}
	rep.PowerSummary = &report.PowerSummary{Kind: "vivado", DynamicW: p.DynamicW, StaticW: p.StaticW, TotalW: p.TotalW}
	if p.Activity != "" && p.Activity != "---" {
		rep.PowerSummary.Workload = p.Activity
	}
}

// ReadTimingFile parses one report_timing_summary output file.
func ReadTimingFile(path string) (*report.Timing, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseTiming(f, path)
}

// ParseTiming reads report_timing_summary's "Design Timing Summary" (the
// line under "WNS(ns) TNS(ns) ...") and the first clock of its "Clock
// Summary". A missing or malformed summary is an error naming file and line.
func ParseTiming(r io.Reader, name string) (*report.Timing, error) {
	lines, err := readLines(r, name)
	if err != nil {
		return nil, err
	}
	t := &report.Timing{}
	found := false
	for i := 0; i < len(lines); i++ {
		f := strings.Fields(lines[i].text)
		switch {
		case len(f) > 0 && f[0] == "WNS(ns)" && !found:
			if i+2 >= len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[i+1].text), "---") {
				return nil, fmt.Errorf("%s:%d: WNS header not followed by a dashed line and values", name, lines[i].n)
			}
			vals := strings.Fields(lines[i+2].text)
			if len(vals) < 8 {
				return nil, fmt.Errorf("%s:%d: design timing summary has %d values, want at least 8 (WNS TNS failing total WHS THS failing total)", name, lines[i+2].n, len(vals))
			}
			dst := []*float64{&t.WNS, &t.TNS, nil, nil, &t.WHS, &t.THS}
			for k, d := range dst {
				v, err := number(vals[k], true)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: value %d of the design timing summary: %w", name, lines[i+2].n, k+1, err)
				}
				if d != nil {
					*d = v
				} else if k == 2 {
					if math.IsNaN(v) {
						v = 0
					}
					t.FailingEndpoints = int(v)
				}
			}
			found = true
			i += 2
		case len(f) >= 4 && f[0] == "Clock" && strings.HasPrefix(f[1], "Waveform") && t.ClockPeriodNS == 0:
			// Clock  Waveform(ns)  Period(ns)  Frequency(MHz), then dashes, then rows.
			if i+2 < len(lines) {
				row := lines[i+2].text
				if end := strings.Index(row, "}"); end > 0 {
					rest := strings.Fields(row[end+1:])
					if len(rest) >= 1 {
						v, err := number(rest[0], false)
						if err != nil {
							return nil, fmt.Errorf("%s:%d: clock period: %w", name, lines[i+2].n, err)
						}
						t.ClockPeriodNS = v
					}
				}
			}
		}
	}
	if !found {
		return nil, fmt.Errorf("%s: no design timing summary (WNS(ns) TNS(ns) ...) found", name)
	}
	return t, nil
}
