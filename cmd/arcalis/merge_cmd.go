package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"arcalis/regress"
)

// mergeCommand combines the --json outputs of `arcalis run --shard i/n`.
func mergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "combine the JSON results of sharded runs into the result of the whole run",
		ArgsUsage: "RESULTS...",
		Description: "Each RESULTS file is the output of `arcalis run --json` (typically with\n" +
			"--shard i/n). The files must come from one run (the same options and vector\n" +
			"files: the \"config\" field) and together hold every vector exactly once.\n" +
			"merge prints the failures and summary of the whole run on stdout, or with\n" +
			"--json its lines in input order (the lines an unsharded `arcalis run --json`\n" +
			"prints; the summary then goes to stderr). Exit status: 0 if every vector\n" +
			"matched, 1 if any disagreed, 2 if the shards are incomplete, mixed or unreadable.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the merged JSON lines instead of the failures"},
			&cli.StringFlag{Name: "junit", Usage: "write JUnit XML results to `FILE`", TakesFile: true},
		},
		Action: mergeResults,
	}
}

func mergeResults(c *cli.Context) error {
	files, err := positional(c)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return errors.New("merge: no result files given (usage: arcalis merge [flags] RESULTS...)")
	}
	results, err := regress.Merge(files)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	out, summary := c.App.Writer, c.App.Writer
	if c.Bool("json") {
		summary = c.App.ErrWriter
	}
	for _, r := range results {
		if c.Bool("json") {
			fmt.Fprintf(out, "%s\n", r.MarshalLine())
		} else if !r.Match {
			printFailure(out, r)
		}
	}
	failed := summarize(summary, results, 0, 0)
	if f := c.String("junit"); f != "" {
		if err := regress.WriteJUnit(f, results); err != nil {
			return fmt.Errorf("merge: %w", err)
		}
	}
	if failed > 0 {
		return findingsf("%d of %d vectors: RTL and reference disagree", failed, len(results))
	}
	return nil
}
