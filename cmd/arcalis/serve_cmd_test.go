package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/internal/memcached"
	"arcalis/vectors"
)

func TestServeHelpNamesEveryFlag(t *testing.T) {
	inv := arcalis(t, "serve", "-h")
	if inv.code != 0 {
		t.Fatalf("serve -h: exit %d, stderr %s", inv.code, inv.stderr)
	}
	for _, f := range serveCommand().Flags {
		for _, name := range f.Names() {
			if !strings.Contains(inv.stdout, "--"+name) {
				t.Errorf("serve -h does not document --%s:\n%s", name, inv.stdout)
			}
		}
	}
}

func TestServeUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--transport", "http"}, `--transport "http": want framed or buffered`},
		{[]string{"serve", "--mem-latency", "-1"}, "--mem-latency -1: want 0..1000000"},
		{[]string{"serve", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"serve", "extra"}, `unexpected argument "extra"`},
		{[]string{"serve", "--addr", "127.0.0.1:99999"}, "127.0.0.1:99999"},
	} {
		inv := arcalis(t, c.args...)
		if inv.code != exitError || !strings.Contains(inv.stderr, c.want) {
			t.Errorf("arcalis %v: exit %d, stderr %q; want exit %d and %q", c.args, inv.code, inv.stderr, exitError, c.want)
		}
	}
}

// TestServeSignal runs `arcalis serve` as a user would, serves a client,
// stops it with SIGINT, and runs the recorded requests with `arcalis run`.
func TestServeSignal(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "served.vec")
	cmd := exec.Command(arcalisBin(t), "serve", "--addr", "127.0.0.1:0", "--transport", "buffered",
		"--stats", "--check", "--wave", filepath.Join(dir, "waves"), "--record", rec)
	cmd.Env = append(os.Environ(), "ARCALIS_MODEL="+model(t), "NO_COLOR=1")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stderr)
	var addr string
	for lines.Scan() {
		if m := regexp.MustCompile(`on (127\.0\.0\.1:\d+) `).FindStringSubmatch(lines.Text()); m != nil {
			addr = m[1]
			break
		}
	}
	if addr == "" {
		t.Fatalf("serve printed no address (stderr ended: %v)", lines.Err())
	}
	var rest bytes.Buffer
	copied := make(chan struct{})
	go func() { io.Copy(&rest, stderr); close(copied) }()

	sock := thrift.NewTSocketConf(addr, &thrift.TConfiguration{SocketTimeout: time.Minute})
	if err := sock.Open(); err != nil {
		t.Fatal(err)
	}
	c := memcached.NewMemcachedServiceClientFactory(sock, thrift.NewTBinaryProtocolFactoryConf(nil))
	ctx := context.Background()
	if err := c.Set(ctx, 1, []byte("k"), []byte("value"), 3, 0); err != nil {
		t.Fatalf("Set: %v", err)
	}
	if v, err := c.Get(ctx, 2, []byte("k")); err != nil || string(v) != "value" {
		t.Fatalf("Get: %q, %v", v, err)
	}
	sock.Close()

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	<-copied
	if err != nil {
		t.Fatalf("serve after SIGINT: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), rest.String())
	}
	// The statistics: the Set and the Get by the RTL.
	out := stdout.String()
	for _, re := range []string{`2 requests in .*requests/s`, `(?m)^Set +1 +1 +0 `, `(?m)^Get +1 +1 +0 `} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("statistics do not match %q:\n%s", re, out)
		}
	}
	if !strings.Contains(rest.String(), "recorded 2 requests in "+rec) {
		t.Errorf("stderr does not report the record:\n%s", rest.String())
	}
	recs, err := vectors.ReadFile(rec)
	if err != nil || len(recs) != 2 {
		t.Fatalf("the record: %d records, %v; want 2", len(recs), err)
	}
	run := arcalis(t, "run", rec)
	if run.code != 0 || !strings.Contains(run.stdout, "PASS RTL matches the reference on all 2 vectors") {
		t.Errorf("arcalis run on the record: exit %d\n%s%s", run.code, run.stdout, run.stderr)
	}
}
