package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/internal/memcached"
	"arcalis/internal/post_storage"
	"arcalis/internal/social_network"
	"arcalis/internal/unique_id"
	"arcalis/internal/url_shorten"
	"arcalis/internal/user_timeline"
	"arcalis/serve/schemasvc"
	"arcalis/vectors"
)

// Tests of arcalis run --service. Each invocation is a process of its own
// running one schema_pair model, recv_header then recv_schema (VPI holds
// one model per process); the command builds the model with make
// schema-pair-model in this checkout.

// serviceVectors are the services of idl/ and their committed default
// vectors, relative to the checkout.
var serviceVectors = []struct{ name, file string }{
	{"MemcachedService", "vectors/default.vec"},
	{"UniqueIdService", "vectors/default-unique_id.vec"},
	{"UrlShortenService", "vectors/default-url_shorten.vec"},
	{"PostStorageService", "vectors/default-post_storage.vec"},
	{"UserTimelineService", "vectors/default-user_timeline.vec"},
}

// checkout is the repository's root, from the package directory.
func checkout(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// runService runs arcalis run --service name with args, NO_COLOR set.
func runService(t *testing.T, name string, args ...string) invocation {
	t.Helper()
	return arcalisIn(t, "", []string{"NO_COLOR=1"}, append([]string{"run", "--service", name}, args...)...)
}

func TestRunServiceDefaultVectors(t *testing.T) {
	root := checkout(t)
	for _, sv := range serviceVectors {
		t.Run(sv.name, func(t *testing.T) {
			file := filepath.Join(root, sv.file)
			recs, err := vectors.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			inv := runService(t, sv.name, file)
			want := fmt.Sprintf("PASS RTL matches the reference on all %d vectors", len(recs))
			if inv.code != exitOK || !strings.Contains(inv.stdout, want) || strings.Contains(inv.stdout, "MISMATCH") {
				t.Fatalf("exit %d; want 0 and %q\nstdout:\n%s\nstderr:\n%s", inv.code, want, inv.stdout, inv.stderr)
			}
			if !regexp.MustCompile(`(?m)^  ok +[1-9]`).MatchString(inv.stdout) {
				t.Errorf("no record deserialized OK:\n%s", inv.stdout)
			}
		})
	}
}

// jsonLine is what the tests read of a --json line.
type jsonLine struct {
	Record     int             `json:"record"`
	Service    string          `json:"service"`
	Status     string          `json:"status"`
	Match      bool            `json:"match"`
	Expected   string          `json:"expected"`
	HeaderOnly bool            `json:"header_only"`
	Method     string          `json:"method"`
	SeqID      int32           `json:"seqid"`
	Offset     uint32          `json:"offset"`
	Args       json.RawMessage `json:"args"`
	Cycles     int             `json:"cycles"`
	HdrCycles  int             `json:"header_cycles"`
	Total      int             `json:"total"`
}

func jsonLines(t *testing.T, out string) []jsonLine {
	t.Helper()
	var ls []jsonLine
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var l jsonLine
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("bad JSON line %q: %v", line, err)
		}
		ls = append(ls, l)
	}
	return ls
}

// apacheArgs are Apache's generated args structs by method name, of every
// service of idl/ (the method names are distinct).
var apacheArgs = map[string]func() thrift.TStruct{
	"Set":               func() thrift.TStruct { return memcached.NewMemcachedServiceSetArgs() },
	"Get":               func() thrift.TStruct { return memcached.NewMemcachedServiceGetArgs() },
	"ComposeUniqueId":   func() thrift.TStruct { return unique_id.NewUniqueIdServiceComposeUniqueIdArgs() },
	"ComposeUrls":       func() thrift.TStruct { return url_shorten.NewUrlShortenServiceComposeUrlsArgs() },
	"GetExtendedUrls":   func() thrift.TStruct { return url_shorten.NewUrlShortenServiceGetExtendedUrlsArgs() },
	"StorePost":         func() thrift.TStruct { return post_storage.NewPostStorageServiceStorePostArgs() },
	"ReadPost":          func() thrift.TStruct { return post_storage.NewPostStorageServiceReadPostArgs() },
	"ReadPosts":         func() thrift.TStruct { return post_storage.NewPostStorageServiceReadPostsArgs() },
	"WriteUserTimeline": func() thrift.TStruct { return user_timeline.NewUserTimelineServiceWriteUserTimelineArgs() },
	"ReadUserTimeline":  func() thrift.TStruct { return user_timeline.NewUserTimelineServiceReadUserTimelineArgs() },
}

