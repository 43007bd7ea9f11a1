package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"arcalis/bench/workload"
	"arcalis/golden"
	"arcalis/tb"
	"arcalis/vectors"
)

// job is one request of a harness workload.
type job struct {
	Msg    []byte
	Offset int
}

// harnessWorkload is a request list the Go harness and the native testbench
// both run.
type harnessWorkload struct {
	Key     string // for -child: "default" or "large"
	Name    string
	What    string
	Jobs    []job
	Latency int
}

// defaultVectors is vectors/default.vec placed as `arcalis run` places it
// (start offset = index mod 64, memory latency 4).
func defaultVectors(path string) (harnessWorkload, error) {
	recs, err := vectors.ReadFile(path)
	if err != nil {
		return harnessWorkload{}, err
	}
	w := harnessWorkload{Key: "default", Name: "default vectors", What: fmt.Sprintf("%s, %d records", path, len(recs)), Latency: 4}
	for i, r := range recs {
		w.Jobs = append(w.Jobs, job{Msg: r.Msg, Offset: i % 64})
	}
	return w, nil
}

// largeValues is n Set CALLs with values drawn uniformly from 16..64 KiB.
func largeValues(n int) (harnessWorkload, error) {
	r := rand.New(rand.NewPCG(5, 5))
	w := harnessWorkload{Key: "large", Name: "large values", What: fmt.Sprintf("%d Sets, values 16..64 KiB", n), Latency: 4}
	for i := 0; i < n; i++ {
		size := workload.MinSetSize + 16*1024 + r.IntN(48*1024+1)
		msg, err := workload.SetOfSize(size, int32(i+1))
		if err != nil {
			return w, err
		}
		w.Jobs = append(w.Jobs, job{Msg: msg, Offset: i % 64})
	}
	return w, nil
}

// writeStream writes jobs in the format bench/native/tb.cpp reads: for each
// request, the App.Resp image tb.DefaultApp answers a CALL with (from the
// App.Recv image the reference writes, which the RTL's equals) and the
// CMD_SEND_APP_RESP payload for it (tb.AppRespPayload), so that the native
// testbench replies as tb.Accel.Receive does without a copy of either.
func writeStream(path string, jobs []job) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	w.WriteString("ARCSTRM2")
	le := binary.LittleEndian
	w.Write(le.AppendUint32(nil, uint32(len(jobs))))
	for _, j := range jobs {
		capLines := tb.TightCapLines(len(j.Msg)) // as tb.Receive offers by default
		img := make([]byte, capLines*tb.LineSize)
		var resp []byte
		var payload uint64
		if r := golden.Deserialize(j.Msg, img); r.Code == golden.CodeOK && r.MsgType == golden.MsgCall {
			resp = tb.DefaultApp(img)
			payload = tb.AppRespPayload(len(resp), tb.AppRespCapMax, false)
		}
		var h [16]byte
		le.PutUint32(h[0:], uint32(len(j.Msg)))
		le.PutUint32(h[4:], uint32(j.Offset))
		le.PutUint32(h[8:], uint32(capLines))
		le.PutUint32(h[12:], uint32(len(resp)))
		w.Write(h[:])
		w.Write(j.Msg)
		w.Write(le.AppendUint64(nil, payload))
		w.Write(resp)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}

// throughput is one timed pass over a workload.
type throughput struct {
	Requests int
	Cycles   uint64
	Seconds  float64
}

func (t throughput) RequestsPerSec() float64 { return float64(t.Requests) / t.Seconds }
func (t throughput) CyclesPerSec() float64   { return float64(t.Cycles) / t.Seconds }
func (t throughput) NsPerCycle() float64     { return t.Seconds * 1e9 / float64(t.Cycles) }

// perRequest is what each request did, for the cycle-for-cycle comparison.
type perRequest struct {
	Cycles uint64
	Status uint64
}

