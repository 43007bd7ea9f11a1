package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/urfave/cli/v2"

	"arcalis/serve"
	"arcalis/serve/schemasvc"
	"arcalis/tb/schemacase"
	"arcalis/tb/schemarx"
	"arcalis/thriftidl/schema"
)

// engineOnlyFlags are serve's flags of the Memcached engine's path, which
// --service does not take.
var engineOnlyFlags = []string{"check", "record", "wave", "seed", "mem-latency"}

// serveSchemaAction is `arcalis serve --service NAME`: the service through
// the generic recvFunction and respFunction (package serve/schemasvc).
func serveSchemaAction(c *cli.Context) error {
	name := c.String("service")
	sc, err := schemasvc.PairCase(name)
	if err != nil {
		return fmt.Errorf("serve: --service: %v", err)
	}
	for _, f := range engineOnlyFlags {
		if c.IsSet(f) {
			return fmt.Errorf("serve: --%s applies to the Memcached engine only, not with --service %s", f, name)
		}
	}
	cfg := schemasvc.Config{Addr: c.String("addr"), Transport: c.String("transport"), Width: sc.Width, Log: c.App.ErrWriter}
	switch {
	case cfg.Transport != serve.Framed && cfg.Transport != serve.Buffered:
		return fmt.Errorf("serve: --transport %q: want framed or buffered", cfg.Transport)
	case cfg.Addr == "":
		return errors.New("serve: --addr is empty: want HOST:PORT")
	}
	root, table, err := schemaTables("serve", sc)
	if err != nil {
		return err
	}
	cfg.Table = table
	if cfg.Model, err = schemaModel(c, "serve", sc, root); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	srv, err := schemasvc.Start(cfg)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	fmt.Fprintf(c.App.ErrWriter, "serve: %s on %s (%s transport; model %s; %s; %s); SIGINT or SIGTERM stops it\n",
		name, srv.Addr(), cfg.Transport, cfg.Model, schemasvc.ReceivePath, schemasvc.ReplyPath)
	st, err := awaitStop(ctx, c, stop, srv.Shutdown)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "serve: stopped after %d requests\n", st.Requests)
	return nil
}

// schemaTables is the checkout's root and the tables of sc's service,
// read from its IDL there, for command cmd's errors.
func schemaTables(cmd string, sc schemarx.Case) (string, *schema.Table, error) {
	root, err := schemacase.FindRoot("not in a checkout (no go.mod in the working directory or above)")
	if err != nil {
		return "", nil, fmt.Errorf("%s --service %s: %v: it reads %s there", cmd, sc.Name, err, sc.IDL)
	}
	t, err := sc.Table(root)
	if err != nil {
		return "", nil, fmt.Errorf("%s --service %s: %w", cmd, sc.Name, err)
	}
	return root, t, nil
}

// schemaModel is the model of sc for command cmd: --model, or the
// checkout's, built first with make <sc.Target>-model (incremental).
// $ARCALIS_MODEL names the engine's model, not this one.
func schemaModel(c *cli.Context, cmd string, sc schemarx.Case, root string) (string, error) {
	if lib := c.String("model"); lib != "" {
		if _, err := os.Stat(lib); err != nil {
			return "", fmt.Errorf("%s: --model %s: %v", cmd, lib, err)
		}
		return lib, nil
	}
	fmt.Fprintf(c.App.ErrWriter, "%s: make %s-model for %s in %s (incremental)\n", cmd, sc.Target, sc.Name, filepath.Join(root, sc.OutDir()))
	lib, err := sc.Build(root, 0)
	if err != nil {
		return "", fmt.Errorf("%s --service %s: building its model: %v", cmd, sc.Name, err)
	}
	return lib, nil
}