// TestRunServiceJSONMemcached compares the args of every OK record of the
// Memcached default vectors (binary key and value: base64) with what
// Apache's TSimpleJSONProtocol writes for the same message, and checks
// that a record whose method Apache does not know is reported with the
// reference's UNKNOWN_METHOD rather than dropped.
func TestRunServiceJSONMemcached(t *testing.T) {
	file := filepath.Join(checkout(t), "vectors", "default.vec")
	recs, err := vectors.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	inv := runService(t, "MemcachedService", "--json", file)
	if inv.code != exitOK {
		t.Fatalf("exit %d:\n%s", inv.code, inv.stderr)
	}
	lines := jsonLines(t, inv.stdout)
	if len(lines) != len(recs) {
		t.Fatalf("%d lines for %d records", len(lines), len(recs))
	}
	compared, unknown := 0, 0
	for i, l := range lines {
		if l.Record != i || l.Service != "MemcachedService" || l.Total != len(recs) {
			t.Fatalf("line %d: record %d, service %q, total %d", i, l.Record, l.Service, l.Total)
		}
		if strings.HasPrefix(l.Status, "ok") != (l.Args != nil) {
			t.Errorf("record %d: status %s with args %s: want args exactly when ok", i, l.Status, l.Args)
		}
		// Every record's header is recv_header's, before any args' walk.
		if l.HdrCycles <= 0 || l.Cycles < l.HdrCycles || l.HeaderOnly == (l.Cycles > l.HdrCycles) {
			t.Errorf("record %d: cycles %d, header_cycles %d, header_only %v: want header cycles, and more exactly when the args were walked",
				i, l.Cycles, l.HdrCycles, l.HeaderOnly)
		}
		name, typ, _, want := apacheRead(recs[i].Msg)
		// A strict CALL header (version 0x8001) naming a method the
		// service does not have: recv_header's UNKNOWN_METHOD, as the
		// reference's, and no args walked.
		strict := bytes.HasPrefix(recs[i].Msg, []byte{0x80, 0x01})
		if strict && typ == thrift.CALL && name != "Set" && name != "Get" {
			unknown++
			if l.Status != "UNKNOWN_METHOD" || !l.HeaderOnly || !l.Match {
				t.Errorf("record %d (method %q): status %s, header_only %v, match %v; want UNKNOWN_METHOD, true, true", i, name, l.Status, l.HeaderOnly, l.Match)
			}
		}
		if l.Status != "ok" {
			continue
		}
		if l.Method != name {
			t.Errorf("record %d: method %q, Apache reads %q", i, l.Method, name)
		}
		if want == nil {
			t.Errorf("record %d: OK but Apache cannot read its args", i)
			continue
		}
		compared++
		if !bytes.Equal(l.Args, want) {
			t.Errorf("record %d: args\n %s\nApache's TSimpleJSONProtocol:\n %s", i, l.Args, want)
		}
	}
	if compared == 0 || unknown == 0 {
		t.Errorf("%d records' args compared, %d with an unknown method: want some of each", compared, unknown)
	}
}

// apacheJSON decodes msg with Apache's binary protocol and generated args
// struct and writes the args with Apache's TSimpleJSONProtocol. It returns
// the method name and seqid Apache read and the JSON; a header Apache
// refuses gives "", and a method none of idl/'s services has, or args
// Apache cannot read, nil JSON.
func apacheJSON(msg []byte) (string, int32, []byte) {
	name, _, seqid, js := apacheRead(msg)
	return name, seqid, js
}

// apacheRead is apacheJSON with the message type Apache read.
func apacheRead(msg []byte) (string, thrift.TMessageType, int32, []byte) {
	ctx := context.Background()
	in := thrift.NewTMemoryBuffer()
	in.Buffer = bytes.NewBuffer(msg)
	bp := thrift.NewTBinaryProtocolConf(in, nil)
	name, typ, seqid, err := bp.ReadMessageBegin(ctx)
	if err != nil {
		return "", 0, 0, nil
	}
	mk, ok := apacheArgs[name]
	if !ok {
		return name, typ, seqid, nil
	}
	args := mk()
	if args.Read(ctx, bp) != nil {
		return name, typ, seqid, nil
	}
	out := thrift.NewTMemoryBuffer()
	p := thrift.NewTSimpleJSONProtocolConf(out, nil)
	if args.Write(ctx, p) != nil || p.Flush(ctx) != nil {
		return name, typ, seqid, nil
	}
	return name, typ, seqid, out.Bytes()
}

