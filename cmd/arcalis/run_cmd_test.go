package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"arcalis/regress"
	"arcalis/tb"
)

// Tests of arcalis run, merge and the conventions every command keeps (exit
// status, streams, colour, the model's path). They run a built arcalis
// binary, as a user would: the workers of --jobs are that binary started
// again.

// arcalisBin builds the arcalis command once for the whole test binary.
func arcalisBin(t *testing.T) string {
	t.Helper()
	if builtBin != "" {
		return builtBin
	}
	dir, err := os.MkdirTemp("", "arcalis-bin-")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "arcalis")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building arcalis: %v: %s", err, out)
	}
	builtBin = bin
	return bin
}

var builtBin string // removed by TestMain

func TestMain(m *testing.M) {
	code := m.Run()
	if builtBin != "" {
		os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}

// invocation is one run of the built binary.
type invocation struct {
	stdout, stderr string
	code           int // exit status
}

// arcalisIn runs the built binary in dir ("" for here) with env added to
// this process's (ARCALIS_MODEL and NO_COLOR removed from it, so that each
// test sets what it means).
func arcalisIn(t *testing.T, dir string, env []string, args ...string) invocation {
	t.Helper()
	cmd := exec.Command(arcalisBin(t), args...)
	cmd.Dir = dir
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "ARCALIS_MODEL=") && !strings.HasPrefix(e, "NO_COLOR=") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("arcalis %v: %v", args, err)
	}
	return invocation{out.String(), errOut.String(), cmd.ProcessState.ExitCode()}
}

// arcalis runs the built binary with the model of this checkout.
func arcalis(t *testing.T, args ...string) invocation {
	t.Helper()
	return arcalisIn(t, "", []string{"ARCALIS_MODEL=" + model(t)}, args...)
}

func model(t *testing.T) string {
	t.Helper()
	lib, err := filepath.Abs(tb.FindModel())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lib); err != nil {
		t.Fatalf("Verilated model: %v (build it with `make verilate`)", err)
	}
	return lib
}

// results decodes arcalis run --json output.
func results(t *testing.T, out string) []regress.Result {
	t.Helper()
	var rs []regress.Result
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r regress.Result
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("bad JSON line %q: %v", line, err)
		}
		rs = append(rs, r)
	}
	return rs
}

func TestRunJobsSameAsOne(t *testing.T) {
	waves := t.TempDir()
	one := arcalis(t, "run", "--json", "--wave", waves, defaultSet)
	two := arcalis(t, "run", "--json", "--jobs", "2", "--wave", waves, defaultSet)
	if one.code != 0 || two.code != 0 {
		t.Fatalf("exit status %d and %d; stderr:\n%s\n%s", one.code, two.code, one.stderr, two.stderr)
	}
	if one.stdout != two.stdout {
		t.Errorf("--jobs 2 printed other results than --jobs 1")
	}
	rs := results(t, one.stdout)
	if len(rs) != 282 {
		t.Fatalf("%d results, want 282", len(rs))
	}
	for i, r := range rs {
		if r.Index != i || r.Total != 282 || !r.Match || r.Config == "" || r.Shard != "" {
			t.Fatalf("result %d: %+v", i, r)
		}
	}
}

