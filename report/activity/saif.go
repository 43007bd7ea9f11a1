package activity

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// SAIFHeader is what the SAIF file says about itself.
type SAIFHeader struct {
	Program string // PROGRAM_NAME
	Version string // VERSION
	Design  string // DESIGN (may be empty)
}

// WriteSAIF writes the activity under the scope at path (e.g. "arcalis_top")
// as a backward SAIF 2.0 file (IEEE 1801-2009 annex, the format Vivado's
// read_saif reads): one INSTANCE per scope, one NET entry per bit with its
// T0, T1 and TX durations and TC toggle count, DURATION the dump's length in
// TIMESCALE units. Bus bits are named `name\[i\]`. Parameters are left out.
// In Vivado: read_saif -strip_path <path> FILE.
func (d *Dump) WriteSAIF(w io.Writer, path string, h SAIFHeader) error {
	scope := d.Scope(path)
	if scope == nil {
		return fmt.Errorf("saif: no scope %s in the waveform", path)
	}
	num, unit, err := splitTimescale(d.Timescale)
	if err != nil {
		return fmt.Errorf("saif: %w", err)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "(SAIFILE\n(SAIFVERSION \"2.0\")\n(DIRECTION \"backward\")\n(DESIGN %s)\n", quoteIf(h.Design))
	fmt.Fprintf(bw, "(VENDOR \"arcalis\")\n(PROGRAM_NAME %q)\n(VERSION %q)\n", h.Program, h.Version)
	fmt.Fprintf(bw, "(DIVIDER / )\n(TIMESCALE %s %s)\n(DURATION %d)\n", num, unit, d.End-d.Start)
	writeInstance(bw, scope, 0)
	bw.WriteString(")\n")
	return bw.Flush()
}

func quoteIf(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf("%q", s)
}

// splitTimescale turns "1ps" or "10 ns" into ("1", "ps").
func splitTimescale(ts string) (string, string, error) {
	ts = strings.ReplaceAll(ts, " ", "")
	i := strings.IndexFunc(ts, func(r rune) bool { return !unicode.IsDigit(r) })
	if i <= 0 {
		return "", "", fmt.Errorf("timescale %q has no number and unit", ts)
	}
	num, unit := ts[:i], ts[i:]
	switch num {
	case "1", "10", "100":
	default:
		return "", "", fmt.Errorf("timescale %q: SAIF allows 1, 10 or 100", ts)
	}
	switch unit {
	case "s", "ms", "us", "ns", "ps", "fs":
	default:
		return "", "", fmt.Errorf("timescale %q: unknown unit %s", ts, unit)
	}
	return num, unit, nil
}

func writeInstance(w *bufio.Writer, s *Scope, depth int) {
	ind := strings.Repeat("  ", depth)
	fmt.Fprintf(w, "%s(INSTANCE %s\n", ind, saifName(s.Name))
	nets := false
	for _, v := range s.Vars {
		if v.Kind == "parameter" {
			continue
		}
		if !nets {
			fmt.Fprintf(w, "%s  (NET\n", ind)
			nets = true
		}
		sig := v.Signal
		for k := v.Width - 1; k >= 0; k-- {
			name := saifName(v.Name)
			if v.Width > 1 || v.MSB != v.LSB || v.MSB != 0 {
				idx := v.LSB + k
				if v.MSB < v.LSB {
					idx = v.LSB - k
				}
				name = fmt.Sprintf("%s\\[%d\\]", name, idx)
			}
			fmt.Fprintf(w, "%s    (%s (T0 %d) (T1 %d) (TX %d) (TC %d) (IG 0))\n", ind, name, sig.T0[k], sig.T1[k], sig.TX[k], sig.TC[k])
		}
	}
	if nets {
		fmt.Fprintf(w, "%s  )\n", ind)
	}
	for _, c := range s.Children {
		writeInstance(w, c, depth+1)
	}
	fmt.Fprintf(w, "%s)\n", ind)
}

// saifName escapes the characters SAIF identifiers cannot hold bare.
func saifName(n string) string {
	var b strings.Builder
	for _, r := range n {
		switch r {
		case '[', ']', '(', ')', '/', '\\', ' ', '"', '.':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
