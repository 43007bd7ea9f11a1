package regress

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"
)

// testFault, set only by this package's tests, runs before a worker
// simulates each job: it crashes or hangs the worker to test the supervisor.
var testFault func(index int, out *bufio.Writer)

// workerHead is a worker's first input line: the kind of run and its
// setup.
type workerHead struct {
	Kind  string          `json:"kind"`
	Setup json.RawMessage `json:"setup"`
}

// Serve is a worker: it reads the run's kind and setup and then job frames
// from in, runs each vector and writes its result line to out, until in
// ends or the engine fails. It serves the Memcached engine's runs and those
// of kinds. The coordinator (RunKind with Jobs above 1) starts it and
// writes its input.
func Serve(in io.Reader, out io.Writer, kinds ...Kind) error {
	r := bufio.NewReaderSize(in, 1<<20)
	line, err := r.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("worker: reading the run's setup: %w", err)
	}
	var head workerHead
	if err := json.Unmarshal(line, &head); err != nil {
		return fmt.Errorf("worker: the run's setup: %w", err)
	}
	kinds = append([]Kind{memcachedKind}, kinds...)
	i := slices.IndexFunc(kinds, func(k Kind) bool { return k.Name == head.Kind })
	if i < 0 {
		return fmt.Errorf("worker: the run's setup: kind %q: this worker serves %s", head.Kind, kindNames(kinds))
	}
	e, err := kinds[i].Open(head.Setup)
	if err != nil {
		return err
	}
	defer e.Close()
	// Results go out every workerWindow/4 and whenever no job is waiting:
	// the coordinator tops the queue up as it sees them, before it runs dry.
	w := bufio.NewWriterSize(out, 1<<16)
	if _, err := w.WriteString("READY\n"); err != nil {
		return err
	}
	for pending := 0; ; pending++ {
		if pending == workerWindow/4 || r.Buffered() == 0 {
			if err := w.Flush(); err != nil {
				return err
			}
			pending = 0
		}
		j, err := readJob(r)
		if err == io.EOF {
			return w.Flush()
		}
		if err != nil {
			return err
		}
		if testFault != nil {
			testFault(j.Index, w)
		}
		v := j.vector()
		ck, err := check(e, v)
		if err != nil {
			fmt.Fprintf(w, "E %d %q\n", j.Index, err.Error())
			return errors.Join(fmt.Errorf("worker: %w", vectorError(v, err.Error())), w.Flush())
		}
		line := ck.Line
		if line == nil {
			line = ck.Result.MarshalLine()
		}
		fmt.Fprintf(w, "R %d %d %d %g ", j.Index, b2i(ck.Result.Match), ck.Cycles, ck.Result.seconds)
		w.Write(line)
		if err := w.WriteByte('\n'); err != nil {
			return err
		}
	}
}

