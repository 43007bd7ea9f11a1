package regress

import (
	"encoding/xml"
	"fmt"
	"os"
	"strings"
)

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

// WriteJUnit writes the results as JUnit XML: one testsuite per vector file,
// one testcase per vector; a mismatch is a failure, a hang, crash or
// timeout an error, each with its diffs, waveform and replay command.
func WriteJUnit(path string, results []Result) error {
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
		at := fmt.Sprintf(", start offset %d", r.Offset)
		if r.Service != "" {
			at = "" // run --service: no Net.Recv line, no start offset
		}
		tc.SystemOut = fmt.Sprintf("index %d%s, %d cycles, status %s", r.Index, at, r.Cycles, r.Status)
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
