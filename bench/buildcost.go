package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// buildCost is section 4: build and test times.
type buildCost struct {
	Scratch, NoChange, Suite time.Duration
	SuiteOK                  bool
	SuiteTail                string // the suite's last lines when it failed
}

// timed runs name with args and returns its wall time and combined output.
func timed(name string, args ...string) (time.Duration, []byte, error) {
	cmd := exec.Command(name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	err := cmd.Run()
	return time.Since(t0), out.Bytes(), err
}

// measureBuild times the model build from scratch (vpi/build.mk standalone
// with the plain model's settings, into a directory of its own so that
// nobody's build/model is disturbed), `make verilate` with nothing changed,
// and `go test -count=1 ./...`.
func measureBuild(makeCmd, goCmd, scratchDir string, vars []string) (buildCost, error) {
	var c buildCost
	if err := os.RemoveAll(scratchDir); err != nil {
		return c, err
	}
	args := append([]string{"-s", "-f", "vpi/build.mk", "VPI_OUT=" + scratchDir}, vars...)
	d, out, err := timed(makeCmd, append(args, "vpi-model")...)
	if err != nil {
		return c, fmt.Errorf("make %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	c.Scratch = d
	// Settle: the first run may rebuild after another checkout's edit.
	if _, out, err := timed(makeCmd, "-s", "verilate"); err != nil {
		return c, fmt.Errorf("make verilate: %w\n%s", err, out)
	}
	if c.NoChange, out, err = timed(makeCmd, "-s", "verilate"); err != nil {
		return c, fmt.Errorf("make verilate: %w\n%s", err, out)
	}
	d, out, err = timed(goCmd, "test", "-count=1", "./...")
	c.Suite, c.SuiteOK = d, err == nil
	if err != nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		c.SuiteTail = strings.Join(lines[max(0, len(lines)-15):], "\n")
	}
	return c, nil
}
