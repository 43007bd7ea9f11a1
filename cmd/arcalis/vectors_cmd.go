package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"arcalis/vectors"
)

// vectorsCommand groups the commands that build, check and read vector files.
func vectorsCommand() *cli.Command {
	return &cli.Command{
		Name:  "vectors",
		Usage: "build, check and read vector files (docs/vectors.md)",
		Subcommands: []*cli.Command{
			{
				Name:      "import",
				Usage:     "make a vector file from raw messages, one file per message",
				ArgsUsage: "--raw FILE... -o OUT.vec",
				Description: "Each FILE holds one Thrift message as it travels on the wire, transport framing\n" +
					"removed; it becomes one record whose source is FILE as given. Nothing is\n" +
					"written if any FILE is empty, unreadable or over 16,384,000 bytes.",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "raw", Usage: "inputs are raw messages (the only input format so far)"},
					&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "vector file to write", TakesFile: true},
				},
				Action: vectorsImport,
			},
			{
				Name:      "verify",
				Usage:     "check every record's CRC and that its message is one Thrift binary message",
				ArgsUsage: "FILE...",
				Description: "A message must be read whole by Apache Thrift's Go library (ReadMessageBegin,\n" +
					"Skip of the argument struct, ReadMessageEnd) with no byte left over. A record\n" +
					"whose metadata says \"apache\": \"reject\" must instead fail that check.\n" +
					"Exit status 1 if any record fails (a file that cannot be read counts as one),\n" +
					"2 for a usage error.",
				Action: vectorsVerify,
			},
			{
				Name:      "show",
				Usage:     "print records and their parsed messages",
				ArgsUsage: "FILE [--record N]",
				Flags: []cli.Flag{
					&cli.IntFlag{Name: "record", Aliases: []string{"r"}, Usage: "show only record `N` (0-based)", Value: -1, DefaultText: "all"},
				},
				Action: vectorsShow,
			},
			{
				Name:      "cat",
				Usage:     "concatenate vector files",
				ArgsUsage: "A B... -o C",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "vector file to write", TakesFile: true},
				},
				Action: vectorsCat,
			},
			fromPcapCommand(), // pcap_cmd.go
			genCommand(),      // gen_cmd.go
		},
	}
}

// positional returns the command's positional arguments, taking any of its
// flags written after them ("import --raw a b -o out.vec") as flags: the flag
// package stops at the first positional argument. "--" ends the flags.
func positional(c *cli.Context) ([]string, error) {
	args := c.Args().Slice()
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := lookupFlag(c.Command.Flags, name)
		if f == nil {
			return nil, fmt.Errorf("%s: flag provided but not defined: %s (see '%s --help')", commandName(c), a, commandPath(c))
		}
		if _, isBool := f.(*cli.BoolFlag); isBool {
			if !hasValue {
				value = "true"
			}
		} else if !hasValue {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("%s: flag needs an argument: %s (see '%s --help')", commandName(c), a, commandPath(c))
			}
			i++
			value = args[i]
		}
		for _, n := range f.Names() { // each alias has its own value in the flag set
			if err := c.Set(n, value); err != nil {
				return nil, fmt.Errorf("%s: invalid value %q for flag %s: %w", commandName(c), value, a, err)
			}
		}
	}
	return pos, nil
}

func lookupFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

func vectorsImport(c *cli.Context) error {
	files, err := positional(c)
	if err != nil {
		return err
	}
	out := c.String("output")
	switch {
	case !c.Bool("raw"):
		return errors.New("vectors import: name the input format: --raw (one message per file)")
	case out == "":
		return errors.New("vectors import: missing -o OUT.vec")
	case len(files) == 0:
		return errors.New("vectors import: no input files")
	}
	recs := make([]vectors.Record, 0, len(files))
	total := 0
	for _, path := range files {
		msg, err := readRawMessage(path)
		if err != nil {
			return fmt.Errorf("vectors import: %w (nothing written)", err)
		}
		recs = append(recs, vectors.Record{Source: path, Msg: msg})
		total += len(msg)
	}
	if err := vectors.WriteFile(out, recs); err != nil {
		return fmt.Errorf("vectors import: %w", err)
	}
	paint(c.App.Writer, okColor, "imported")
	fmt.Fprintf(c.App.Writer, " %d messages (%d bytes) into %s\n", len(recs), total, out)
	return nil
}

