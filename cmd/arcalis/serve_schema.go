package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"arcalis/serve"
	"arcalis/serve/schemasvc"
)

// engineOnlyFlags are serve's flags of the Memcached engine's path, which
// --service does not take.
var engineOnlyFlags = []string{"check", "record", "wave", "seed", "mem-latency"}

// serveSchemaAction is `arcalis serve --service NAME`: the service through
// the generic recvFunction (package serve/schemasvc).
func serveSchemaAction(c *cli.Context) error {
	name := c.String("service")
	sc, err := schemasvc.Lookup(name)
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
	root, err := checkoutRoot()
	if err != nil {
		return fmt.Errorf("serve --service %s: %v: it reads %s there", name, err, sc.IDL)
	}
	if cfg.Table, err = sc.Table(root); err != nil {
		return fmt.Errorf("serve --service %s: %w", name, err)
	}
	// $ARCALIS_MODEL names the engine's model, not this one.
	if cfg.Model = c.String("model"); cfg.Model != "" {
		if _, err := os.Stat(cfg.Model); err != nil {
			return fmt.Errorf("serve: --model %s: %v", cfg.Model, err)
		}
	} else {
		fmt.Fprintf(c.App.ErrWriter, "serve: make schema-model for %s in %s (incremental)\n", name, filepath.Join(root, sc.OutDir()))
		if cfg.Model, err = sc.Build(root, 0); err != nil {
			return fmt.Errorf("serve --service %s: building its model: %v", name, err)
		}
	}
	ctx, stop := signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	srv, err := schemasvc.Start(cfg)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	fmt.Fprintf(c.App.ErrWriter, "serve: %s on %s (%s transport; receive: recv_schema model %s; %s); SIGINT or SIGTERM stops it\n",
		name, srv.Addr(), cfg.Transport, cfg.Model, schemasvc.ReplyPath)
	<-ctx.Done()
	stop() // a second SIGINT kills the process as usual
	fmt.Fprintln(c.App.ErrWriter, "serve: stopping: finishing the requests in flight")
	sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := srv.Shutdown(sctx)
	if err != nil {
		return err
	}
	if c.Bool("stats") {
		if err := st.Write(c.App.Writer); err != nil {
			return fmt.Errorf("serve: writing the statistics: %w", err)
		}
	}
	fmt.Fprintf(c.App.ErrWriter, "serve: stopped after %d requests\n", st.Requests)
	return nil
}

// checkoutRoot is the first directory upward from the working directory
// that holds go.mod.
func checkoutRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("not in a checkout (no go.mod in the working directory or above)")
		}
		dir = up
	}
}