// callMsg is a CALL of method with args, written by Apache's binary
// protocol.
func callMsg(t *testing.T, method string, seqid int32, args thrift.TStruct) []byte {
	t.Helper()
	buf := thrift.NewTMemoryBuffer()
	msg, err := vectors.EncodeMessage(thrift.NewTBinaryProtocolConf(buf, nil), buf, method, thrift.CALL, seqid, args)
	if err != nil {
		t.Fatal(err)
	}
	return msg
}

// TestRunServiceJSONArgs runs requests of the four DeathStarBench services
// made with Apache's generated structs (maps of at most one entry: Apache
// writes a Go map in random order) and compares each line's args with
// Apache's TSimpleJSONProtocol output of the message, decoded again by
// Apache.
func TestRunServiceJSONArgs(t *testing.T) {
	carrier := map[string]string{"uber-trace-id": "4bf92f3577b34da6"}
	post := &social_network.Post{
		PostID: -7, Creator: &social_network.Creator{UserID: 42, Username: "ana"}, ReqID: 9,
		Text:         "<b>caf\u00e9</b> & \"quotes\" \u2603",
		UserMentions: []*social_network.UserMention{{UserID: 1, Username: "bo"}, {UserID: 2}},
		Media:        []*social_network.Media{{MediaID: 3, MediaType: "png"}},
		Urls:         []*social_network.URL{{ShortenedURL: "http://s/1", ExpandedURL: "http://example.com/a?b=c"}},
		Timestamp:    1 << 40, PostType: social_network.PostType_REPLY,
	}
	cases := []struct {
		service string
		msgs    [][]byte
	}{
		{"UniqueIdService", [][]byte{
			callMsg(t, "ComposeUniqueId", 1, &unique_id.UniqueIdServiceComposeUniqueIdArgs{ReqID: 5, PostType: social_network.PostType_DM, Carrier: carrier}),
			callMsg(t, "ComposeUniqueId", 2, &unique_id.UniqueIdServiceComposeUniqueIdArgs{ReqID: -1, Carrier: map[string]string{}}),
		}},
		{"UrlShortenService", [][]byte{
			callMsg(t, "ComposeUrls", 3, &url_shorten.UrlShortenServiceComposeUrlsArgs{ReqID: 1, Urls: []string{"http://a/", "", "http://b/\u00fc"}, Carrier: carrier}),
			callMsg(t, "GetExtendedUrls", 4, &url_shorten.UrlShortenServiceGetExtendedUrlsArgs{ReqID: 2, ShortenedUrls: []string{}}),
		}},
		{"PostStorageService", [][]byte{
			callMsg(t, "StorePost", 5, &post_storage.PostStorageServiceStorePostArgs{ReqID: 7, Post: post, Carrier: carrier}),
			callMsg(t, "ReadPosts", 6, &post_storage.PostStorageServiceReadPostsArgs{ReqID: 8, PostIds: []int64{3, -3, 3}}),
			callMsg(t, "ReadPost", 7, &post_storage.PostStorageServiceReadPostArgs{ReqID: 9, PostID: 1 << 62, Carrier: carrier}),
		}},
		{"UserTimelineService", [][]byte{
			callMsg(t, "WriteUserTimeline", 8, &user_timeline.UserTimelineServiceWriteUserTimelineArgs{ReqID: 1, PostID: 2, UserID: 3, Timestamp: 4, Carrier: carrier}),
			callMsg(t, "ReadUserTimeline", 9, &user_timeline.UserTimelineServiceReadUserTimelineArgs{ReqID: 1, UserID: 3, Start: 0, Stop: -1}),
		}},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.service, func(t *testing.T) {
			var recs []vectors.Record
			for i, m := range c.msgs {
				recs = append(recs, vectors.Record{Source: fmt.Sprintf("test/%d", i), Msg: m})
			}
			file := writeVec(t, filepath.Join(dir, c.service+".vec"), recs...)
			inv := runService(t, c.service, "--json", file)
			if inv.code != exitOK {
				t.Fatalf("exit %d:\n%s", inv.code, inv.stderr)
			}
			lines := jsonLines(t, inv.stdout)
			if len(lines) != len(c.msgs) {
				t.Fatalf("%d lines for %d records:\n%s", len(lines), len(c.msgs), inv.stdout)
			}
			for i, l := range lines {
				name, seqid, want := apacheJSON(c.msgs[i])
				if want == nil {
					t.Fatalf("record %d: Apache cannot read its own message", i)
				}
				// The whole message is the args: OK at its end.
				if l.Status != "ok" || !l.Match || l.Method != name || l.SeqID != seqid || l.Offset != uint32(len(c.msgs[i])) {
					t.Errorf("record %d: status %s, match %v, method %q, seqid %d, offset %d; want ok, true, %q, %d, %d",
						i, l.Status, l.Match, l.Method, l.SeqID, l.Offset, name, seqid, len(c.msgs[i]))
				}
				if !bytes.Equal(l.Args, want) {
					t.Errorf("record %d (%s): args\n %s\nApache's TSimpleJSONProtocol:\n %s", i, name, l.Args, want)
				}
			}
		})
	}
}