func TestShardsMergeToWholeRun(t *testing.T) {
	dir := t.TempDir()
	whole := arcalis(t, "run", "--json", "--wave", dir, defaultSet)
	if whole.code != 0 {
		t.Fatalf("unsharded run: exit status %d: %s", whole.code, whole.stderr)
	}
	var files []string
	for i := 1; i <= 3; i++ {
		shard := fmt.Sprintf("%d/3", i)
		run := arcalis(t, "run", "--json", "--shard", shard, "--jobs", "2", "--wave", dir, defaultSet)
		if run.code != 0 {
			t.Fatalf("shard %s: exit status %d: %s", shard, run.code, run.stderr)
		}
		for _, r := range results(t, run.stdout) {
			if r.Index%3 != i-1 || r.Shard != shard {
				t.Fatalf("shard %s ran vector %d (shard field %q)", shard, r.Index, r.Shard)
			}
		}
		f := filepath.Join(dir, fmt.Sprintf("shard%d.jsonl", i))
		if err := os.WriteFile(f, []byte(run.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	junit := filepath.Join(dir, "merged.xml")
	merged := arcalis(t, "merge", "--json", "--junit", junit, files[2], files[0], files[1])
	if merged.code != 0 || merged.stdout != whole.stdout {
		t.Errorf("merge: exit status %d, same as the unsharded run: %v", merged.code, merged.stdout == whole.stdout)
	}
	if !strings.Contains(merged.stderr, "PASS RTL matches the reference on all 282 vectors") {
		t.Errorf("merge --json: no summary on stderr: %q", merged.stderr)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
	}
	if b, err := os.ReadFile(junit); err != nil || xml.Unmarshal(b, &doc) != nil || doc.Tests != 282 || doc.Failures+doc.Errors != 0 {
		t.Errorf("merged JUnit: %+v, %v", doc, err)
	}
	// Without --json: the summary on stdout.
	if m := arcalis(t, append([]string{"merge"}, files...)...); m.code != 0 || !strings.Contains(m.stdout, "282 vectors\n") || !strings.Contains(m.stdout, "PASS") {
		t.Errorf("merge: exit status %d, stdout %q", m.code, m.stdout)
	}
	if m := arcalis(t, "merge", files[0], files[1]); m.code != 2 || !strings.Contains(m.stderr, "94 of the run's 282 vectors are missing") {
		t.Errorf("merge of two of three shards: exit status %d, stderr %q", m.code, m.stderr)
	}
}

func TestRunFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "0/3"}, `--shard "0/3": want i/n with 1 <= i <= n`},
		{[]string{"--shard", "4/3"}, `--shard "4/3"`},
		{[]string{"--shard", "2"}, `--shard "2"`},
		{[]string{"--jobs", "0"}, "--jobs 0: want 1..1024"},
		{[]string{"--offset", "64"}, "--offset 64: want 0..63"},
		{[]string{"--timeout", "0s"}, "--timeout 0s"},
	} {
		_, err := runApp(t, append(append([]string{"run"}, tc.args...), defaultSet)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || exitCode(err) != exitError {
			t.Errorf("run %v: %v (exit %d), want %q and exit 2", tc.args, err, exitCode(err), tc.want)
		}
	}
	if _, err := runApp(t, "merge"); err == nil || !strings.Contains(err.Error(), "no result files") {
		t.Errorf("merge without files: %v", err)
	}
}

// failingLines is a run's --json output with vector 1 of 3 disagreeing.
func failingLines(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for i := range 3 {
		r := regress.Result{Index: i, File: "x.vec", Record: i, Source: "s", Status: "ok", Match: true, Expected: "ok", Total: 3, Config: "abc"}
		if i == 1 {
			r.Status, r.Match, r.Diffs = "PARSE_ERROR", false, []string{"status result PARSE_ERROR, reference OK"}
			r.Wave, r.Replay = "waves/x-r1-v1-RUN.fst", "arcalis run --record 1 --offset 1 --mem-latency 4 --seed 2 --wave waves x.vec"
		}
		b.Write(r.MarshalLine())
		b.WriteByte('\n')
	}
	p := filepath.Join(dir, "fail.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Exit status 0 when all match, 1 when any vector disagrees, 2 for usage
// and input errors; the error itself on stderr.
func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(defaultSet)
	if err != nil {
		t.Fatal(err)
	}
	// Cut 10 bytes into record 0's message: after the file header (8), the
	// record's two length words (8) and its metadata.
	corrupt := filepath.Join(dir, "corrupt.vec")
	os.WriteFile(corrupt, data[:16+binary.BigEndian.Uint32(data[8:])+10], 0o644)
	notVec := filepath.Join(dir, "not.vec")
	os.WriteFile(notVec, []byte("hello\n"), 0o644)
	fail := failingLines(t, dir)
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"all match", []string{"run", "--record", "3", defaultSet}, 0, ""},
		{"help", []string{"--help"}, 0, ""},
		{"a vector disagrees (merge)", []string{"merge", fail}, 1, "1 of 3 vectors: RTL and reference disagree"},
		{"records fail verify", []string{"vectors", "verify", corrupt}, 1, "1 failures in 1 of 1 files"},
		{"unknown flag", []string{"run", "--bogus", defaultSet}, 2, "flag provided but not defined: -bogus"},
		{"unknown command", []string{"bogus"}, 2, `unknown command "bogus"`},
		{"no command", nil, 2, "missing command"},
		{"bad flag value", []string{"run", "--jobs", "x", defaultSet}, 2, `invalid value "x"`},
		{"no vector files", []string{"run"}, 2, "no vector files given"},
		{"unreadable vector file", []string{"run", filepath.Join(dir, "nope.vec")}, 2, "nope.vec: no such file"},
		{"corrupt vector file", []string{"run", corrupt}, 2, corrupt + ": record 0 (byte offset 8): truncated message"},
		{"not a vector file", []string{"run", notVec}, 2, notVec},
		{"record past the end", []string{"run", "--record", "999", defaultSet}, 2, "the file has 282 records"},
		{"missing model", []string{"run", "--model", filepath.Join(dir, "none.so"), defaultSet}, 2, filepath.Join(dir, "none.so")},
		{"not results", []string{"merge", defaultSet}, 2, "not a line of `arcalis run --json`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := arcalis(t, tc.args...)
			if got.code != tc.code || !strings.Contains(got.stderr, tc.stderr) {
				t.Errorf("exit status %d, stderr %q; want %d and %q", got.code, got.stderr, tc.code, tc.stderr)
			}
			if tc.code == 2 && !strings.HasPrefix(got.stderr, "arcalis: ") && tc.name != "help" {
				t.Errorf("stderr %q: want the error after \"arcalis: \"", got.stderr)
			}
		})
	}
	// The help says what the codes mean.
	help := arcalis(t, "--help").stdout
	for _, want := range []string{"EXIT STATUS", "0  every vector matches", "1  a finding", "2  a usage or input error", "NO_COLOR", "ARCALIS_MODEL", "docs/cli.md"} {
		if !strings.Contains(help, want) {
			t.Errorf("arcalis --help does not say %q:\n%s", want, help)
		}
	}
}

