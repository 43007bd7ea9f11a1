package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"arcalis/vectors"
	"arcalis/vectors/services"
	"arcalis/vectors/workload"
)

// genCommand is `arcalis vectors gen`.
func genCommand() *cli.Command {
	var names []string
	for _, n := range workload.Names() {
		names = append(names, fmt.Sprintf("  %-11s %s", n, workload.About(n)))
	}
	return &cli.Command{
		Name:      "gen",
		Usage:     "generate Memcached request mixes, or a DeathStarBench service's requests (serialized by Apache Thrift's Go library)",
		ArgsUsage: "(--workload NAME | --service NAME) --count N --seed S -o OUT.vec",
		Description: "Workloads:\n" + strings.Join(names, "\n") + "\n" +
			"Key popularity is Zipf (--zipf, 0.99 by default) over --keys keys. --set-ratio is\n" +
			"low, mid, high (the Arcalís write intensities: SET 20, 50, 80 percent), SET/GET\n" +
			"(5/95, 50/50: Dagger's read- and write-intense mixes) or a fraction. --sweep makes\n" +
			"only Sets, --count of each value length 0, 1, 63, 64, 65, ... 4095, 4096 (both\n" +
			"sides of every 64-byte line). The same seed gives the same bytes on every machine.\n\n" +
			"--service makes CALLs of every method of one of " + strings.Join(services.Names(), ", ") + "\n" +
			"(idl/), with lists of 0..64 elements, carriers of 0..8 entries and post texts of up to\n" +
			"1 KiB (package vectors/services says how they are drawn); --count and --seed as above.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "workload", Aliases: []string{"w"}, Usage: "`NAME`: " + strings.Join(workload.Names(), ", ")},
			&cli.StringFlag{Name: "service", Usage: "`NAME`: " + strings.Join(services.Names(), ", ") + " (instead of --workload)"},
			&cli.IntFlag{Name: "count", Aliases: []string{"n"}, Value: 1000, Usage: "requests to make (with --sweep: per value length)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of every random choice"},
			&cli.StringFlag{Name: "set-ratio", Value: "50/50", Usage: "share of Sets: low, mid, high, SET/GET or a fraction"},
			&cli.Float64Flag{Name: "zipf", Value: workload.DefaultSkew, Usage: "Zipf skew of key popularity"},
			&cli.IntFlag{Name: "keys", Value: workload.DefaultKeys, Usage: "number of distinct keys"},
			&cli.BoolFlag{Name: "sweep", Usage: "Sets only, value lengths stepping across the line boundaries up to 4 KiB"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "vector file to write", TakesFile: true},
		},
		Action: vectorsGen,
	}
}

func vectorsGen(c *cli.Context) error {
	args, err := positional(c)
	if err != nil {
		return err
	}
	out := c.String("output")
	switch {
	case len(args) > 0:
		return fmt.Errorf("vectors gen: unexpected argument %q (see '%s --help')", args[0], commandPath(c))
	case c.String("workload") != "" && c.String("service") != "":
		return errors.New("vectors gen: --workload and --service: give one")
	case c.String("workload") == "" && c.String("service") == "":
		return fmt.Errorf("vectors gen: missing --workload (one of %s) or --service (one of %s)",
			strings.Join(workload.Names(), ", "), strings.Join(services.Names(), ", "))
	case out == "":
		return errors.New("vectors gen: missing -o OUT.vec")
	case c.String("service") != "":
		return genService(c, out)
	}
	ratio, err := workload.ParseSetRatio(c.String("set-ratio"))
	if err != nil {
		return fmt.Errorf("vectors gen: --%w", err)
	}
	spec := workload.Spec{
		Workload: c.String("workload"), Count: c.Int("count"), Seed: c.Uint64("seed"),
		SetRatio: ratio, Skew: c.Float64("zipf"), Keys: c.Int("keys"), Sweep: c.Bool("sweep"),
	}
	g, err := workload.New(spec)
	if err != nil {
		return fmt.Errorf("vectors gen: %w", err)
	}
	sets, gets, bytes, err := writeGenerated(out, g, newTicker(c.App.ErrWriter, out))
	if err != nil {
		return fmt.Errorf("vectors gen: %w", err)
	}
	paint(c.App.Writer, okColor, "generated")
	fmt.Fprintf(c.App.Writer, " %d records (%d Set, %d Get; %d message bytes) of %s, seed %d, into %s\n",
		sets+gets, sets, gets, bytes, spec.Workload, spec.Seed, out)
	return nil
}

// genService writes --count requests of --service to out.
func genService(c *cli.Context, out string) error {
	svc, n := c.String("service"), c.Int("count")
	if n < 1 {
		return fmt.Errorf("vectors gen: --count %d: want at least 1", n)
	}
	g, err := services.New(svc, c.Uint64("seed"))
	if err != nil {
		return fmt.Errorf("vectors gen: --service %q: want one of %s", svc, strings.Join(services.Names(), ", "))
	}
	recs, err := g.Generate(n)
	if err == nil {
		err = vectors.WriteFile(out, recs)
	}
	if err != nil {
		return fmt.Errorf("vectors gen: %w", err)
	}
	paint(c.App.Writer, okColor, "generated")
	fmt.Fprintf(c.App.Writer, " %d records of %s, seed %d, into %s\n", n, svc, c.Uint64("seed"), out)
	return nil
}

// writeGenerated streams the generator's records into a temporary file next
// to path and renames it, so path is left as it was on any error.
func writeGenerated(path string, g *workload.Generator, tick *ticker) (sets, gets int, bytes int64, err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return 0, 0, 0, err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w, err := vectors.NewWriter(f)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	for n := 1; ; n++ {
		rec, ok, err := g.Next()
		if err != nil {
			return 0, 0, 0, err
		}
		if !ok {
			break
		}
		if err := w.Write(rec); err != nil {
			return 0, 0, 0, fmt.Errorf("%s: %w", path, err)
		}
		if rec.Meta["op"] == "Set" {
			sets++
		} else {
			gets++
		}
		bytes += int64(len(rec.Msg))
		tick.maybe("%d/%d records", n, g.Len())
	}
	if err := w.Close(); err != nil {
		return 0, 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		return 0, 0, 0, err
	}
	if err := f.Close(); err != nil {
		return 0, 0, 0, err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return 0, 0, 0, err
	}
	return sets, gets, bytes, nil
}