// TestRunServiceMismatch runs UniqueIdService's vectors on the model of
// another service, whose tables differ: every record must fail with the
// run's failure report (file, record, recv_header's ports that differ,
// waveform, replay line) and exit status 1.
func TestRunServiceMismatch(t *testing.T) {
	root := checkout(t)
	other, err := schemasvc.PairCase("PostStorageService")
	if err != nil {
		t.Fatal(err)
	}
	lib, err := other.Build(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "vectors", "default-unique_id.vec")
	waves := t.TempDir()
	inv := runService(t, "UniqueIdService", "--record", "0", "--model", lib, "--wave", waves, "--run-id", "t1", file)
	if inv.code != exitFindings {
		t.Fatalf("exit %d; want %d\nstdout:\n%s\nstderr:\n%s", inv.code, exitFindings, inv.stdout, inv.stderr)
	}
	wave := filepath.Join(waves, "default-unique_id-r0-v0-t1.fst")
	replay := fmt.Sprintf("replay:   arcalis run --service UniqueIdService --record 0 --model %s --wave %s %s", lib, waves, file)
	for _, want := range []string{
		"MISMATCH " + file + " record 0 (gen/UniqueIdService): RTL ",
		// The other service's recv_header knows no UniqueIdService method.
		"\n    recv_header code_o UNKNOWN_METHOD, want OK\n    recv_header offset_o 4, want 27\n",
		"waveform: " + wave, replay, "FAIL 1 of 1 vectors disagree",
	} {
		if !strings.Contains(inv.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, inv.stdout)
		}
	}
	if fi, err := os.Stat(wave); err != nil || fi.Size() == 0 {
		t.Errorf("waveform %s: %v", wave, err)
	}
	if !strings.Contains(inv.stderr, "1 of 1 vectors: RTL and reference disagree") {
		t.Errorf("stderr:\n%s", inv.stderr)
	}
}

func TestRunServiceErrors(t *testing.T) {
	root := checkout(t)
	good := filepath.Join(root, "vectors", "default-unique_id.vec")
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	// A byte of the first record's message flipped: its CRC fails.
	bad := filepath.Join(t.TempDir(), "corrupt.vec")
	recs, err := vectors.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, recs[0].Msg)
	if i < 0 {
		t.Fatal("the first record's message is not in the file")
	}
	data[i+20] ^= 0xFF
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"Bogus", good}, `run: --service: no service "Bogus" in idl/: want one of MemcachedService, UniqueIdService, UrlShortenService, PostStorageService, UserTimelineService`},
		{[]string{"UniqueIdService", "--mem-latency", "8", good}, "run: --mem-latency does not apply with --service UniqueIdService"},
		{[]string{"UniqueIdService", good, "--seed", "3"}, "run: --seed does not apply with --service UniqueIdService"},
		{[]string{"UniqueIdService", "--offset", "3", good}, "run: --offset does not apply"},
		{[]string{"UniqueIdService", "--jobs", "0", good}, "run: --jobs 0: want 1..1024"},
		{[]string{"UniqueIdService", "--shard", "3/2", good}, `run: --shard "3/2": want i/n with 1 <= i <= n`},
		{[]string{"UniqueIdService", "--timeout", "0s", "--jobs", "2", good}, "run: --timeout 0s: want more than 0"},
		{[]string{"UniqueIdService", "--cap-lines", "1", good}, "run: --cap-lines 1: want 2..65535 with --service"},
		{[]string{"UniqueIdService", "--record", "64", good}, "--record 64: the file has 64 records"},
		{[]string{"UniqueIdService", "--model", "/nonexistent/lib.so", good}, "run: --model /nonexistent/lib.so"},
		{[]string{"UniqueIdService", bad}, "run: " + bad + ": record 0"},
	} {
		inv := runService(t, c.args[0], c.args[1:]...)
		if inv.code != exitError || !strings.Contains(inv.stderr, c.want) || inv.stdout != "" {
			t.Errorf("arcalis run --service %v: exit %d, stdout %q, stderr %q; want exit %d, no stdout and %q",
				c.args, inv.code, inv.stdout, inv.stderr, exitError, c.want)
		}
	}
}