// Results and the PASS/FAIL summary on stdout, diagnostics and progress on
// stderr; with --json, stdout holds the JSON lines alone.
func TestStreams(t *testing.T) {
	run := arcalis(t, "run", "--record", "5", defaultSet)
	if run.code != 0 || !strings.Contains(run.stdout, "PASS RTL matches the reference on all 1 vectors") || strings.Contains(run.stderr, "PASS") {
		t.Errorf("run: stdout %q, stderr %q", run.stdout, run.stderr)
	}
	js := arcalis(t, "run", "--json", "--record", "5", defaultSet)
	if rs := results(t, js.stdout); len(rs) != 1 || rs[0].Record != 5 || !rs[0].Match {
		t.Errorf("run --json: stdout %q", js.stdout)
	}
	if !strings.Contains(js.stderr, "PASS") {
		t.Errorf("run --json: no summary on stderr: %q", js.stderr)
	}
	// A failure: its lines, with waveform and replay, then FAIL, on stdout.
	fail := arcalis(t, "merge", failingLines(t, t.TempDir()))
	for _, want := range []string{"MISMATCH x.vec record 1 (s): RTL PARSE_ERROR, reference ok\n",
		"    status result PARSE_ERROR, reference OK\n",
		"    waveform: waves/x-r1-v1-RUN.fst\n",
		"    replay:   arcalis run --record 1 --offset 1 --mem-latency 4 --seed 2 --wave waves x.vec\n",
		"FAIL 1 of 3 vectors disagree\n"} {
		if !strings.Contains(fail.stdout, want) {
			t.Errorf("merge of a failure: stdout does not contain %q:\n%s", want, fail.stdout)
		}
	}
	if fail.stderr != "arcalis: 1 of 3 vectors: RTL and reference disagree\n" {
		t.Errorf("merge of a failure: stderr %q", fail.stderr)
	}
}

// openPTY opens a pseudo-terminal and returns its two ends.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening a pseudo-terminal: %v", err)
	}
	var n uint32
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatal(e)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatal(e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, s
}

// onTerminal runs the binary with one of its streams on a terminal and the
// other on a pipe, and returns what each received.
func onTerminal(t *testing.T, stream string, env []string, args ...string) (tty, pipe string) {
	t.Helper()
	m, s := openPTY(t)
	defer m.Close()
	cmd := exec.Command(arcalisBin(t), args...)
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "NO_COLOR=") {
			cmd.Env = append(cmd.Env, e)
		}
	}
	cmd.Env = append(cmd.Env, append(env, "ARCALIS_MODEL="+model(t))...)
	var other bytes.Buffer
	if stream == "stdout" {
		cmd.Stdout, cmd.Stderr = s, &other
	} else {
		cmd.Stdout, cmd.Stderr = &other, s
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	got := make(chan []byte)
	go func() { b, _ := io.ReadAll(m); got <- b }() // ends with EIO once the child exits
	cmd.Wait()
	return string(<-got), other.String()
}