// readRawMessage reads one message file, refusing empty files and files over
// the message limit without reading them whole.
func readRawMessage(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	msg, err := io.ReadAll(io.LimitReader(f, vectors.MaxMessageSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(msg) == 0 {
		return nil, fmt.Errorf("%s: empty file: a message is at least one byte", path)
	}
	if len(msg) > vectors.MaxMessageSize {
		return nil, fmt.Errorf("%s: over the message limit of %d bytes", path, vectors.MaxMessageSize)
	}
	return msg, nil
}

func vectorsVerify(c *cli.Context) error {
	files, err := positional(c)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return errors.New("vectors verify: no files to verify")
	}
	var failures, badFiles int
	for _, path := range files {
		n := verifyFile(c.App.Writer, newTicker(c.App.ErrWriter, "verify "+path), path)
		failures += n
		if n > 0 {
			badFiles++
		}
	}
	if failures > 0 {
		return findingsf("vectors verify: %d failures in %d of %d files", failures, badFiles, len(files))
	}
	return nil
}

// verifyFile checks one file, prints its report and returns its failure count.
func verifyFile(w io.Writer, progress *ticker, path string) int {
	var records, ok, rejected int
	var lines []string
	fail := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
	func() {
		f, err := os.Open(path)
		if err != nil {
			fail("%v", err)
			return
		}
		defer f.Close()
		r, err := vectors.NewReader(f, path)
		if err != nil {
			fail("%v", err)
			return
		}
		for {
			rec, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				var fe *vectors.FormatError
				fail("%v", err) // names the file, the record and the offset
				if errors.As(err, &fe) && fe.InRecord() {
					records++
					if fe.Resumable() {
						continue
					}
				}
				return
			}
			records++
			progress.maybe("%d records", records)
			apache, _ := rec.Meta["apache"].(string)
			perr := vectors.CheckMessage(rec.Msg)
			switch {
			case apache != "" && apache != "accept" && apache != "reject":
				fail("record %d (%s): metadata \"apache\" is %q, want \"accept\" or \"reject\"", rec.Index, rec.Source, apache)
			case apache == "reject" && perr == nil:
				fail("record %d (%s): metadata says Apache rejects it, but it parses as one message", rec.Index, rec.Source)
			case apache == "reject":
				ok++
				rejected++
			case perr != nil:
				fail("record %d (%s): not one Thrift message: %v", rec.Index, rec.Source, perr)
			default:
				ok++
			}
		}
	}()
	if len(lines) == 0 {
		paint(w, okColor, "OK  ")
	} else {
		paint(w, failColor, "FAIL")
	}
	fmt.Fprintf(w, " %s: %d records, %d ok", path, records, ok)
	if rejected > 0 {
		fmt.Fprintf(w, " (%d rejected by Apache as expected)", rejected)
	}
	fmt.Fprintf(w, ", %d failed\n", len(lines))
	for _, l := range lines {
		fmt.Fprintf(w, "     %s\n", l)
	}
	return len(lines)
}

func vectorsShow(c *cli.Context) error {
	args, err := positional(c)
	if err != nil {
		return err
	}
	if len(args) != 1 {
		return fmt.Errorf("vectors show: want exactly one FILE, got %d arguments (see '%s --help')", len(args), commandPath(c))
	}
	path, want := args[0], c.Int("record")
	if c.IsSet("record") && want < 0 {
		return fmt.Errorf("vectors show: --record %d: want a record index >= 0", want)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("vectors show: %w", err)
	}
	defer f.Close()
	r, err := vectors.NewReader(f, path)
	if err != nil {
		return fmt.Errorf("vectors show: %w", err)
	}
	w := c.App.Writer
	for n := 0; ; n++ {
		rec, err := r.Next()
		if err == io.EOF {
			if want >= 0 {
				return fmt.Errorf("vectors show: %s has %d records, no record %d", path, n, want)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("vectors show: %w", err)
		}
		if want >= 0 && rec.Index != want {
			continue
		}
		showRecord(w, rec)
		if want >= 0 {
			return nil
		}
	}
}

func vectorsCat(c *cli.Context) error {
	files, err := positional(c)
	if err != nil {
		return err
	}
	out := c.String("output")
	switch {
	case out == "":
		return errors.New("vectors cat: missing -o OUT.vec")
	case len(files) == 0:
		return errors.New("vectors cat: no input files")
	}
	var all []vectors.Record
	progress := newTicker(c.App.ErrWriter, "cat")
	for i, path := range files {
		progress.maybe("%d of %d files read", i, len(files))
		recs, err := vectors.ReadFile(path)
		if err != nil {
			return fmt.Errorf("vectors cat: %w (nothing written)", err)
		}
		all = append(all, recs...)
	}
	if err := vectors.WriteFile(out, all); err != nil {
		return fmt.Errorf("vectors cat: %w", err)
	}
	paint(c.App.Writer, okColor, "wrote")
	fmt.Fprintf(c.App.Writer, " %d records from %d files to %s\n", len(all), len(files), out)
	return nil
}
