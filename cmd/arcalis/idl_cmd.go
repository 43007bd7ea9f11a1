package main

import (
	"errors"
	"fmt"
	"go/token"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"arcalis/thriftidl"
	"arcalis/thriftidl/gen"
	"arcalis/thriftidl/schema"
)

// idlCommand groups the Thrift IDL commands (docs/idl.md).
func idlCommand() *cli.Command {
	return &cli.Command{
		Name:  "idl",
		Usage: "read Thrift IDL and generate the schema tables of a service (docs/idl.md)",
		Subcommands: []*cli.Command{
			{
				Name:      "compile",
				Usage:     "write a service's schema tables as DIR/<service>_schema.go and DIR/<service>_schema_pkg.sv",
				ArgsUsage: "IDL.thrift --service NAME -o DIR",
				Description: "Exit status 1 for an error in the IDL (file:line:col: message), 2 for a\n" +
					"usage error, a missing file or an unknown service.",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "service", Usage: "the service `NAME` (\"prefix.Name\" for one in an included file)"},
					&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output `DIR` (created if missing)", TakesFile: true},
					&cli.StringFlag{Name: "package", Usage: "Go package `NAME` (default: the service's name in lower case)"},
				},
				Action: idlCompile,
			},
			{
				Name:      "check",
				Usage:     "parse IDL files and print one line per service: methods, structs, deepest nesting",
				ArgsUsage: "IDL.thrift...",
				Description: "Exit status 1 if any file has an error (file:line:col: message), 2 for a usage\n" +
					"error or a missing file.",
				Action: idlCheck,
			},
		},
	}
}

// loadIDL loads an IDL file: a file that cannot be read is an input error
// (exit 2), an error in the IDL a finding (exit 1).
func loadIDL(cmd, path string) (*thriftidl.Program, error) {
	prog, err := thriftidl.Load(path)
	if err == nil {
		return prog, nil
	}
	var e *thriftidl.Error
	var l thriftidl.ErrorList
	if errors.As(err, &e) || errors.As(err, &l) {
		return nil, findingsf("%s: %v", cmd, err)
	}
	return nil, fmt.Errorf("%s: %w", cmd, err)
}

func idlCompile(c *cli.Context) error {
	args, err := positional(c)
	if err != nil {
		return err
	}
	if len(args) != 1 {
		return fmt.Errorf("idl compile: want one IDL file, got %d (usage: arcalis idl compile IDL.thrift --service NAME -o DIR)", len(args))
	}
	svc, dir := c.String("service"), c.String("output")
	if svc == "" {
		return errors.New("idl compile: --service NAME is required")
	}
	if dir == "" {
		return errors.New("idl compile: -o DIR is required")
	}
	pkg := c.String("package")
	if pkg != "" && !token.IsIdentifier(pkg) {
		return fmt.Errorf("idl compile: --package %q is not a Go package name", pkg)
	}
	prog, err := loadIDL("idl compile", args[0])
	if err != nil {
		return err
	}
	t, err := schema.Build(prog, svc)
	if errors.Is(err, schema.ErrNoService) { // a usage error; any other is an error in the IDL
		return fmt.Errorf("idl compile: %w", err)
	}
	if err != nil {
		return findingsf("idl compile: %v", err)
	}
	cmd := "arcalis idl compile " + args[0] + " --service " + svc
	if pkg != "" {
		cmd += " --package " + pkg
	}
	o := gen.Options{Command: cmd, IDL: args[0], Package: pkg}
	goSrc, err := gen.Go(t, o)
	if err != nil {
		return fmt.Errorf("idl compile: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("idl compile: %w", err)
	}
	files := []struct {
		name string
		data []byte
	}{{gen.GoFile(t.Service), goSrc}, {gen.SVFile(t.Service), gen.SV(t, o)}}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return fmt.Errorf("idl compile: %w", err)
		}
		fmt.Fprintln(c.App.Writer, "wrote", p)
	}
	return nil
}

func idlCheck(c *cli.Context) error {
	files, err := positional(c)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return errors.New("idl check: no IDL files given (usage: arcalis idl check IDL.thrift...)")
	}
	for _, f := range files { // a missing file is a usage error, before anything is checked
		if _, err := os.Stat(f); err != nil {
			return fmt.Errorf("idl check: %w", err)
		}
	}
	var bad []string
	for _, f := range files {
		prog, err := loadIDL("idl check", f)
		if err != nil {
			if exitCode(err) != exitFindings {
				return err
			}
			fmt.Fprintln(c.App.ErrWriter, strings.TrimPrefix(err.Error(), "idl check: "))
			bad = append(bad, f)
			continue
		}
		if len(prog.Root.Services) == 0 {
			fmt.Fprintf(c.App.Writer, "%s: no service\n", f)
		}
		for _, s := range prog.Root.Services {
			t, err := schema.Build(prog, s.Name)
			if err != nil {
				fmt.Fprintf(c.App.ErrWriter, "%s: %v\n", f, err)
				bad = append(bad, f)
				continue
			}
			argsDepth, resultDepth := 0, 0
			for _, m := range t.Methods {
				argsDepth, resultDepth = max(argsDepth, m.ArgsDepth), max(resultDepth, m.ResultDepth)
			}
			fmt.Fprintf(c.App.Writer, "%s: service %s: %s, %s, max depth %d in args, %d in results\n",
				f, s.Name, plural(len(t.Methods), "method"), plural(len(t.Structs), "struct"), argsDepth, resultDepth)
		}
	}
	if len(bad) > 0 {
		return findingsf("idl check: errors in %d of %d files", len(bad), len(files))
	}
	return nil
}

// plural is "1 method", "2 methods".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
