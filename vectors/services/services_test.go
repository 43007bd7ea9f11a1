package services

import (
	"bytes"
	"context"
	"reflect"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/internal/post_storage"
	"arcalis/internal/unique_id"
	"arcalis/internal/url_shorten"
	"arcalis/internal/user_timeline"
	"arcalis/vectors"
)

// decode reads msg as a service's Apache server does: the header, then the
// named method's generated args struct. It returns the args and the bytes
// left over.
func decode(t *testing.T, service string, msg []byte) (name string, seq int32, args thrift.TStruct, left int) {
	t.Helper()
	ctx := context.Background()
	buf := thrift.NewTMemoryBuffer()
	buf.Write(msg)
	p := thrift.NewTBinaryProtocolConf(buf, nil)
	name, typ, seq, err := p.ReadMessageBegin(ctx)
	if err != nil || typ != thrift.CALL {
		t.Fatalf("%s: header: %v, type %v", service, err, typ)
	}
	for _, m := range byService[service] {
		if m.name == name {
			// A fresh struct of the type the method's maker returns.
			args = reflect.New(reflect.TypeOf(m.args(&Generator{}, 0)).Elem()).Interface().(thrift.TStruct)
		}
	}
	if args == nil {
		t.Fatalf("%s: method %q is not the service's", service, name)
	}
	if err := args.Read(ctx, p); err != nil {
		t.Fatalf("%s.%s: Apache cannot read the args: %v", service, name, err)
	}
	return name, seq, args, buf.Len()
}