// runGo passes the workload through the Go harness passes times. With
// score, each request goes through RunVector (simulation, scoreboard,
// reference); without, through Receive alone (what the native testbench
// does). The per-request results are the first pass's.
func runGo(a *tb.Accel, w harnessWorkload, score bool, passes int) (throughput, []perRequest, error) {
	if err := a.Mem.SetConfig(tb.MemConfig{Latency: w.Latency, Seed: 1}); err != nil {
		return throughput{}, nil, err
	}
	per := make([]perRequest, len(w.Jobs))
	c0 := a.Cycle()
	t0 := time.Now()
	for pass := 0; pass < passes; pass++ {
		if err := runPass(a, w, score, per, pass == 0); err != nil {
			return throughput{}, nil, err
		}
	}
	t := throughput{Requests: passes * len(w.Jobs), Seconds: time.Since(t0).Seconds(), Cycles: a.Cycle() - c0}
	return t, per, nil
}

func runPass(a *tb.Accel, w harnessWorkload, score bool, per []perRequest, record bool) error {
	for i, j := range w.Jobs {
		if score {
			r := a.RunVector(i, "bench", j.Msg, tb.RunOptions{Offset: j.Offset})
			if !r.OK() {
				return fmt.Errorf("%s: request %d: RTL and reference disagree: %v %v", w.Name, i, r.Err, r.Verdict.Diffs)
			}
			if record {
				per[i] = perRequest{r.Outcome.Cycles, uint64(r.Outcome.Status)}
			}
			continue
		}
		o, err := a.Receive(tb.Request{Msg: j.Msg, Offset: j.Offset})
		if err != nil {
			return fmt.Errorf("%s: request %d: %w", w.Name, i, err)
		}
		if record {
			per[i] = perRequest{o.Cycles, uint64(o.Status)}
		}
	}
	return nil
}

// childResult is what a -child process prints: one timed run of the Go
// harness.
type childResult struct {
	Requests int
	Cycles   uint64
	Seconds  float64
	Per      []perRequest
}

// runChild runs the workload through the Go harness passes times in a new
// process of exe (a copy of this program, -child), after one untimed pass
// there, with the thread that runs it on CPU cpu (-1: wherever the kernel
// puts it).
func runChild(exe string, o options, w harnessWorkload, score bool, passes, cpu int) (throughput, []perRequest, error) {
	cmd := exec.Command(exe, "-child", w.Key, "-cpu", strconv.Itoa(cpu), "-latency", strconv.Itoa(w.Latency), "-passes", strconv.Itoa(passes), "-score="+strconv.FormatBool(score),
		"-model", o.model, "-vectors", o.vectors, "-large-requests", strconv.Itoa(o.largeN))
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return throughput{}, nil, fmt.Errorf("%s -child %s: %w: %s", exe, w.Key, err, ee.Stderr)
		}
		return throughput{}, nil, fmt.Errorf("%s -child %s: %w", exe, w.Key, err)
	}
	var r childResult
	if err := json.Unmarshal(out, &r); err != nil {
		return throughput{}, nil, fmt.Errorf("-child %s: output %.200q: %w", w.Key, out, err)
	}
	return throughput{Requests: r.Requests, Cycles: r.Cycles, Seconds: r.Seconds}, r.Per, nil
}

// childMain is the -child process: the workload o.child through a model of
// its own, one pass to warm up, then passes timed; the result as JSON on
// stdout.
func childMain(o options, passes int, score bool) error {
	if o.cpu >= 0 {
		if err := pinThread(o.cpu); err != nil {
			return err
		}
	}
	var w harnessWorkload
	var err error
	switch o.child {
	case "default":
		w, err = defaultVectors(o.vectors)
	case "large":
		w, err = largeValues(o.largeN)
	default:
		err = fmt.Errorf("-child %q: want default or large", o.child)
	}
	if err != nil {
		return err
	}
	w.Latency = o.latency
	a, err := tb.OpenWindowed(o.model, tb.MemConfig{})
	if err != nil {
		return err
	}
	defer a.Close()
	if _, _, err := runGo(a, w, score, 1); err != nil {
		return err
	}
	t, per, err := runGo(a, w, score, passes)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(childResult{t.Requests, t.Cycles, t.Seconds, per})
}

