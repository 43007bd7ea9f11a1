// Command arcalis is the Arcalís co-verification harness's front end: it
// builds and checks vector files, and runs them against the receive path.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
)

func main() {
	if err := newApp(os.Stdout, os.Stderr).Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "arcalis:", err)
		os.Exit(1)
	}
}

// newApp returns the arcalis app writing to stdout and stderr. Errors are
// returned by Run, never turned into an exit here, so tests can call it.
//
// Each top-level command lives in its own file (vectors_cmd.go, ...) as a
// function returning a *cli.Command; this file only assembles the app.
func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:            "arcalis",
		Usage:           "co-verification harness for the Arcalís near-cache RPC accelerator",
		Writer:          stdout,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		ExitErrHandler:  func(*cli.Context, error) {},
		OnUsageError:    usageError,
		Action:          needSubcommand,
		Commands: []*cli.Command{
			// ---- vector files: vectors_cmd.go ----
			vectorsCommand(),

			// ---- simulation: run_cmd.go ----
			runCommand(),
			mergeCommand(), workerCommand(), // sharded results: merge_cmd.go; run --jobs worker: run_cmd.go
			reportCommand(), // resources and power: report_cmd.go
		},
	}
	setUsageErrors(app.Commands)
	return app
}

// usageError turns a flag parsing error into a returned error, so a wrong flag
// exits non-zero with one clear line.
func usageError(c *cli.Context, err error, _ bool) error {
	return fmt.Errorf("%s: %w (see '%s --help')", commandName(c), err, commandPath(c))
}

func setUsageErrors(cmds []*cli.Command) {
	for _, cmd := range cmds {
		if cmd.OnUsageError == nil {
			cmd.OnUsageError = usageError
		}
		if len(cmd.Subcommands) > 0 && cmd.Action == nil {
			cmd.Action = needSubcommand
		}
		setUsageErrors(cmd.Subcommands)
	}
}

// needSubcommand is the action of a command that only groups others.
func needSubcommand(c *cli.Context) error {
	if c.NArg() > 0 {
		return fmt.Errorf("unknown command %q (see '%s --help')", c.Args().First(), commandPath(c))
	}
	_ = cli.ShowSubcommandHelp(c)
	return errors.New("missing command")
}

// commandName is "vectors import" for the command being run ("arcalis" at the top).
func commandName(c *cli.Context) string {
	var names []string
	for _, cc := range c.Lineage() { // c, its parent, ..., the app's root command
		if cc.Command != nil && cc.Command.Name != "" && cc.Command.Name != c.App.Name {
			names = append([]string{cc.Command.Name}, names...)
		}
	}
	if len(names) == 0 {
		return c.App.Name
	}
	return strings.Join(names, " ")
}

// commandPath is "arcalis vectors import" for the command being run.
func commandPath(c *cli.Context) string {
	if n := commandName(c); n != c.App.Name {
		return c.App.Name + " " + n
	}
	return c.App.Name
}
