package main

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"
)

// mergeCommand combines the --json outputs of `arcalis run --shard i/n`.
func mergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "combine the JSON results of sharded runs into the result of the whole run",
		ArgsUsage: "RESULTS...",
		Description: "Each RESULTS file is the output of `arcalis run --json` (typically with\n" +
			"--shard i/n). The files must come from one run (the same options and vector\n" +
			"files: the \"config\" field) and together hold every vector exactly once.\n" +
			"merge prints the summary of the whole run, or with --json its lines in input\n" +
			"order (the lines an unsharded `arcalis run --json` prints), and exits non-zero\n" +
			"when any vector failed or the shards are incomplete.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the merged JSON lines instead of the summary"},
			&cli.StringFlag{Name: "junit", Usage: "write JUnit XML results to `FILE`", TakesFile: true},
		},
		Action: mergeResults,
	}
}

func mergeResults(c *cli.Context) error {
	files, err := positional(c)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return errors.New("merge: no result files given (usage: arcalis merge [flags] RESULTS...)")
	}
	var results []vectorResult
	where := map[int]string{} // index -> file:line that gave it
	total, config := -1, ""
	for _, f := range files {
		rs, err := readResults(f)
		if err != nil {
			return err
		}
		for i, r := range rs {
			at := fmt.Sprintf("%s:%d", f, i+1)
			switch {
			case total < 0:
				total, config = r.Total, r.Config
			case r.Config != config:
				return fmt.Errorf("merge: %s: config %q, but %s has %q: the results come from different runs", at, r.Config, firstLine(where), config)
			case r.Total != total:
				return fmt.Errorf("merge: %s: total %d, but %s has %d", at, r.Total, firstLine(where), total)
			}
			if r.Index < 0 || r.Index >= r.Total {
				return fmt.Errorf("merge: %s: index %d outside the run's %d vectors", at, r.Index, r.Total)
			}
			if prev, dup := where[r.Index]; dup {
				return fmt.Errorf("merge: %s: vector %d again (first in %s)", at, r.Index, prev)
			}
			where[r.Index] = at
			r.Shard = ""
			results = append(results, r)
		}
	}
	if len(results) < total {
		var missing []string
		for i := 0; i < total && len(missing) < 10; i++ {
			if _, ok := where[i]; !ok {
				missing = append(missing, fmt.Sprint(i))
			}
		}
		return fmt.Errorf("merge: %d of the run's %d vectors are missing (indices %s...): is a shard's file missing or cut short?",
			total-len(results), total, strings.Join(missing, ", "))
	}
	sort.Slice(results, func(i, j int) bool { return results[i].Index < results[j].Index })

	for _, r := range results {
		if c.Bool("json") {
			b, _ := json.Marshal(r)
			fmt.Fprintln(c.App.Writer, string(b))
		} else if !r.Match {
			printFailure(c.App.ErrWriter, r)
		}
	}
	failed := summarize(c.App.ErrWriter, results, 0, 0)
	if f := c.String("junit"); f != "" {
		if err := writeJUnit(f, results); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d vectors: RTL and reference disagree", failed, len(results))
	}
	return nil
}

func firstLine(where map[int]string) string {
	best := ""
	for _, at := range where {
		if best == "" || at < best {
			best = at
		}
	}
	return best
}

// readResults reads one file of `arcalis run --json` lines.
func readResults(path string) ([]vectorResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	defer f.Close()
	var out []vectorResult
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var r vectorResult
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("merge: %s:%d: not a line of `arcalis run --json`: %v", path, n, err)
		}
		if r.Config == "" || r.Total <= 0 {
			return nil, fmt.Errorf("merge: %s:%d: no \"config\" or \"total\" field: written by an older arcalis run?", path, n)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("merge: %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("merge: %s: no results", path)
	}
	return out, nil
}

// ---- JUnit XML ----

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// writeJUnit writes the results as JUnit XML: one testsuite per vector file,
// one testcase per vector; a mismatch is a failure, a hang, crash or
// timeout an error, each with its diffs, waveform and replay command.
func writeJUnit(path string, results []vectorResult) error {
	doc := junitSuites{Name: "arcalis run"}
	suite := map[string]int{}
	var suiteTime []float64
	var total float64
	for _, r := range results {
		i, ok := suite[r.File]
		if !ok {
			i = len(doc.Suites)
			suite[r.File] = i
			doc.Suites = append(doc.Suites, junitSuite{Name: r.File})
			suiteTime = append(suiteTime, 0)
		}
		s := &doc.Suites[i]
		tc := junitCase{Name: fmt.Sprintf("record %d: %s", r.Record, r.Source), Classname: r.File, Time: seconds(r.seconds)}
		if !r.Match {
			text := strings.Join(r.Diffs, "\n")
			if r.Wave != "" {
				text += "\nwaveform: " + r.Wave
			}
			text += "\nreplay: " + r.Replay
			p := &junitProblem{Message: fmt.Sprintf("RTL %s, reference %s", r.Status, r.Expected), Type: r.Status, Text: text}
			switch r.Status {
			case "HANG", "CRASH", "TIMEOUT":
				tc.Error = p
				s.Errors++
				doc.Errors++
			default:
				p.Type = "mismatch"
				tc.Failure = p
				s.Failures++
				doc.Failures++
			}
		}
		tc.SystemOut = fmt.Sprintf("index %d, start offset %d, %d cycles, status %s", r.Index, r.Offset, r.Cycles, r.Status)
		s.Cases = append(s.Cases, tc)
		s.Tests++
		doc.Tests++
		suiteTime[i] += r.seconds
		total += r.seconds
	}
	for i := range doc.Suites {
		doc.Suites[i].Time = seconds(suiteTime[i])
	}
	doc.Time = seconds(total)
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	b = append([]byte(xml.Header), append(b, '\n')...)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("writing JUnit results: %w", err)
	}
	return nil
}

// seconds formats a JUnit time attribute. Merged results carry no times (0).
func seconds(s float64) string { return fmt.Sprintf("%.6f", s) }