func kindNames(kinds []Kind) string {
	var names []string
	for _, k := range kinds {
		names = append(names, strconv.Quote(k.Name))
	}
	return strings.Join(names, ", ")
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// worker is a running worker process (Options.WorkerCmd, serving with Serve).
type worker struct {
	cmd    *exec.Cmd
	in     io.WriteCloser // its stdin, written by feedJobs only
	feed   chan []byte    // what send queued for feedJobs
	closed sync.Once      // closes feed
	pipe   *os.File       // its stdout
	out    *bufio.Reader  // reads pipe
	stderr *tailBuffer
}

// startWorker starts a worker, sends it the run's setup and waits until its
// model is open.
func startWorker(ctx context.Context, head []byte, argv []string) (*worker, error) {
	var err error
	w := &worker{cmd: exec.Command(argv[0], argv[1:]...), stderr: &tailBuffer{max: 4096}}
	w.cmd.Stderr = w.stderr
	if w.in, err = w.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	// A pipe of our own: its read end takes deadlines (the per-vector timeout).
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	w.cmd.Stdout = pw
	err = w.cmd.Start()
	pw.Close()
	if err != nil {
		pr.Close()
		return nil, fmt.Errorf("starting a worker (%s): %w", strings.Join(argv, " "), err)
	}
	w.pipe, w.out = pr, bufio.NewReaderSize(pr, 1<<20)
	w.feed = make(chan []byte, workerWindow+1) // the setup, then batches
	w.feed <- head
	go w.feedJobs()
	stop := context.AfterFunc(ctx, func() { pr.SetReadDeadline(time.Now()) })
	defer stop()
	pr.SetReadDeadline(time.Now().Add(time.Minute))
	line, err := w.out.ReadBytes('\n')
	switch {
	case err == nil && string(line) == "READY\n":
		return w, nil
	case ctx.Err() != nil:
		w.kill()
		return nil, ctx.Err()
	case errors.Is(err, os.ErrDeadlineExceeded):
		w.kill()
		return nil, fmt.Errorf("a worker did not open its model within a minute: %s", w.stderr.last())
	}
	w.kill()
	return nil, fmt.Errorf("a worker failed to start: %s", w.stderr.last())
}

// finish closes the worker's input so that it exits once it has run what
// it was sent, and kills it if it has not within a few seconds.
func (w *worker) finish() {
	w.endFeed()
	t := time.AfterFunc(5*time.Second, func() { w.cmd.Process.Kill() })
	w.cmd.Wait()
	t.Stop()
	w.pipe.Close()
}

// kill ends the worker and waits for it.
func (w *worker) kill() {
	w.cmd.Process.Kill()
	w.endFeed()
	w.cmd.Wait()
	w.pipe.Close()
}

// send queues jobs for the worker's stdin. It does not wait for the worker
// to read them: a worker may stop reading, because it hangs or because
// its results wait for its supervisor, which must then be reading them.
func (w *worker) send(jobs []workerJob) {
	n := 0
	for _, j := range jobs {
		n += 4 + frameLen(j)
	}
	b := make([]byte, 0, n)
	for _, j := range jobs {
		b = appendJob(b, j)
	}
	w.feed <- b // never full: a worker has at most workerWindow jobs queued
}

// feedJobs writes what send queues to the worker's stdin, which it closes
// once the feed ends. Once a write fails (the worker is gone) it drops the
// rest.
func (w *worker) feedJobs() {
	defer w.in.Close()
	for b := range w.feed {
		if _, err := w.in.Write(b); err != nil {
			for range w.feed {
			}
		}
	}
}

func (w *worker) endFeed() { w.closed.Do(func() { close(w.feed) }) }

// next waits up to timeout for the worker's next result. A worker that dies
// or times out is killed; the error says what happened to it.
func (w *worker) next(ctx context.Context, timeout time.Duration, full bool) (workerReply, error) {
	stop := context.AfterFunc(ctx, func() { w.pipe.SetReadDeadline(time.Now()) })
	defer stop()
	w.pipe.SetReadDeadline(time.Now().Add(timeout))
	line, err := w.out.ReadBytes('\n')
	switch {
	case ctx.Err() != nil:
		w.kill()
		return workerReply{}, ctx.Err()
	case errors.Is(err, os.ErrDeadlineExceeded):
		w.kill()
		return workerReply{}, fmt.Errorf("TIMEOUT: no result within %s; worker killed", timeout)
	case err != nil:
		return w.died()
	}
	rep, err := parseReply(line, full)
	if err != nil {
		w.kill()
		return rep, fmt.Errorf("CRASH: worker sent %.120q instead of a result (%v)", line, err)
	}
	return rep, nil
}

func (w *worker) died() (workerReply, error) {
	w.endFeed()
	err := w.cmd.Wait()
	w.pipe.Close()
	if err == nil {
		err = errors.New("exit status 0")
	}
	return workerReply{}, fmt.Errorf("CRASH: worker process ended (%v)", err)
}

// workerWindow is how many vectors a worker has queued at once, so that
// it never waits for the next one and the pipes carry them in large
// writes: a small request simulates in about as long as a pipe's write and
// wake-up take.
const workerWindow = 256

// dispenser hands out the positions of the jobs still to run, first those
// handed back by a worker that died.
type dispenser struct {
	mu    sync.Mutex
	next  int
	n     int
	retry []int
}

func (d *dispenser) take() (int, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.retry) > 0 {
		pos := d.retry[0]
		d.retry = d.retry[1:]
		return pos, true
	}
	if d.next < d.n {
		d.next++
		return d.next - 1, true
	}
	return 0, false
}

