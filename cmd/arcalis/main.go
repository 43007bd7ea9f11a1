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

// Exit statuses, as well-kept Go tools (go vet, staticcheck) use them.
const (
	exitOK       = 0 // everything checked agrees
	exitFindings = 1 // a check found something: a vector or record disagrees
	exitError    = 2 // usage or input error: nothing, or not all, could be checked
)

const exitHelp = `
EXIT STATUS:
   0  every vector matches the reference (run, merge), every record passes (vectors
      verify), the command did what it was asked
   1  a finding: a vector disagrees, crashed or timed out; a record fails vectors verify;
      report timing's estimate misses --freq
   2  a usage or input error: bad flag or argument, unreadable or corrupt vector or
      result file, missing model, incomplete shards, a worker that cannot start

STREAMS:
   Results and the PASS/FAIL summary go to stdout (with --json, the JSON lines alone;
   the summary then goes to stderr); diagnostics and progress go to stderr. Colour
   only on a stream that is a terminal, and never when NO_COLOR is set.

ENVIRONMENT:
   ARCALIS_MODEL  the Verilated model library when --model is not given
   NO_COLOR       any non-empty value turns colour off

Full reference: docs/cli.md.
`

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// run runs the app and returns its exit status, printing a returned error
// on stderr.
func run(args []string, stdout, stderr io.Writer) int {
	err := newApp(stdout, stderr).Run(args)
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "arcalis:", err)
	return exitCode(err)
}

// exitCode is exitFindings for a findings error, exitError for any other.
func exitCode(err error) int {
	var f *findings
	if errors.As(err, &f) {
		return exitFindings
	}
	return exitError
}

// findings is the error of a command that ran to the end and found
// disagreements; every other error is a usage or input error.
type findings struct{ msg string }

func (f *findings) Error() string { return f.msg }

func findingsf(format string, args ...any) error {
	return &findings{fmt.Sprintf(format, args...)}
}

// newApp returns the arcalis app writing to stdout and stderr. Errors are
// returned by Run, never turned into an exit here, so tests can call it.
//
// Each top-level command lives in its own file (vectors_cmd.go, ...) as a
// function returning a *cli.Command; this file only assembles the app.
func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:                  "arcalis",
		Usage:                 "co-verification harness for the Arcalís near-cache RPC accelerator",
		Description:           "Runs Thrift request vectors through the Verilated receive path and a Go\nreference deserializer and compares them byte for byte.",
		CustomAppHelpTemplate: cli.AppHelpTemplate + exitHelp,
		Writer:                stdout,
		ErrWriter:             stderr,
		HideHelpCommand:       true,
		ExitErrHandler:        func(*cli.Context, error) {},
		OnUsageError:          usageError,
		Action:                needSubcommand,
		Commands: []*cli.Command{
			// ---- vector files: vectors_cmd.go ----
			vectorsCommand(),

			// ---- simulation: run_cmd.go ----
			runCommand(),
			mergeCommand(), workerCommand(), // sharded results: merge_cmd.go; run --jobs worker: run_cmd.go
			reportCommand(), // resources and power: report_cmd.go

			// ---- a Thrift server on the simulated RTL: serve_cmd.go ----
			serveCommand(),
			idlCommand(), // Thrift IDL to schema tables: idl_cmd.go
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
