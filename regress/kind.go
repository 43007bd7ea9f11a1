package regress

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"arcalis/vectors"
)

// One supervisor runs every kind of run: the Memcached engine's (Run) and
// another model's (RunKind: arcalis run --service), in this process or in
// worker processes, with the same ordering, sharding and crash handling.

// Engine checks vectors on a model of its own. VPI holds one model per
// process, so a process opens one engine: the coordinator's with one job,
// else each worker's. Check and Close run on the goroutine that opened it.
type Engine interface {
	// Check runs v and describes it. A disagreement is a result; an error
	// is the model's or the reference's, and the run cannot go on.
	Check(v Vector) (Checked, error)
	Close()
}

// Checked is one vector's outcome.
type Checked struct {
	Result Result
	Line   []byte // its --json line; nil: Result.MarshalLine()
	Cycles uint64 // simulated for it
}

// Kind is a kind of run: how a process opens the engine that checks its
// vectors, and how the coordinator reports a vector lost with its worker.
type Kind struct {
	// Name picks the kind in a worker: Serve opens the engine of the kind
	// its setup line names.
	Name string
	// Open opens an engine from the run's setup (Setup as JSON): in this
	// process with one job, else in each worker.
	Open func(setup []byte) (Engine, error)

	// The coordinator's only.

	// Setup is what Open needs: the options and the run's stamps.
	Setup any
	// Lost describes v, whose worker crashed (status "CRASH") or gave no
	// result in time ("TIMEOUT"); diffs say what happened to the worker.
	Lost func(v Vector, status string, diffs []string) (Checked, error)
}

// Pool says how a run uses worker processes.
type Pool struct {
	Jobs    int           // worker processes; 0 or 1: run in this process
	Timeout time.Duration // with workers: longest wait for one vector's result
	Full    bool          // decode every worker result in full (JUnit needs all fields)
	// WorkerCmd starts a worker: a program that calls Serve on its standard
	// streams. Default: this executable with the argument "worker".
	WorkerCmd []string
}

// RunKind runs the plan's vectors with k's engine and calls emit with each
// result in input order, with its --json line (nil: the result's own,
// MarshalLine). Unless pool.Full, a passing vector's result from a worker
// holds only its index, status and match; its line is complete. An
// engine's error stops the run after the results before its vector, as in
// one process: the error names the vector's file and record.
func RunKind(ctx context.Context, p *Plan, k Kind, pool Pool, emit func(r Result, line []byte)) (Stats, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	setup, err := json.Marshal(k.Setup)
	if err != nil {
		return Stats{}, fmt.Errorf("the run's setup: %w", err)
	}
	sel := p.Vectors
	results := make([]Result, len(sel))
	lines := make([][]byte, len(sel))
	fails := make([]error, len(sel))
	done := make([]bool, len(sel))
	printed := 0
	var cycles uint64
	// put takes the outcome of sel[pos] (fail: its engine's error) and
	// emits every result now complete in input order, up to a failed one.
	put := func(pos int, ck Checked, fail error) {
		results[pos], lines[pos], fails[pos], done[pos] = ck.Result, ck.Line, fail, true
		cycles += ck.Cycles
		for printed < len(sel) && done[printed] && fails[printed] == nil {
			if emit != nil {
				emit(results[printed], lines[printed])
			}
			lines[printed] = nil
			printed++
		}
	}
	if pool.Jobs <= 1 {
		err = runHere(sel, k, setup, put)
	} else {
		if pool.Timeout <= 0 {
			pool.Timeout = 2 * time.Minute
		}
		err = runWorkers(ctx, sel, k, setup, pool, put)
	}
	switch {
	case err != nil:
		return Stats{}, err
	case printed < len(sel) && fails[printed] != nil:
		return Stats{}, fails[printed]
	case printed < len(sel):
		return Stats{}, fmt.Errorf("%s record %d: no result", sel[printed].File, sel[printed].Rec.Index)
	}
	return Stats{Results: results, Cycles: cycles}, nil
}

// runHere runs the vectors on an engine in this process, up to the first
// that fails.
func runHere(sel []Vector, k Kind, setup []byte, put func(int, Checked, error)) error {
	e, err := k.Open(setup)
	if err != nil {
		return err
	}
	defer e.Close()
	for pos, v := range sel {
		ck, err := check(e, v)
		if err != nil {
			put(pos, Checked{}, vectorError(v, err.Error()))
			return nil
		}
		put(pos, ck, nil)
	}
	return nil
}

// check runs v on e, timed for JUnit.
func check(e Engine, v Vector) (Checked, error) {
	start := time.Now()
	ck, err := e.Check(v)
	ck.Result.seconds = time.Since(start).Seconds()
	return ck, err
}

// vectorError is an engine's error on v, as the run reports it wherever
// the engine ran.
func vectorError(v Vector, msg string) error {
	return fmt.Errorf("%s record %d: %s", v.File, v.Rec.Index, msg)
}

// ParseResult reads the fields of Result from a --json line of any kind
// (another engine's line has fields of its own, which it ignores), as the
// coordinator reads a worker's line.
func ParseResult(line []byte) (Result, error) {
	var r Result
	err := json.Unmarshal(line, &r)
	return r, err
}

// job is v's frame for a worker; vector is the worker's v again.
func (v Vector) job() workerJob {
	return workerJob{v.Index, v.Rec.Index, v.File, v.Rec.Source, v.Rec.Msg, v.Reply, v.ReplyMsg}
}

func (j workerJob) vector() Vector {
	return Vector{Index: j.Index, File: j.File, Rec: vectors.Record{Index: j.Record, Source: j.Source, Msg: j.Msg},
		Reply: j.Reply, ReplyMsg: j.ReplyMsg}
}
