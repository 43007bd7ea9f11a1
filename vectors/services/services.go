// Package services generates vector records of the DeathStarBench
// social-network services the Arcalís paper evaluates (UniqueId,
// UrlShorten, PostStorage, UserTimeline): CALLs of every method with
// realistic argument sizes, serialized by Apache Thrift's generated Go code
// (internal/, make thrift-gen) as the services' threaded servers receive
// them (binary protocol, framed transport: the records hold the message,
// the frame removed, and say "transport": "framed").
//
// Sizes, per request (the ranges; the distributions are this
// package's choice, stated so a reader can judge them):
//   - list lengths 0..64: 0 with probability 1/8, else 1 + a geometric
//     count of mean 4, capped at 64, so that long lists are rare but come;
//   - carrier maps of 0..8 tracing entries (uniform): keys "uber-trace-id"
//     and "uberctx-k" (k = 1..7), values of 16..64 hex digits, as Jaeger's
//     propagation writes them, in key order (sortedMaps);
//   - post text 0..1,024 bytes (uniform), with a mention "@username_N" and
//     a URL per user mention and URL in the lists, as compose-post writes it;
//   - URLs of 20..120 bytes ("http://" and letters), shortened URLs of
//     "http://short-url/" and 10 letters, usernames "username_N".
package services

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/internal/post_storage"
	"arcalis/internal/social_network"
	"arcalis/internal/splitmix"
	"arcalis/internal/unique_id"
	"arcalis/internal/url_shorten"
	"arcalis/internal/user_timeline"
	"arcalis/vectors"
)

// A method is one RPC of a service: its name and a maker of its arguments.
type method struct {
	name string
	args func(g *Generator, req int64) thrift.TStruct
}

// byService lists the methods of each service (idl/*.thrift); requests
// choose among them uniformly.
var byService = map[string][]method{
	"UniqueIdService": {
		{"ComposeUniqueId", func(g *Generator, req int64) thrift.TStruct {
			return &unique_id.UniqueIdServiceComposeUniqueIdArgs{ReqID: req, PostType: g.postType(), Carrier: g.carrier()}
		}},
	},
	"UrlShortenService": {
		{"ComposeUrls", func(g *Generator, req int64) thrift.TStruct {
			return &url_shorten.UrlShortenServiceComposeUrlsArgs{ReqID: req, Urls: g.strings(g.url), Carrier: g.carrier()}
		}},
		{"GetExtendedUrls", func(g *Generator, req int64) thrift.TStruct {
			return &url_shorten.UrlShortenServiceGetExtendedUrlsArgs{ReqID: req, ShortenedUrls: g.strings(g.shortURL), Carrier: g.carrier()}
		}},
	},
	"PostStorageService": {
		{"StorePost", func(g *Generator, req int64) thrift.TStruct {
			return &post_storage.PostStorageServiceStorePostArgs{ReqID: req, Post: g.post(req), Carrier: g.carrier()}
		}},
		{"ReadPost", func(g *Generator, req int64) thrift.TStruct {
			return &post_storage.PostStorageServiceReadPostArgs{ReqID: req, PostID: g.id(), Carrier: g.carrier()}
		}},
		{"ReadPosts", func(g *Generator, req int64) thrift.TStruct {
			return &post_storage.PostStorageServiceReadPostsArgs{ReqID: req, PostIds: g.ids(), Carrier: g.carrier()}
		}},
	},
	"UserTimelineService": {
		{"WriteUserTimeline", func(g *Generator, req int64) thrift.TStruct {
			return &user_timeline.UserTimelineServiceWriteUserTimelineArgs{ReqID: req, PostID: g.id(), UserID: g.id(),
				Timestamp: g.timestamp(), Carrier: g.carrier()}
		}},
		{"ReadUserTimeline", func(g *Generator, req int64) thrift.TStruct {
			start := int32(g.rng.Intn(100))
			return &user_timeline.UserTimelineServiceReadUserTimelineArgs{ReqID: req, UserID: g.id(),
				Start: start, Stop: start + int32(g.listLen()), Carrier: g.carrier()}
		}},
	},
}