func (d *dispenser) giveBack(pos []int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, p := range pos {
		if p < d.n {
			d.retry = append(d.retry, p)
		}
	}
}

// stopAt hands out no position from pos on: the run stops there.
func (d *dispenser) stopAt(pos int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.n = min(d.n, pos)
	d.retry = slices.DeleteFunc(d.retry, func(p int) bool { return p >= pos })
}

// runWorkers runs the jobs in pool.Jobs worker processes supervised by an
// errgroup. Each worker has up to workerWindow vectors queued and answers
// them in order. When a worker crashes or gives no result for
// pool.Timeout, the vector it was running is reported as CRASH or TIMEOUT
// (k.Lost), the ones queued behind it go back to the others, and a new
// worker takes over; a worker that cannot start at all stops the run. An
// engine's error stops the run at its vector: the workers finish those
// before it, so that the results put are those of one process.
func runWorkers(ctx context.Context, sel []Vector, k Kind, setup []byte, pool Pool, put func(int, Checked, error)) error {
	head, err := json.Marshal(workerHead{Kind: k.Name, Setup: setup})
	if err != nil {
		return err
	}
	head = append(head, '\n')
	argv := pool.WorkerCmd
	if len(argv) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("finding the arcalis executable for the workers: %w", err)
		}
		argv = []string{exe, "worker"}
	}
	var mu sync.Mutex // put's state
	report := func(pos int, ck Checked, fail error) {
		mu.Lock()
		defer mu.Unlock()
		put(pos, ck, fail)
	}
	jobs := &dispenser{n: len(sel)}
	g, ctx := errgroup.WithContext(ctx)
	for range min(pool.Jobs, len(sel)) {
		g.Go(func() error {
			var w *worker
			var queued []int // positions sent to w, oldest first
			defer func() {
				if w != nil {
					w.finish()
				}
			}()
			for {
				// Top the worker up to workerWindow once half its queue is
				// done, in one write: topping it up a job at a time would
				// cost a write and a wake-up on each side for every vector.
				var batch []workerJob
				for low := len(queued) <= workerWindow/2; low && len(queued) < workerWindow; {
					pos, ok := jobs.take()
					if !ok {
						break
					}
					batch = append(batch, sel[pos].job())
					queued = append(queued, pos)
				}
				if len(batch) > 0 {
					if w == nil {
						var err error
						if w, err = startWorker(ctx, head, argv); err != nil {
							return err
						}
					}
					w.send(batch) // if the worker died, next reports it
				}
				if len(queued) == 0 {
					return nil
				}
				rep, err := w.next(ctx, pool.Timeout, pool.Full)
				if ctx.Err() != nil {
					return ctx.Err()
				}
				pos := queued[0]
				if err != nil {
					ck, err := lostVector(k, sel[pos], err, w.stderr.last())
					if err != nil {
						return err
					}
					report(pos, ck, nil)
					jobs.giveBack(queued[1:])
					w, queued = nil, nil // killed; a new worker takes the rest
					continue
				}
				if rep.Result.Index != sel[pos].Index {
					return fmt.Errorf("a worker answered vector %d for vector %d", rep.Result.Index, sel[pos].Index)
				}
				if rep.Fail != "" {
					// The worker has ended; nothing after pos is needed.
					jobs.stopAt(pos)
					report(pos, Checked{}, vectorError(sel[pos], rep.Fail))
					w.kill()
					w, queued = nil, nil
					continue
				}
				rep.Result.seconds = rep.Seconds
				report(pos, Checked{Result: *rep.Result, Line: rep.Line, Cycles: rep.Cycles}, nil)
				queued = queued[1:]
			}
		})
	}
	return g.Wait()
}

// lostVector is the outcome of a vector whose worker crashed or hung, as
// k describes it; the diffs say what happened to the worker.
func lostVector(k Kind, v Vector, err error, stderr string) (Checked, error) {
	status, _, _ := strings.Cut(err.Error(), ":")
	if status != "CRASH" && status != "TIMEOUT" {
		status = "CRASH"
	}
	diffs := []string{err.Error()}
	if stderr != "" {
		diffs = append(diffs, "worker stderr: "+stderr)
	}
	return k.Lost(v, status, diffs)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

// last is the buffer's last few lines on one line.
func (t *tailBuffer) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, " | ")
}
