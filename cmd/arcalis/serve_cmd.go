package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"arcalis/regress"
	"arcalis/serve"
	"arcalis/serve/schemasvc"
)

// serveCommand serves the MemcachedService over TCP with the simulated RTL
// as its RPC path (package serve).
func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve the Memcached Thrift service over TCP, each request through the simulated RTL",
		Description: "Listens for Thrift binary-protocol requests (MemcachedService: Set, Get) and runs\n" +
			"each through the Verilated receive path as the NetCore would: placed in Net.Recv,\n" +
			"parsed by the RxEngine into App.Recv, where the key-value store reads it; a Set the\n" +
			"RTL handled is answered with the TxEngine's reply bytes, a Get with the reference\n" +
			"serializer's (the TxEngine writes Set's reply only). What the RTL rejects is\n" +
			"decoded and answered in software, and counted as such. One model serves every\n" +
			"connection, one request at a time.\n\n" +
			"Malformed input gets what Apache Thrift 0.17's TSimpleServer does for it (an\n" +
			"exception reply or a closed connection) and a log line on stderr; a frame or\n" +
			"message longer than 16,384,000 bytes is refused. SIGINT or SIGTERM stops it:\n" +
			"requests in flight finish, the record is flushed, --stats are printed. Exit\n" +
			"status 1 if --check found a disagreement. Details: docs/serve.md.\n\n" +
			"--service NAME serves another service of idl/ instead (" + strings.Join(schemasvc.Names(), ", ") + "):\n" +
			"each request's args are walked by the generic recvFunction (rtl/generic/recv_schema.sv)\n" +
			"into App.Recv, the business logic reads them back from that image and writes its\n" +
			"result into App.Resp, and the generic respFunction (rtl/generic/resp_schema.sv)\n" +
			"writes the reply, checked against the reference serializer (a mismatch is logged,\n" +
			"counted and answered with the reference's bytes). Its model, both units in\n" +
			"rtl/generic/schema_pair.sv, is --model, else build/schema-pair-<stem>/libvmodel.so,\n" +
			"built with make schema-pair-model SERVICE=<stem> in the checkout. --check, --record, --wave, --seed and\n" +
			"--mem-latency apply to the Memcached engine only.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:9090", Usage: "listen on `HOST:PORT` (port 0: any free port, printed at start)"},
			&cli.StringFlag{Name: "transport", Value: serve.Framed, Usage: "Thrift transport: framed (4-byte length, then the message) or buffered (bare messages)"},
			&cli.IntFlag{Name: "mem-latency", Value: 4, Usage: "memory latency of the simulated accelerator in `CYCLES`"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "seed of the memory model's random choices (request i runs with seed+i, as vector i does in arcalis run)"},
			&cli.BoolFlag{Name: "check", Usage: "also score every request against the reference; print each disagreement with its waveform and replay command"},
			&cli.StringFlag{Name: "wave", Value: "waves", Usage: "with --check: waveforms (and, without --record, replay vector files) of disagreements go into `DIR`", TakesFile: true},
			&cli.StringFlag{Name: "record", Usage: "write every request received to the vector file `OUT.vec` (replaced; complete when the server stops)", TakesFile: true},
			&cli.StringFlag{Name: "service", Usage: "serve `NAME` through the generic recvFunction and respFunction instead of the Memcached engine: " + strings.Join(schemasvc.Names(), ", ")},
			&cli.BoolFlag{Name: "stats", Usage: "print statistics on stdout when stopped: requests/s, per method the RTL/software split, simulated cycles, latency p50/p99"},
			modelFlag(),
		},
		Action: serveAction,
	}
}

func serveAction(c *cli.Context) error {
	if c.NArg() > 0 {
		return fmt.Errorf("serve: unexpected argument %q (usage: arcalis serve [flags])", c.Args().First())
	}
	if c.IsSet("service") {
		return serveSchemaAction(c)
	}
	cfg := serve.Config{
		Addr: c.String("addr"), Transport: c.String("transport"), MemLatency: c.Int("mem-latency"),
		Seed: c.Int64("seed"), Check: c.Bool("check"), WaveDir: c.String("wave"), Record: c.String("record"),
		Log: c.App.ErrWriter,
	}
	switch {
	case cfg.Transport != serve.Framed && cfg.Transport != serve.Buffered:
		return fmt.Errorf("serve: --transport %q: want framed or buffered", cfg.Transport)
	case cfg.MemLatency < 0 || cfg.MemLatency > 1_000_000:
		return fmt.Errorf("serve: --mem-latency %d: want 0..1000000", cfg.MemLatency)
	case cfg.Addr == "":
		return errors.New("serve: --addr is empty: want HOST:PORT")
	}
	var err error
	if cfg.Model, cfg.ReplayModel, err = modelPath(c); err != nil {
		return err
	}
	out := c.App.Writer
	if cfg.Check {
		cfg.Mismatch = func(r regress.Result) { printFailure(out, r) }
	}
	ctx, stop := signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	srv, err := serve.Start(cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "serve: MemcachedService on %s (%s transport, model %s); SIGINT or SIGTERM stops it\n", srv.Addr(), cfg.Transport, cfg.Model)
	st, err := awaitStop(ctx, c, stop, srv.Shutdown)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "serve: stopped after %d requests\n", st.Requests)
	if cfg.Record != "" {
		fmt.Fprintf(c.App.ErrWriter, "serve: recorded %d requests in %s\n", st.Requests, cfg.Record)
	}
	if st.Mismatches > 0 {
		return findingsf("%d of %d requests: RTL and reference disagree", st.Mismatches, st.Requests)
	}
	return nil
}

// awaitStop waits for ctx to end (SIGINT or SIGTERM), ends stop's hold on
// the signals, gives shutdown a minute to finish the requests in flight,
// and with --stats prints the statistics it returns on stdout.
func awaitStop[S interface{ Write(io.Writer) error }](ctx context.Context, c *cli.Context, stop func(), shutdown func(context.Context) (S, error)) (S, error) {
	<-ctx.Done()
	stop() // a second SIGINT kills the process as usual
	fmt.Fprintln(c.App.ErrWriter, "serve: stopping: finishing the requests in flight")
	sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := shutdown(sctx)
	if err != nil {
		return st, err
	}
	if c.Bool("stats") {
		if err := st.Write(c.App.Writer); err != nil {
			return st, fmt.Errorf("serve: writing the statistics: %w", err)
		}
	}
	return st, nil
}