// reencode writes args back with Apache's generated writer.
func reencode(t *testing.T, name string, seq int32, args thrift.TStruct) []byte {
	t.Helper()
	g, _ := New("UniqueIdService", 0)
	b, err := g.encode(name, seq, args)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sizes collects what the size rules promise, for one request.
type sizes struct {
	lists    []int
	carrier  int
	text     int
	hasText  bool
	nestedOK bool
}

func sizesOf(args thrift.TStruct) sizes {
	var s sizes
	switch a := args.(type) {
	case *unique_id.UniqueIdServiceComposeUniqueIdArgs:
		s.carrier = len(a.Carrier)
	case *url_shorten.UrlShortenServiceComposeUrlsArgs:
		s.lists, s.carrier = []int{len(a.Urls)}, len(a.Carrier)
	case *url_shorten.UrlShortenServiceGetExtendedUrlsArgs:
		s.lists, s.carrier = []int{len(a.ShortenedUrls)}, len(a.Carrier)
	case *post_storage.PostStorageServiceStorePostArgs:
		p := a.Post
		s.lists, s.carrier, s.text, s.hasText = []int{len(p.UserMentions), len(p.Urls), len(p.Media)}, len(a.Carrier), len(p.Text), true
		s.nestedOK = p.Creator != nil
	case *post_storage.PostStorageServiceReadPostArgs:
		s.carrier = len(a.Carrier)
	case *post_storage.PostStorageServiceReadPostsArgs:
		s.lists, s.carrier = []int{len(a.PostIds)}, len(a.Carrier)
	case *user_timeline.UserTimelineServiceWriteUserTimelineArgs:
		s.carrier = len(a.Carrier)
	case *user_timeline.UserTimelineServiceReadUserTimelineArgs:
		s.lists, s.carrier = []int{int(a.Stop - a.Start)}, len(a.Carrier)
	}
	return s
}

// TestGenerate: every record of every service is one CALL that Apache's
// generated code reads whole, as the method its metadata names, with
// seqid and req_id its index + 1, and that Apache writes back to the same
// bytes; the sizes stay in their documented ranges and reach both ends.
func TestGenerate(t *testing.T) {
	const n = 1500
	for _, svc := range Names() {
		t.Run(svc, func(t *testing.T) {
			g, err := New(svc, 7)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := g.Generate(n)
			if err != nil {
				t.Fatal(err)
			}
			methods := map[string]int{}
			seenList, seenCarrier := map[int]bool{}, map[int]bool{}
			maxText := 0
			for i, rec := range recs {
				if err := vectors.CheckMessage(rec.Msg); err != nil {
					t.Fatalf("record %d: %v", i, err)
				}
				name, seq, args, left := decode(t, svc, rec.Msg)
				if left != 0 || name != rec.Meta["method"] || seq != int32(i+1) || rec.Meta["service"] != svc || rec.Meta["transport"] != "framed" {
					t.Fatalf("record %d: %s seqid %d, %d bytes left; metadata %v", i, name, seq, left, rec.Meta)
				}
				if req := reflect.ValueOf(args).Elem().FieldByName("ReqID").Int(); req != int64(i+1) {
					t.Errorf("record %d: req_id %d", i, req)
				}
				if back := reencode(t, name, seq, args); !bytes.Equal(back, rec.Msg) {
					t.Fatalf("record %d: Apache writes what it read as other bytes", i)
				}
				methods[name]++
				s := sizesOf(args)
				for _, l := range s.lists {
					if l < 0 || l > MaxList {
						t.Fatalf("record %d: a list of %d", i, l)
					}
					seenList[l] = true
				}
				if s.carrier > MaxCarrier {
					t.Fatalf("record %d: %d carrier entries", i, s.carrier)
				}
				seenCarrier[s.carrier] = true
				if s.hasText {
					if s.text > MaxText || !s.nestedOK {
						t.Fatalf("record %d: text of %d bytes, creator %v", i, s.text, s.nestedOK)
					}
					maxText = max(maxText, s.text)
				}
			}
			if len(methods) != len(byService[svc]) {
				t.Errorf("methods %v: want all %d of the service", methods, len(byService[svc]))
			}
			if !seenCarrier[0] || !seenCarrier[MaxCarrier] {
				t.Errorf("carrier sizes %v: want 0 and %d among them", seenCarrier, MaxCarrier)
			}
			if len(byService[svc]) > 1 || svc == "UrlShortenService" {
				long := 0
				for l := range seenList {
					long = max(long, l)
				}
				if !seenList[0] || long < 20 {
					t.Errorf("list lengths: 0 seen %v, longest %d: want empty lists and some of 20 or more", seenList[0], long)
				}
			}
			if svc == "PostStorageService" && maxText < MaxText-100 {
				t.Errorf("longest post text %d bytes: want near %d", maxText, MaxText)
			}
		})
	}
}

// TestSeeds: a seed gives the same bytes every time, another seed others.
func TestSeeds(t *testing.T) {
	gen := func(seed uint64) []vectors.Record {
		g, err := New("PostStorageService", seed)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := g.Generate(50)
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	a, b, c := gen(1), gen(1), gen(2)
	for i := range a {
		if !bytes.Equal(a[i].Msg, b[i].Msg) {
			t.Fatalf("record %d differs between two runs of seed 1", i)
		}
	}
	same := 0
	for i := range a {
		if bytes.Equal(a[i].Msg, c[i].Msg) {
			same++
		}
	}
	if same == len(a) {
		t.Error("seeds 1 and 2 gave the same records")
	}
	if _, err := New("NoSuchService", 1); err == nil {
		t.Error("New of an unknown service succeeded")
	}
}

// TestCommitted: the committed vectors/default-*.vec are what `make
// vectors` makes (64 requests, seed 1), record for record.
func TestCommitted(t *testing.T) {
	for svc, file := range map[string]string{
		"UniqueIdService": "unique_id", "UrlShortenService": "url_shorten",
		"PostStorageService": "post_storage", "UserTimelineService": "user_timeline",
	} {
		recs, err := vectors.ReadFile("../default-" + file + ".vec")
		if err != nil {
			t.Fatal(err)
		}
		g, err := New(svc, 1)
		if err != nil {
			t.Fatal(err)
		}
		want, err := g.Generate(64)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != len(want) {
			t.Fatalf("%s: %d records, want %d (run make vectors)", file, len(recs), len(want))
		}
		for i := range recs {
			if !bytes.Equal(recs[i].Msg, want[i].Msg) || recs[i].Meta["method"] != want[i].Meta["method"] {
				t.Fatalf("%s record %d differs from the generator's (run make vectors)", file, i)
			}
		}
	}
}
