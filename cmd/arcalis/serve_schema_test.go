package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/internal/social_network"
	"arcalis/internal/unique_id"
)

func TestServeServiceUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--service", "Bogus"}, `serve: --service: no service "Bogus" in idl/: want one of MemcachedService, UniqueIdService, UrlShortenService, PostStorageService, UserTimelineService`},
		{[]string{"serve", "--service", "RequiredService"}, `no service "RequiredService" in idl/`},
		{[]string{"serve", "--service", "UniqueIdService", "--check"}, "--check applies to the Memcached engine only, not with --service UniqueIdService"},
		{[]string{"serve", "--service", "UniqueIdService", "--record", "x.vec"}, "--record applies to the Memcached engine only"},
		{[]string{"serve", "--service", "UniqueIdService", "--transport", "http"}, `--transport "http": want framed or buffered`},
		{[]string{"serve", "--service", "UniqueIdService", "--model", "/nonexistent/lib.so"}, "--model /nonexistent/lib.so"},
	} {
		inv := arcalis(t, c.args...)
		if inv.code != exitError || !strings.Contains(inv.stderr, c.want) {
			t.Errorf("arcalis %v: exit %d, stderr %q; want exit %d and %q", c.args, inv.code, inv.stderr, exitError, c.want)
		}
	}
}

// TestServeServiceSignal runs `arcalis serve --service UniqueIdService` as
// a user would (the model built or found by make schema-pair-model), calls it
// with Apache's generated client, stops it with SIGINT and reads --stats.
func TestServeServiceSignal(t *testing.T) {
	srv := startServe(t, `UniqueIdService on (127\.0\.0\.1:\d+) `, nil, "--service", "UniqueIdService", "--addr", "127.0.0.1:0", "--transport", "buffered", "--stats")
	if !strings.Contains(srv.head, "reply: RTL respFunction") {
		t.Errorf("the start line does not say where replies come from:\n%s", srv.head)
	}

	var tr thrift.TTransport = thrift.NewTSocketConf(srv.addr, &thrift.TConfiguration{SocketTimeout: time.Minute})
	tr = thrift.NewTBufferedTransport(tr, 4096)
	if err := tr.Open(); err != nil {
		t.Fatal(err)
	}
	c := unique_id.NewUniqueIdServiceClientFactory(tr, thrift.NewTBinaryProtocolFactoryConf(nil))
	for want := int64(1); want <= 2; want++ { // ids count the calls from 1
		id, err := c.ComposeUniqueId(context.Background(), 10, social_network.PostType_REPOST, map[string]string{"k": "v"})
		if err != nil || id != want {
			t.Fatalf("ComposeUniqueId = %d, %v; want %d", id, err, want)
		}
	}
	tr.Close()

	srv.stop(t)
	out := srv.stdout.String()
	// Requests, RTL OK, rejected, exception, internal error, RTL replies, mismatches.
	for _, re := range []string{`reply: RTL respFunction`, `2 requests in .*requests/s.*; 0 reply mismatches`, `(?m)^ComposeUniqueId +2 +2 +0 +0 +0 +2 +0 `} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("statistics do not match %q:\n%s", re, out)
		}
	}
}
