// Package vivado reads Vivado's text reports (report_utilization, flat and
// -hierarchical, report_power, report_timing_summary) into the report table.
package vivado

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// line is one line of a report with its 1-based number.
type line struct {
	n    int
	text string
}

// readFile opens the report at path and parses it with parse, which names
// the file in its errors.
func readFile[T any](path string, parse func(io.Reader, string) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return parse(f, path)
}

// readTables reads a whole report and finds its tables (see tables).
func readTables(r io.Reader, name string) ([]line, []*table, error) {
	lines, err := readLines(r, name)
	if err != nil {
		return nil, nil, err
	}
	ts, err := tables(lines, name)
	return lines, ts, err
}

// readLines reads a whole report.
func readLines(r io.Reader, name string) ([]line, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<22)
	var out []line
	for n := 1; sc.Scan(); n++ {
		out = append(out, line{n, strings.TrimRight(sc.Text(), "\r")})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// table is one ASCII table: +---+ borders, a | header | row, | data | rows.
type table struct {
	header []string // trimmed
	rows   [][]string
	raw    [][]string // untrimmed cells (for indentation)
	lines  []int      // line of each row
	at     int        // line of the header
}

// col is the index of the first header matching one of names
// (case-insensitive), or -1.
func (t *table) col(names ...string) int {
	for _, n := range names {
		for i, h := range t.header {
			if strings.EqualFold(h, n) {
				return i
			}
		}
	}
	return -1
}

func isBorder(s string) bool {
	s = strings.TrimSpace(s)
	return len(s) > 2 && s[0] == '+' && strings.Trim(s, "+-=") == ""
}

// splitRow splits "| a | b |" into its cells, untrimmed.
func splitRow(s string) ([]string, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '|' || s[len(s)-1] != '|' {
		return nil, false
	}
	return strings.Split(s[1:len(s)-1], "|"), true
}

// tables finds every bordered table: "+---+" border, a header row and a
// border, data rows, a closing border; or, headerless (report_power's
// summary), a border, data rows and a border. A row with the wrong number of
// cells, or a table the file ends inside, is an error naming the line.
func tables(lines []line, name string) ([]*table, error) {
	var out []*table
	for i := 0; i < len(lines); i++ {
		if !isBorder(lines[i].text) || i+1 >= len(lines) {
			continue
		}
		first, ok := splitRow(lines[i+1].text)
		if !ok {
			continue
		}
		t := &table{at: lines[i+1].n}
		j := i + 1
		width := len(first)
		if i+2 < len(lines) && isBorder(lines[i+2].text) {
			for _, h := range first {
				t.header = append(t.header, strings.TrimSpace(h))
			}
			j = i + 3
		}
		closed := false
		for ; j < len(lines); j++ {
			l := lines[j]
			if isBorder(l.text) {
				// A border between rows continues the table if a row follows.
				if j+1 < len(lines) {
					if _, ok := splitRow(lines[j+1].text); ok {
						continue
					}
				}
				closed = true
				break
			}
			cells, ok := splitRow(l.text)
			if !ok {
				return nil, fmt.Errorf("%s:%d: table starting at line %d ends without its closing border", name, l.n, t.at)
			}
			if len(cells) != width {
				return nil, fmt.Errorf("%s:%d: row has %d cells, the table's first row (line %d) has %d", name, l.n, len(cells), t.at, width)
			}
			trimmed := make([]string, len(cells))
			for k, c := range cells {
				trimmed[k] = strings.TrimSpace(c)
			}
			t.rows = append(t.rows, trimmed)
			t.raw = append(t.raw, cells)
			t.lines = append(t.lines, l.n)
		}
		if !closed {
			return nil, fmt.Errorf("%s:%d: the file ends inside the table starting at line %d", name, lines[len(lines)-1].n, t.at)
		}
		out = append(out, t)
		i = j
	}
	return out, nil
}

// number parses a report number: "1234", "0.041", "<0.001" (as 0), "NA"
// (NaN, when allowNA).
func number(s string, allowNA bool) (float64, error) {
	s = strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, "<"):
		if _, err := strconv.ParseFloat(s[1:], 64); err == nil {
			return 0, nil
		}
	case allowNA && (s == "NA" || s == "inf" || s == "-inf"):
		return math.NaN(), nil
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return f, nil
}

// Header is the report's banner: tool version, design, device, state.
type Header struct {
	Version string // "Vivado v.2020.2 (lin64) Build ..."
	Command string
	Design  string
	Device  string
	State   string
}

// readHeader picks the "| Key : value" lines of the banner.
func readHeader(lines []line) Header {
	var h Header
	for _, l := range lines {
		if isBorder(l.text) {
			break // the banner is above the first table
		}
		t := strings.TrimSpace(l.text)
		if !strings.HasPrefix(t, "|") || !strings.Contains(t, ":") {
			continue
		}
		k, v, _ := strings.Cut(strings.TrimSpace(t[1:]), ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "Tool Version":
			h.Version = v
		case "Command":
			h.Command = v
		case "Design":
			h.Design = v
		case "Device":
			h.Device = v
		case "Design State":
			h.State = v
		}
	}
	return h
}
