package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"arcalis/golden"
	"arcalis/regress"
	"arcalis/tb"
)

// runCommand runs vector files through the Verilated RTL and the reference.
func runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run vector files through the simulated accelerator and the Go reference",
		ArgsUsage: "VECTORS...",
		Description: "Every record is placed in simulated memory, handed to the engine with\n" +
			"CMD_SEND_NET_BUF / CMD_SEND_NET_LEN, and its App.Recv image, status and reply\n" +
			"are compared byte for byte with the reference (golden). Each vector that\n" +
			"disagrees is printed on stdout with its differences, the waveform of its replay\n" +
			"and the command that replays it; then the PASS/FAIL summary (on stderr with\n" +
			"--json, whose lines alone are on stdout). Exit status: 0 if every vector\n" +
			"matches, 1 if any disagrees, 2 if the run could not be made.\n\n" +
			"--jobs N runs the vectors in N worker processes (one Verilated model each) and\n" +
			"prints the results in input order, identical to --jobs 1; a worker that crashes\n" +
			"or hangs is reported with its vector and replaced. --shard i/n runs every n-th\n" +
			"vector from the i-th (1 <= i <= n): `arcalis merge` combines the --json outputs\n" +
			"of the n shards into the unsharded result.\n\n" +
			"--service NAME runs the records through the generic recvFunction of that\n" +
			"service of idl/ (rtl/generic/recv_schema.sv, its model built with make\n" +
			"schema-model) and compares them with schemagold; --jobs, --shard and\n" +
			"--timeout apply to it as above, --mem-latency, --seed and --offset do not.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "mem-latency", Value: 4, Usage: "memory latency in `CYCLES`"},
			&cli.IntFlag{Name: "offset", Value: -1, DefaultText: "record index mod 64", Usage: "start offset of each message within its line (0..63)"},
			&cli.IntFlag{Name: "cap-lines", DefaultText: "just enough for each message's value", Usage: "App.Recv capacity in 64-byte `LINES` (5..65535)"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of the memory model's random choices"},
			&cli.StringFlag{Name: "wave", Value: "waves", Usage: "write an FST waveform of each failing vector into `DIR`, named FILE-rRECORD-vINDEX-RUNID.fst (\"\": none)", TakesFile: true},
			&cli.StringFlag{Name: "run-id", DefaultText: "UTC time and a random suffix", Usage: "name of this run in waveform file names"},
			modelFlag(),
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object per vector on stdout instead of the failures (the summary goes to stderr)"},
			&cli.IntFlag{Name: "record", Value: -1, DefaultText: "all", Usage: "run only record `N` of each file"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: 1, Usage: "run in `N` simulator processes (1: in this process)"},
			&cli.StringFlag{Name: "shard", Usage: "run only shard `i/n`: the vectors whose index mod n is i-1"},
			&cli.StringFlag{Name: "junit", Usage: "write JUnit XML results to `FILE`", TakesFile: true},
			&cli.StringFlag{Name: "service", Usage: "run the records through the generic recvFunction of service `NAME` of idl/ (as serve --service) instead of the Memcached engine"},
			&cli.DurationFlag{Name: "timeout", Value: 2 * time.Minute, Usage: "with --jobs above 1: a worker with no result for one vector for this long is killed and the vector reported as TIMEOUT"},
		},
		Action: runVectors,
	}
}

// runOptions reads and checks run's flags.
func runOptions(c *cli.Context) (regress.Options, error) {
	opt := regress.Options{
		RunOptions: tb.RunOptions{Offset: c.Int("offset"), CapLines: c.Int("cap-lines"), WaveDir: c.String("wave")},
		Latency:    c.Int("mem-latency"),
		Seed:       c.Int64("seed"),
		Record:     c.Int("record"),
		RunID:      c.String("run-id"),
	}
	switch {
	case opt.Offset < -1 || opt.Offset > 63:
		return opt, fmt.Errorf("run: --offset %d: want 0..63", opt.Offset)
	case opt.CapLines != 0 && (opt.CapLines < golden.MinCapacity/tb.LineSize || opt.CapLines > 0xFFFF):
		return opt, fmt.Errorf("run: --cap-lines %d: want %d..65535", opt.CapLines, golden.MinCapacity/tb.LineSize)
	case opt.Latency < 0 || opt.Latency > 1_000_000:
		return opt, fmt.Errorf("run: --mem-latency %d: want 0..1000000", opt.Latency)
	}
	var err error
	if opt.Pool, err = runPool(c); err != nil {
		return opt, err
	}
	if opt.Shard, opt.Shards, err = runShard(c); err != nil {
		return opt, err
	}
	if opt.Model, opt.ReplayModel, err = modelPath(c); err != nil {
		return opt, err
	}
	return opt, nil
}