// Colour only on a terminal, decided per stream, never with NO_COLOR.
func TestColour(t *testing.T) {
	const esc = "\x1b["
	args := []string{"run", "--record", "2", defaultSet}
	tty, pipe := onTerminal(t, "stdout", nil, args...)
	if !strings.Contains(tty, esc+"32") || !strings.Contains(tty, "PASS") || strings.Contains(pipe, esc) {
		t.Errorf("stdout a terminal: stdout %q, stderr %q; want colour on stdout only", tty, pipe)
	}
	// --json puts the summary on stderr: colour there, none in the JSON.
	tty, pipe = onTerminal(t, "stderr", nil, append([]string{"run", "--json"}, args[1:]...)...)
	if !strings.Contains(tty, esc+"32") || strings.Contains(pipe, esc) {
		t.Errorf("stderr a terminal: stderr %q, stdout %q; want colour on stderr only", tty, pipe)
	}
	tty, pipe = onTerminal(t, "stderr", nil, args...)
	if strings.Contains(pipe, esc) || !strings.Contains(pipe, "PASS") || strings.Contains(tty, "PASS") {
		t.Errorf("stderr a terminal, stdout a pipe: stdout %q, stderr %q; want PASS uncoloured on stdout", pipe, tty)
	}
	for _, v := range []string{"1", "0", "false"} {
		tty, _ = onTerminal(t, "stdout", []string{"NO_COLOR=" + v}, args...)
		if strings.Contains(tty, esc) || !strings.Contains(tty, "PASS") {
			t.Errorf("NO_COLOR=%s: colour on a terminal: %q", v, tty)
		}
	}
	// Never on a pipe or file, whatever the other stream is.
	if got := arcalis(t, "vectors", "verify", defaultSet); strings.Contains(got.stdout+got.stderr, esc) {
		t.Errorf("colour on a pipe: %q", got.stdout)
	}
}

// --model and ARCALIS_MODEL name the model, the flag first; a missing one
// is an error naming the path tried, with `make verilate` only for the
// default path.
func TestModelPath(t *testing.T) {
	dir := t.TempDir()
	copyLib := filepath.Join(dir, "copy.so")
	if err := os.Symlink(model(t), copyLib); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.so")
	vec := []string{"--record", "1", "--wave", dir, defaultSet}
	for _, tc := range []struct {
		name       string
		env        []string
		flags      []string
		code       int
		want, dont []string
	}{
		{"flag", nil, []string{"--model", copyLib}, 0, []string{"PASS"}, nil},
		{"environment", []string{"ARCALIS_MODEL=" + copyLib}, nil, 0, []string{"PASS"}, nil},
		{"flag over environment, in workers too", []string{"ARCALIS_MODEL=" + missing}, []string{"--model", copyLib, "--jobs", "2"}, 0, []string{"PASS"}, nil},
		{"flag missing", []string{"ARCALIS_MODEL=" + copyLib}, []string{"--model", missing}, 2,
			[]string{"run: Verilated model " + missing + " (from --model) not found"}, []string{"make verilate"}},
		{"environment missing", []string{"ARCALIS_MODEL=" + missing}, nil, 2,
			[]string{"run: Verilated model " + missing + " (from ARCALIS_MODEL) not found"}, []string{"make verilate"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := arcalisIn(t, "", tc.env, append(append([]string{"run"}, tc.flags...), vec...)...)
			out := got.stdout + got.stderr
			if got.code != tc.code {
				t.Errorf("exit status %d, want %d: %s", got.code, tc.code, out)
			}
			checkOutput(t, out, tc.want, tc.dont)
		})
	}
	// report yosys loads the model too: checked before any synthesis.
	for _, tc := range []struct {
		env, flags []string
		want       string
	}{
		{nil, []string{"--model", missing}, "report yosys: Verilated model " + missing + " (from --model) not found"},
		{[]string{"ARCALIS_MODEL=" + missing}, nil, "report yosys: Verilated model " + missing + " (from ARCALIS_MODEL) not found"},
	} {
		args := append(append([]string{"report", "yosys", "--work", dir, "--out", dir}, tc.flags...), "../../rtl/arcalis_pkg.sv")
		if got := arcalisIn(t, "", tc.env, args...); got.code != 2 || !strings.Contains(got.stderr, tc.want) {
			t.Errorf("report yosys %v: exit status %d, stderr %q, want %q", tc.flags, got.code, got.stderr, tc.want)
		}
	}
	// The default path, from a directory outside any checkout.
	abs, _ := filepath.Abs(defaultSet)
	got := arcalisIn(t, dir, nil, "run", abs)
	want := "run: Verilated model " + filepath.Join(dir, tb.ModelLib) + " not found: build it with `make verilate`"
	if got.code != 2 || !strings.Contains(got.stderr, want) {
		t.Errorf("default model missing: exit status %d, stderr %q, want %q", got.code, got.stderr, want)
	}
}

// The workers' fault hooks exist in the regress package's test binary
// only: nothing in arcalis reads a fault from the environment.
func TestNoTestHooksInBinary(t *testing.T) {
	b, err := os.ReadFile(arcalisBin(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"ARCALIS_WORKER_FAULT", "REGRESS_TEST_FAULT", "REGRESS_TEST_WORKER", "crashing on vector"} {
		if bytes.Contains(b, []byte(s)) {
			t.Errorf("the arcalis binary contains %q", s)
		}
	}
}
