package timing

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// WriteFiles writes DIR/timing.md and DIR/timing.json.
func (r *Report) WriteFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var j bytes.Buffer
	enc := json.NewEncoder(&j)
	enc.SetEscapeHTML(false) // keep "reg->reg" readable
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "timing.json"), j.Bytes(), 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "timing.md"))
	if err != nil {
		return err
	}
	r.writeMarkdown(f, docsLink(dir))
	return f.Close()
}

// docsLink is docs/timing.md relative to dir (the working directory is the
// repository's root, as make runs it).
func docsLink(dir string) string {
	abs, err1 := filepath.Abs(dir)
	docs, err2 := filepath.Abs("docs/timing.md")
	if rel, err := filepath.Rel(abs, docs); err1 == nil && err2 == nil && err == nil {
		return filepath.ToSlash(rel)
	}
	return "../docs/timing.md"
}

// WriteMarkdown writes the human report, for a file in reports/.
func (r *Report) WriteMarkdown(w io.Writer) { r.writeMarkdown(w, "../docs/timing.md") }

func (r *Report) writeMarkdown(w io.Writer, docs string) {
	p := func(f string, a ...any) { fmt.Fprintf(w, f, a...) }
	p("# Static timing estimate (`make timing`)\n\n")
	p("Generated %s on %s from `%s` (top `%s`, %s). Model and sources: [docs/timing.md](%s).\n\n", r.Date, r.Host, r.Netlist, r.Top, r.Yosys, docs)
	p("**This is an estimate with a model, not a sign-off.** Cell delays are Artix-7 figures; every net gets a calibrated route delay ")
	p("(%.2f ns + %.2f ns x log2(fanout)) with no placement and no congestion. On the calibration paths of public Vivado reports the model was off by -25 %% to +14 %% (docs/timing.md); ",
		r.Model.RouteBase, r.Model.RouteFanout)
	p("keep at least **%.0f %% margin**: a design should estimate at >= %.0f MHz (longest path <= %.3f ns) to expect %.0f MHz after Vivado's place and route.\n\n",
		Margin*100, r.TargetMHz*(1+Margin), r.PeriodNS/(1+Margin), r.TargetMHz)
	verdict := "MEETS"
	if r.FmaxMHz < r.TargetMHz {
		verdict = "FAILS"
	}
	p("| | |\n|---|---|\n")
	p("| target | %.1f MHz (%.3f ns) |\n", r.TargetMHz, r.PeriodNS)
	p("| estimated Fmax | **%.1f MHz** (longest path %.3f ns) — %s the target |\n", r.FmaxMHz, r.WorstNS, verdict)
	p("| with the %.0f %% margin | %s |\n", Margin*100, marginVerdict(r))
	p("| endpoints above the margin's %.3f ns | %s |\n", r.PeriodNS/(1+Margin), overMargin(r))
	p("| worst slack at target | %.3f ns |\n", r.WorstSlackNS)
	p("| input-to-output combinational paths | %d |\n", len(r.InToOut))
	p("| cells / nets / endpoints | %d / %d / %d |\n\n", r.Cells, r.Nets, r.Endpoints)

	p("## Longest path of each kind\n\n")
	p("Ports: an input is taken as driven by a register outside the design (its clock-to-out, %.3f ns, then a route); an output as captured by one (a route, no setup).\n\n", r.Model.PortInDelay)
	p("| kind | start | end | levels | ns (logic + route) |\n|---|---|---|---|---|\n")
	for _, k := range []string{RegToReg, InToReg, RegToOut, InToOut} {
		if x := r.PerKind[k]; x != nil {
			p("| %s | %s | %s | %s | %s |\n", k, code(x.Start), code(x.End), x.Levels(), split(x))
		} else {
			p("| %s | — | — | — | none |\n", k)
		}
	}
	p("\n## The %d worst paths\n\n", len(r.Worst))
	p("One per endpoint, input-to-output paths excluded (listed below).\n\n")
	p("| # | kind | start | end | LUT | MUXF | CARRY4 | ns (logic + route) | slack |\n|---|---|---|---|---|---|---|---|---|\n")
	for i, x := range r.Worst {
		p("| %d | %s | %s | %s | %d | %d | %d | %s | %.3f |\n", i+1, x.Kind, code(x.Start), code(x.End), x.LUTs, x.MUXFs, x.Carry4s, split(&x), r.PeriodNS-x.TotalNS)
	}
	if len(r.Worst) > 0 {
		p("\nThe worst path, cell by cell:\n\n```\n")
		writeSteps(w, &r.Worst[0])
		p("```\n")
	}
	p("\n## Worst path per top-level block (the block of its endpoint)\n\n")
	p("| block | Fmax | start | end | levels | ns (logic + route) |\n|---|---|---|---|---|---|\n")
	for _, x := range r.PerBlock {
		p("| %s | %.1f MHz | %s | %s | %s | %s |\n", code(x.EndBlock), 1000/x.TotalNS, code(x.Start), code(x.End), x.Levels(), split(&x))
	}
	p("\n## Above the margin, by register pair\n\n")
	if len(r.OverMarginGroups) == 0 {
		p("None: every path is within the margin's %.3f ns.\n", r.PeriodNS/(1+Margin))
	} else {
		p("Every endpoint whose longest path is above the margin's %.3f ns, grouped by that path's start and end register (bits merged): what is left before the margin is met.\n\n", r.PeriodNS/(1+Margin))
		p("| endpoints | worst ns (logic + route) | levels | start | end |\n|---|---|---|---|---|\n")
		for _, g := range r.OverMarginGroups {
			p("| %d | %s | %s | %s | %s |\n", g.Endpoints, split(&g.Worst), g.Worst.Levels(), code(g.Start), code(g.End))
		}
	}
	p("\n## Combinational paths from an input port to an output port\n\n")
	if len(r.InToOut) == 0 {
		p("None: every output is registered or driven by registers only.\n")
	} else {
		p("**%d output bits are reached from an input through logic alone. They must not exist** (every output registered, docs/abi.md).\n\n", len(r.InToOut))
		p("| output | every input reaching it | longest: from | levels | ns |\n|---|---|---|---|---|\n")
		for _, x := range r.InToOut {
			p("| %s | %s | %s | %s | %.3f |\n", code(x.End), code(strings.Join(x.From, ", ")), code(x.Start), x.Levels(), x.TotalNS)
		}
	}
}