// runPool reads and checks run's flags of its worker processes, the same
// with --service.
func runPool(c *cli.Context) (regress.Pool, error) {
	p := regress.Pool{Jobs: c.Int("jobs"), Timeout: c.Duration("timeout"), Full: c.String("junit") != ""}
	switch {
	case p.Jobs < 1 || p.Jobs > 1024:
		return p, fmt.Errorf("run: --jobs %d: want 1..1024", p.Jobs)
	case p.Timeout <= 0:
		return p, fmt.Errorf("run: --timeout %s: want more than 0", p.Timeout)
	}
	return p, nil
}

// runShard reads run's --shard: shard i of n, 1 of 1 without it.
func runShard(c *cli.Context) (i, n int, err error) {
	if i, n, err = regress.ParseShard(c.String("shard")); err != nil {
		return 0, 0, fmt.Errorf("run: %w", err)
	}
	return i, n, nil
}

func runVectors(c *cli.Context) error {
	files, err := positional(c)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return errors.New("run: no vector files given (usage: arcalis run [flags] VECTORS...)")
	}
	if c.IsSet("service") {
		return runSchemaVectors(c, files)
	}
	opt, err := runOptions(c)
	if err != nil {
		return err
	}
	plan, err := regress.Load(files, opt)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	return printRun(c, "run", len(plan.Vectors), func(emit func(regress.Result, []byte)) (regress.Stats, error) {
		return regress.Run(c.Context, plan, opt, emit)
	})
}

// printRun prints the n results of run as run emits them (their JSON lines
// with --json, else the failures), then the summary and the JUnit file;
// cmd begins its errors.
func printRun(c *cli.Context, cmd string, n int, run func(emit func(regress.Result, []byte)) (regress.Stats, error)) error {
	asJSON := c.Bool("json")
	out, diag := c.App.Writer, c.App.ErrWriter
	progress := newTicker(diag, "run")
	printed := 0
	stats, err := run(func(r regress.Result, line []byte) {
		if asJSON {
			if line == nil {
				line = r.MarshalLine()
			}
			out.Write(append(bytes.TrimRight(line, "\n"), '\n'))
		} else if !r.Match {
			printFailure(out, r)
		}
		printed++
		progress.maybe("%d/%d vectors", printed, n)
	})
	if err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	summary := out
	if asJSON {
		summary = diag // stdout holds JSON lines only
	}
	failed := summarize(summary, stats.Results, stats.Cycles, time.Since(progress.start))
	if f := c.String("junit"); f != "" {
		if err := regress.WriteJUnit(f, stats.Results); err != nil {
			return fmt.Errorf("%s: %w", cmd, err)
		}
	}
	if failed > 0 {
		return findingsf("%d of %d vectors: RTL and reference disagree", failed, len(stats.Results))
	}
	return nil
}

// workerCommand is the hidden `arcalis worker`: the process that runs
// vectors for `arcalis run --jobs N`, with or without --service, one model
// per process.
func workerCommand() *cli.Command {
	return &cli.Command{
		Name:   "worker",
		Hidden: true,
		Usage:  "run the vectors sent on stdin (started by arcalis run --jobs)",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return fmt.Errorf("worker: unexpected argument %q: a worker reads its setup and jobs from stdin", c.Args().First())
			}
			return regress.Serve(c.App.Reader, c.App.Writer, serviceKind)
		},
	}
}

// printFailure prints a vector that disagreed: the differences, where its
// replay's waveform is, and the command that replays it.
func printFailure(w io.Writer, r regress.Result) {
	paint(w, failColor, "MISMATCH")
	fmt.Fprintf(w, " %s record %d (%s): RTL %s, reference %s\n", r.File, r.Record, r.Source, r.Status, r.Expected)
	for _, d := range r.Diffs {
		fmt.Fprintf(w, "    %s\n", d)
	}
	if r.Wave != "" {
		fmt.Fprintf(w, "    waveform: %s\n", r.Wave)
	}
	fmt.Fprintf(w, "    replay:   %s\n", r.Replay)
}

// summarize prints the totals and PASS or FAIL, and returns how many
// vectors failed.
func summarize(w io.Writer, results []regress.Result, cycles uint64, elapsed time.Duration) int {
	statuses, failed := regress.Tally(results)
	if elapsed > 0 {
		fmt.Fprintf(w, "%d vectors, %d simulated cycles in %s (%.0f vectors/s, %.2f Mcycles/s)\n",
			len(results), cycles, elapsed.Round(time.Millisecond),
			float64(len(results))/elapsed.Seconds(), float64(cycles)/elapsed.Seconds()/1e6)
	} else {
		fmt.Fprintf(w, "%d vectors\n", len(results))
	}
	for _, s := range statuses {
		fmt.Fprintf(w, "  %-20s %d\n", s.Status, s.N)
	}
	if failed == 0 {
		paint(w, okColor, "PASS")
		fmt.Fprintf(w, " RTL matches the reference on all %d vectors\n", len(results))
	} else {
		paint(w, failColor, "FAIL")
		fmt.Fprintf(w, " %d of %d vectors disagree\n", failed, len(results))
	}
	return failed
}