// runNative runs the native testbench over the stream file passes times,
// on CPU cpu (-1: wherever the kernel puts it).
func runNative(bin, stream string, latency, passes, cpu int) (throughput, []perRequest, error) {
	cyc := stream + ".cycles"
	args := []string{bin, stream, strconv.Itoa(latency), cyc, strconv.Itoa(passes)}
	if cpu >= 0 {
		args = append([]string{"taskset", "-c", strconv.Itoa(cpu)}, args...) // util-linux
	}
	out, err := exec.Command(args[0], args[1:]...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return throughput{}, nil, fmt.Errorf("%s: %w: %s", bin, err, ee.Stderr)
		}
		return throughput{}, nil, fmt.Errorf("%s: %w", bin, err)
	}
	var res struct {
		Requests   int
		Cycles     uint64
		Seconds    float64
		Violations int
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return throughput{}, nil, fmt.Errorf("%s: output %q: %w", bin, out, err)
	}
	if res.Violations != 0 {
		return throughput{}, nil, fmt.Errorf("%s: %d memory violations", bin, res.Violations)
	}
	b, err := os.ReadFile(cyc)
	if err != nil {
		return throughput{}, nil, err
	}
	var per []perRequest
	for n, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var p perRequest
		if _, err := fmt.Sscan(line, &p.Cycles, &p.Status); err != nil {
			return throughput{}, nil, fmt.Errorf("%s line %d: %w", cyc, n+1, err)
		}
		per = append(per, p)
	}
	return throughput{Requests: res.Requests, Cycles: res.Cycles, Seconds: res.Seconds}, per, nil
}

// harnessResult is the side-by-side comparison on one workload.
type harnessResult struct {
	Workload             harnessWorkload
	Full, Sim, Native    []throughput // one per repetition
	NativeAgain          []throughput // a second run of each repetition's native copy
	CPUs                 []int        // each repetition's CPU (-1: none chosen)
	MedFull, MedSim, Nat throughput   // medians (by seconds)
	SameCycles           bool         // every request took the same cycles with the same status
	Requests, Passes     int
}

// cpuRatio is how a runner did against the native testbench on one CPU.
type cpuRatio struct {
	CPU    int     // -1: unpinned
	Ratio  float64 // median over the CPU's repetitions of native time / the runner's
	Native throughput
	Reps   int
}

// byCPU splits runs (one per repetition, like h.Native) by the CPU their
// repetition ran on, in ascending order.
func (h harnessResult) byCPU(runs []throughput) []cpuRatio {
	var out []cpuRatio
	for _, cpu := range slices.Compact(slices.Sorted(slices.Values(h.CPUs))) {
		var nat []throughput
		var ratios []float64
		for i, c := range h.CPUs {
			if c == cpu {
				nat = append(nat, h.Native[i])
				ratios = append(ratios, h.Native[i].Seconds/runs[i].Seconds)
			}
		}
		out = append(out, cpuRatio{cpu, medianOf(ratios), median(nat), len(nat)})
	}
	return out
}

func median(ts []throughput) throughput {
	s := append([]throughput(nil), ts...)
	sort.Slice(s, func(i, j int) bool { return s[i].Seconds < s[j].Seconds })
	return s[len(s)/2]
}

// compareHarness runs the workload reps times in each of the four ways,
// interleaved, so that the machine's noise hits all four alike. Each run is
// a process of its own; each repetition runs from fresh copies of the
// native testbench, this program and the model library (freshCopies), with
// its one-thread runners on one CPU (cpuFor).
func compareHarness(native, dir string, o options, w harnessWorkload, reps int) (harnessResult, error) {
	res := harnessResult{Workload: w, Requests: len(w.Jobs), SameCycles: true}
	stream, err := writeWorkloadStream(dir, w)
	if err != nil {
		return res, err
	}
	if res.Passes, _, err = passesFor(native, stream, w.Latency); err != nil {
		return res, err
	}
	for rep := 0; rep < reps; rep++ {
		err := withCopies(dir, native, o.model, func(files []string) error {
			nat, full, sim, err := runRepetition(files, stream, o, w, cpuFor(rep), &res)
			if err == nil {
				res.Full, res.Sim, res.Native = append(res.Full, full), append(res.Sim, sim), append(res.Native, nat)
			}
			return err
		})
		if err != nil {
			return res, err
		}
	}
	res.MedFull, res.MedSim, res.Nat = median(res.Full), median(res.Sim), median(res.Native)
	return res, nil
}

