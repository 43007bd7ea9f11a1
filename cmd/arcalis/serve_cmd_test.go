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
	srv := startServe(t, `on (127\.0\.0\.1:\d+) `, []string{"ARCALIS_MODEL=" + model(t)}, "--addr", "127.0.0.1:0", "--transport", "buffered",
		"--stats", "--check", "--wave", filepath.Join(dir, "waves"), "--record", rec)

	sock := thrift.NewTSocketConf(srv.addr, &thrift.TConfiguration{SocketTimeout: time.Minute})
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

	srv.stop(t)
	// The statistics: the Set and the Get by the RTL.
	out := srv.stdout.String()
	for _, re := range []string{`2 requests in .*requests/s`, `(?m)^Set +1 +1 +0 `, `(?m)^Get +1 +1 +0 `} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("statistics do not match %q:\n%s", re, out)
		}
	}
	if !strings.Contains(srv.rest.String(), "recorded 2 requests in "+rec) {
		t.Errorf("stderr does not report the record:\n%s", srv.rest.String())
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

// served is `arcalis serve` in a process of its own, run as a user would.
type served struct {
	cmd    *exec.Cmd
	addr   string       // where it listens
	head   string       // stderr up to the line that says so
	stdout bytes.Buffer // complete once stop returns
	rest   bytes.Buffer // stderr after head, complete once stop returns
	copied chan struct{}
}

// startServe starts `arcalis serve args...` with env added to the
// environment and reads its stderr up to the line that says where it
// listens: addrRE, the address its first group.
func startServe(t *testing.T, addrRE string, env []string, args ...string) *served {
	t.Helper()
	s := &served{cmd: exec.Command(arcalisBin(t), append([]string{"serve"}, args...)...), copied: make(chan struct{})}
	s.cmd.Env = append(append(os.Environ(), env...), "NO_COLOR=1")
	s.cmd.Stdout = &s.stdout
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cmd.Process.Kill() })
	lines := bufio.NewScanner(stderr)
	var head strings.Builder
	for lines.Scan() {
		head.WriteString(lines.Text() + "\n")
		if m := regexp.MustCompile(addrRE).FindStringSubmatch(lines.Text()); m != nil {
			s.addr = m[1]
			break
		}
	}
	s.head = head.String()
	if s.addr == "" {
		t.Fatalf("serve printed no address (stderr ended: %v):\n%s", lines.Err(), s.head)
	}
	go func() { io.Copy(&s.rest, stderr); close(s.copied) }()
	return s
}

// stop stops the server with SIGINT and wants it to exit with status 0.
func (s *served) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := s.cmd.Wait()
	<-s.copied
	if err != nil {
		t.Fatalf("serve after SIGINT: %v\nstdout:\n%s\nstderr:\n%s", err, s.stdout.String(), s.rest.String())
	}
}