// Names lists the services, sorted.
func Names() []string {
	var out []string
	for s := range byService {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// MaxList is the longest list, MaxCarrier the most carrier entries.
const (
	MaxList    = 64
	MaxCarrier = 8
	MaxText    = 1024
)

// Generator makes the requests of one service from a seed.
type Generator struct {
	service string
	rng     splitmix.Source
	buf     *thrift.TMemoryBuffer
	prot    thrift.TProtocol
}

// New returns a generator of service's requests (one of Names).
func New(service string, seed uint64) (*Generator, error) {
	if _, ok := byService[service]; !ok {
		return nil, fmt.Errorf("services: unknown service %q (one of %v)", service, Names())
	}
	buf := thrift.NewTMemoryBuffer()
	return &Generator{service: service, rng: splitmix.Source(seed), buf: buf, prot: &sortedMaps{TProtocol: vectors.StrictBinary(buf)}}, nil
}

// sortedMaps writes each map<string,string> (the carriers, the services'
// only maps) in key order: Apache's generated writer ranges over a Go map,
// whose order changes from run to run, and a seed must give the same bytes.
type sortedMaps struct {
	thrift.TProtocol
	inMap   bool
	pending []string // key, value, key, value, ...
}

func (p *sortedMaps) WriteMapBegin(ctx context.Context, k, v thrift.TType, size int) error {
	if k != thrift.STRING || v != thrift.STRING || p.inMap {
		return fmt.Errorf("services: a map<%v,%v> (only flat map<string,string> is written sorted)", k, v)
	}
	p.inMap, p.pending = true, p.pending[:0]
	return p.TProtocol.WriteMapBegin(ctx, k, v, size)
}

func (p *sortedMaps) WriteString(ctx context.Context, s string) error {
	if p.inMap {
		p.pending = append(p.pending, s)
		return nil
	}
	return p.TProtocol.WriteString(ctx, s)
}

func (p *sortedMaps) WriteMapEnd(ctx context.Context) error {
	idx := make([]int, len(p.pending)/2)
	for i := range idx {
		idx[i] = 2 * i
	}
	sort.Slice(idx, func(a, b int) bool { return p.pending[idx[a]] < p.pending[idx[b]] })
	p.inMap = false
	for _, i := range idx {
		if err := errors.Join(p.TProtocol.WriteString(ctx, p.pending[i]), p.TProtocol.WriteString(ctx, p.pending[i+1])); err != nil {
			return err
		}
	}
	return p.TProtocol.WriteMapEnd(ctx)
}

// Generate returns n requests: record i is CALL seqid i+1 with req_id i+1,
// its metadata the service, the method and the transport.
func (g *Generator) Generate(n int) ([]vectors.Record, error) {
	ms := byService[g.service]
	recs := make([]vectors.Record, 0, n)
	for i := range n {
		m := ms[g.rng.Intn(len(ms))]
		req := int64(i + 1)
		msg, err := g.encode(m.name, int32(req), m.args(g, req))
		if err != nil {
			return nil, fmt.Errorf("services: %s record %d: %w", g.service, i, err)
		}
		recs = append(recs, vectors.Record{
			Source: "gen/" + g.service,
			Meta:   map[string]any{"service": g.service, "method": m.name, "transport": "framed"},
			Msg:    msg,
		})
	}
	return recs, nil
}

func (g *Generator) encode(method string, seqid int32, args thrift.TStruct) ([]byte, error) {
	return vectors.EncodeMessage(g.prot, g.buf, method, thrift.CALL, seqid, args)
}

// listLen is a list's length: 0 with probability 1/8, else 1 + a
// geometric count of mean 4, at most MaxList.
func (g *Generator) listLen() int {
	if g.rng.Intn(8) == 0 {
		return 0
	}
	n := 1
	for n < MaxList && g.rng.Intn(5) != 0 {
		n++
	}
	return n
}

func (g *Generator) letters(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(g.rng.Intn(26))
	}
	return string(b)
}

func (g *Generator) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[g.rng.Intn(16)]
	}
	return string(b)
}

// carrier is a tracing context of 0..MaxCarrier entries.
func (g *Generator) carrier() map[string]string {
	n := g.rng.Intn(MaxCarrier + 1)
	c := make(map[string]string, n)
	for i := range n {
		k := "uber-trace-id"
		if i > 0 {
			k = "uberctx-" + strconv.Itoa(i)
		}
		c[k] = g.hex(16 + g.rng.Intn(49))
	}
	return c
}

func (g *Generator) url() string      { return "http://" + g.letters(13+g.rng.Intn(101)) }
func (g *Generator) shortURL() string { return "http://short-url/" + g.letters(10) }
func (g *Generator) id() int64        { return int64(g.rng.Next() >> 1) }
func (g *Generator) timestamp() int64 { return 1_600_000_000_000 + int64(g.rng.Intn(1_000_000_000)) }

func (g *Generator) postType() social_network.PostType {
	return social_network.PostType(g.rng.Intn(4)) // POST, REPOST, REPLY, DM
}

func (g *Generator) strings(one func() string) []string {
	out := make([]string, g.listLen())
	for i := range out {
		out[i] = one()
	}
	return out
}

func (g *Generator) ids() []int64 {
	out := make([]int64, g.listLen())
	for i := range out {
		out[i] = g.id()
	}
	return out
}

// post is a composed post: its text holds a mention per user mention and
// each URL's shortened form, padded with words to its length.
func (g *Generator) post(req int64) *social_network.Post {
	p := &social_network.Post{PostID: g.id(), ReqID: req, Timestamp: g.timestamp(), PostType: g.postType(),
		Creator: &social_network.Creator{UserID: g.id(), Username: "username_" + strconv.Itoa(g.rng.Intn(1000))}}
	text := ""
	for range g.listLen() {
		u := &social_network.UserMention{UserID: g.id(), Username: "username_" + strconv.Itoa(g.rng.Intn(1000))}
		p.UserMentions = append(p.UserMentions, u)
		text += "@" + u.Username + " "
	}
	for range g.listLen() {
		u := &social_network.URL{ShortenedURL: g.shortURL(), ExpandedURL: g.url()}
		p.Urls = append(p.Urls, u)
		text += u.ShortenedURL + " "
	}
	for range g.listLen() {
		p.Media = append(p.Media, &social_network.Media{MediaID: g.id(), MediaType: []string{"png", "jpg", "gif", "mp4"}[g.rng.Intn(4)]})
	}
	want := g.rng.Intn(MaxText + 1)
	for len(text) < want {
		text += g.letters(1+g.rng.Intn(9)) + " "
	}
	if len(text) > MaxText {
		text = text[:MaxText]
	}
	p.Text = text
	return p
}