// writeWorkloadStream writes w's requests into dir for the native
// testbench and returns the file's path.
func writeWorkloadStream(dir string, w harnessWorkload) (string, error) {
	stream := filepath.Join(dir, strings.ReplaceAll(w.Name, " ", "-")+".stream")
	return stream, writeStream(stream, w.Jobs)
}

// withCopies calls f with fresh copies (freshCopies) of the native
// testbench, this program and the model library, in that order, and
// removes them afterwards.
func withCopies(dir, native, model string, f func(files []string) error) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	copies := filepath.Join(dir, "copies")
	files, err := freshCopies(copies, native, exe, model)
	if err != nil {
		return errors.Join(err, os.RemoveAll(copies))
	}
	return errors.Join(f(files), os.RemoveAll(copies))
}

// runRepetition runs the three once, from files (freshCopies of the native
// testbench, this program and the model library), the simulation's thread
// on CPU cpu, and notes in res the CPU and whether they agreed request by
// request.
func runRepetition(files []string, stream string, o options, w harnessWorkload, cpu int, res *harnessResult) (nat, full, sim throughput, err error) {
	native, exe := files[0], files[1]
	o.model = files[2]
	res.CPUs = append(res.CPUs, cpu)
	full, perFull, err := runChild(exe, o, w, true, res.Passes, cpu)
	if err != nil {
		return
	}
	nat, perNat, err := runNative(native, stream, w.Latency, res.Passes, cpu)
	if err != nil {
		return
	}
	// The same copy once more: how far apart runs of one file are, against
	// how far apart the copies are.
	again, _, err := runNative(native, stream, w.Latency, res.Passes, cpu)
	if err != nil {
		return
	}
	res.NativeAgain = append(res.NativeAgain, again)
	sim, perSim, err := runChild(exe, o, w, false, res.Passes, cpu)
	if err != nil {
		return
	}
	for _, g := range []struct {
		t   throughput
		per []perRequest
	}{{full, perFull}, {sim, perSim}} {
		if g.t.Cycles != nat.Cycles || !slices.Equal(g.per, perNat) {
			res.SameCycles = false
		}
	}
	return
}

// passesFor is how many passes of the stream make a native run of about
// 150 ms, long against the machine's scheduling noise, from one pass (cal).
func passesFor(native, stream string, latency int) (passes int, cal throughput, err error) {
	cal, _, err = runNative(native, stream, latency, 1, -1)
	return max(1, int(0.15/max(cal.Seconds, 1e-6))), cal, err
}