func writeSteps(w io.Writer, x *Path) {
	t := 0.0
	for _, s := range x.Steps {
		t += s.Delay
		fmt.Fprintf(w, "%8.3f  +%.3f  %-8s %-12s %s\n", t, s.Delay, s.Type, s.Arc, s.Cell)
		t += s.Route
		fmt.Fprintf(w, "%8.3f  +%.3f  net      %s\n", t, s.Route, s.Net)
	}
	fmt.Fprintf(w, "%8.3f  total with setup, into %s\n", x.TotalNS, x.End)
}

func split(x *Path) string {
	return fmt.Sprintf("%.3f (%.3f + %.3f)", x.TotalNS, x.LogicNS, x.RouteNS)
}

func code(s string) string {
	return "`" + strings.ReplaceAll(s, "|", "\\|") + "`"
}

// overMargin is the count of endpoints above the margin's period, then
// the blocks that hold them, most first.
func overMargin(r *Report) string {
	if r.OverMargin == 0 {
		return "0"
	}
	blocks := make([]string, 0, len(r.OverMarginByBlock))
	for b := range r.OverMarginByBlock {
		blocks = append(blocks, b)
	}
	sort.Slice(blocks, func(i, j int) bool {
		ni, nj := r.OverMarginByBlock[blocks[i]], r.OverMarginByBlock[blocks[j]]
		return ni > nj || ni == nj && blocks[i] < blocks[j]
	})
	parts := make([]string, len(blocks))
	for i, b := range blocks {
		parts[i] = fmt.Sprintf("%s %d", code(b), r.OverMarginByBlock[b])
	}
	return fmt.Sprintf("%d of %d (%s)", r.OverMargin, r.Endpoints, strings.Join(parts, ", "))
}

func marginVerdict(r *Report) string {
	if r.FmaxMHz >= r.TargetMHz*(1+Margin) {
		return fmt.Sprintf("met (%.1f >= %.1f MHz)", r.FmaxMHz, r.TargetMHz*(1+Margin))
	}
	return fmt.Sprintf("not met (%.1f < %.1f MHz)", r.FmaxMHz, r.TargetMHz*(1+Margin))
}
