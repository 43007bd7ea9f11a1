package regress

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"arcalis/tb"
	"arcalis/vectors"
)

const defaultSet = "../vectors/default.vec"

// Environment of this test binary started as a worker (see workerCmd).
const (
	workerEnv = "REGRESS_TEST_WORKER" // "1": be a worker, not a test run
	faultEnv  = "REGRESS_TEST_FAULT"  // "crash:N" or "hang:N": fail on vector N
)

// TestMain makes this test binary a worker when workerEnv asks: the tests
// of --jobs start it as their workers, so the fault hooks that test the
// supervisor, and the fake kind of run (kind_test.go), exist in the test
// binary only.
func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) == "1" {
		if f := os.Getenv(faultEnv); f != "" {
			testFault = faultAt(f)
		}
		if err := Serve(os.Stdin, os.Stdout, fakeKind); err != nil {
			fmt.Fprintln(os.Stderr, "worker:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// faultAt reads "crash:N" or "hang:N" into a hook that crashes the worker
// (exit status 3) or hangs it before it runs vector N.
func faultAt(spec string) func(int, *bufio.Writer) {
	kind, n, _ := strings.Cut(spec, ":")
	at, err := strconv.Atoi(n)
	if err != nil || kind != "crash" && kind != "hang" {
		fmt.Fprintf(os.Stderr, "worker: bad %s %q\n", faultEnv, spec)
		os.Exit(2)
	}
	return func(index int, out *bufio.Writer) {
		if index != at {
			return
		}
		out.Flush()
		if kind == "crash" {
			fmt.Fprintf(os.Stderr, "worker: crashing on vector %d as %s asks\n", index, faultEnv)
			os.Exit(3)
		}
		select {}
	}
}

// workerCmd is this test binary as a worker, with fault ("" for none).
func workerCmd(t *testing.T, fault string) []string {
	t.Helper()
	t.Setenv(workerEnv, "1") // inherited by the workers; TestMain has read it already
	t.Setenv(faultEnv, fault)
	return []string{os.Args[0], "-test.run=^$"}
}

// model is the checkout's model library; the tests need it built.
func model(t *testing.T) string {
	t.Helper()
	lib := tb.FindModel()
	if _, err := os.Stat(lib); err != nil {
		t.Fatalf("Verilated model: %v (build it with `make verilate`)", err)
	}
	return lib
}

// options are the defaults of `arcalis run`.
func options(t *testing.T) Options {
	return Options{RunOptions: tb.RunOptions{Offset: -1, WaveDir: t.TempDir()}, Latency: 4, Seed: 1, Record: -1, Model: model(t)}
}

// runAll loads and runs files, returning the results in the order emitted
// and the JSON lines `arcalis run --json` would print.
func runAll(t *testing.T, opt Options, files ...string) ([]Result, string) {
	t.Helper()
	p, err := Load(files, opt)
	if err != nil {
		t.Fatal(err)
	}
	var got []Result
	var out bytes.Buffer
	st, err := Run(t.Context(), p, opt, func(r Result, line []byte) {
		got = append(got, r)
		if line == nil {
			line = r.MarshalLine()
		}
		out.Write(line)
		out.WriteByte('\n')
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Results) != len(got) || len(got) > 0 && st.Cycles == 0 {
		t.Fatalf("stats: %d results (%d emitted), %d cycles", len(st.Results), len(got), st.Cycles)
	}
	return got, out.String()
}

// someVectors writes the default set's first n records to a file of its own.
func someVectors(t *testing.T, name string, n int) string {
	t.Helper()
	recs, err := vectors.ReadFile(defaultSet)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := vectors.WriteFile(path, recs[:n]); err != nil {
		t.Fatal(err)
	}
	return path
}