// freshCopies copies each file into dir (created; file names must differ),
// executable, and returns the copies' paths. A new file gets new page-cache
// pages, wherever the kernel finds them.
func freshCopies(dir string, files ...string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		c := filepath.Join(dir, filepath.Base(f))
		if slices.Contains(out, c) {
			return nil, fmt.Errorf("copies of %s: two files named %s", strings.Join(files, ", "), filepath.Base(f))
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(c, b, 0o755); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// latencyPoint is RunVector against the native testbench on one workload
// at one memory latency.
type latencyPoint struct {
	Latency, Reps    int
	Native, Full     throughput // medians
	Ratio            float64    // median over repetitions of native time / Go time
	CyclesPerRequest float64
}

// compareLatencies runs the workload through the native testbench and
// RunVector at each memory latency, reps times, interleaved, each
// repetition from fresh copies as in compareHarness. A call into the shim
// runs at most latency+1 cycles while the engine issues memory requests, so
// the latency sets how often the harness's per-call costs recur.
func compareLatencies(native, dir string, o options, w harnessWorkload, lats []int, reps int) ([]latencyPoint, error) {
	stream, err := writeWorkloadStream(dir, w)
	if err != nil {
		return nil, err
	}
	pts := make([]latencyPoint, len(lats))
	passes := make([]int, len(lats))
	for i, lat := range lats {
		var cal throughput
		if passes[i], cal, err = passesFor(native, stream, lat); err != nil {
			return nil, err
		}
		pts[i] = latencyPoint{Latency: lat, Reps: reps, CyclesPerRequest: float64(cal.Cycles) / float64(cal.Requests)}
	}
	nats, fulls, ratios := make([][]throughput, len(lats)), make([][]throughput, len(lats)), make([][]float64, len(lats))
	for rep := 0; rep < reps; rep++ {
		err := withCopies(dir, native, o.model, func(files []string) error {
			lo := o
			lo.model = files[2]
			for i, lat := range lats {
				lw := w
				lw.Latency = lat
				full, _, err := runChild(files[1], lo, lw, true, passes[i], cpuFor(rep))
				if err != nil {
					return err
				}
				nat, _, err := runNative(files[0], stream, lat, passes[i], cpuFor(rep))
				if err != nil {
					return err
				}
				if full.Cycles != nat.Cycles {
					return fmt.Errorf("%s at latency %d: native ran %d cycles, RunVector %d", w.Name, lat, nat.Cycles, full.Cycles)
				}
				nats[i], fulls[i], ratios[i] = append(nats[i], nat), append(fulls[i], full), append(ratios[i], nat.Seconds/full.Seconds)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for i := range pts {
		pts[i].Native, pts[i].Full, pts[i].Ratio = median(nats[i]), median(fulls[i]), medianOf(ratios[i])
	}
	return pts, nil
}

// cpuMask is a sched_setaffinity / sched_getaffinity CPU set.
type cpuMask [1024 / 64]uint64

func (m *cpuMask) has(cpu int) bool { return m[cpu/64]&(1<<(cpu%64)) != 0 }

// affinity applies sched_setaffinity or sched_getaffinity (op) to the
// calling thread.
func affinity(op uintptr, m *cpuMask) error {
	if _, _, e := syscall.RawSyscall(op, 0, unsafe.Sizeof(*m), uintptr(unsafe.Pointer(m))); e != 0 {
		return e
	}
	return nil
}

// pinThread locks the calling goroutine to its OS thread and that thread
// to CPU cpu; the runtime's other threads stay where they were.
func pinThread(cpu int) error {
	if cpu < 0 || cpu >= 1024 {
		return fmt.Errorf("-cpu %d: want 0..1023", cpu)
	}
	runtime.LockOSThread()
	var m cpuMask
	m[cpu/64] = 1 << (cpu % 64)
	if err := affinity(syscall.SYS_SCHED_SETAFFINITY, &m); err != nil {
		return fmt.Errorf("putting the harness's thread on CPU %d: %w", cpu, err)
	}
	return nil
}

// benchCPUs are the first two CPUs this process may run on, or none.
var benchCPUs = sync.OnceValue(func() []int {
	var m cpuMask
	if affinity(syscall.SYS_SCHED_GETAFFINITY, &m) != nil {
		return nil
	}
	var cpus []int
	for c := 0; c < 1024 && len(cpus) < 2; c++ {
		if m.has(c) {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) < 2 {
		return nil
	}
	return cpus
})

// cpuFor is the CPU of a repetition: benchCPUs in turn, so that both sides
// of each repetition run on one CPU and the repetitions cover both (on this
// kind of virtual machine one CPU can run the same program much slower than
// the other for minutes); -1, no pinning, with one CPU.
func cpuFor(rep int) int {
	cpus := benchCPUs()
	if cpus == nil {
		return -1
	}
	return cpus[rep%2]
}

func medianOf(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
