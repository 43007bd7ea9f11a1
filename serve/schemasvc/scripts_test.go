package schemasvc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/internal/memcached"
	"arcalis/internal/post_storage"
	"arcalis/internal/social_network"
	"arcalis/internal/unique_id"
	"arcalis/internal/url_shorten"
	"arcalis/internal/user_timeline"
)

// A script calls every method of a service with Apache's generated client,
// round r on a server whose state holds rounds 0 to r-1 only, and checks
// each reply against what docs/serve.md's business rules give, worked out
// here. perRound counts its calls per method and thrown its calls answered
// with the declared exception.
type script struct {
	round    func(t *testing.T, tr thrift.TTransport, pf thrift.TProtocolFactory, r int)
	perRound map[string]int
	thrown   map[string]int
}

var scripts = map[string]script{
	"MemcachedService":    {memcachedRound, map[string]int{"Set": 4, "Get": 5}, nil},
	"UniqueIdService":     {uniqueIDRound, map[string]int{"ComposeUniqueId": 4}, nil},
	"UrlShortenService":   {urlRound, map[string]int{"ComposeUrls": 3, "GetExtendedUrls": 2}, map[string]int{"GetExtendedUrls": 1}},
	"PostStorageService":  {postRound, map[string]int{"StorePost": 3, "ReadPost": 3, "ReadPosts": 2}, map[string]int{"ReadPost": 1, "ReadPosts": 1}},
	"UserTimelineService": {timelineRound, map[string]int{"WriteUserTimeline": 5, "ReadUserTimeline": 5}, nil},
}

var ctx = context.Background()

// carrier is a tracing context, different per call.
func carrier(r, i int) map[string]string {
	return map[string]string{"trace-id": fmt.Sprintf("%d-%d", r, i), "span": "x"}
}

// wantServiceException wants err to be the ServiceException the business
// logic throws: SE_THRIFT_HANDLER_ERROR with msg.
func wantServiceException(t *testing.T, what string, err error, msg string) {
	t.Helper()
	var se *social_network.ServiceException
	if !errors.As(err, &se) || se.ErrorCode != social_network.ErrorCode_SE_THRIFT_HANDLER_ERROR || se.Message != msg {
		t.Errorf("%s: error %v; want ServiceException SE_THRIFT_HANDLER_ERROR %q", what, err, msg)
	}
}

func memcachedRound(t *testing.T, tr thrift.TTransport, pf thrift.TProtocolFactory, r int) {
	c := memcached.NewMemcachedServiceClientFactory(tr, pf)
	k1, k2 := fmt.Appendf(nil, "key-%d", r), fmt.Appendf(nil, "bin\x00key-%d", r)
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	get := func(key, want []byte) {
		t.Helper()
		v, err := c.Get(ctx, int64(r), key)
		if err != nil || !bytes.Equal(v, want) || v == nil {
			t.Errorf("round %d: Get(%q) = %q, %v; want %q", r, key, v, err, want)
		}
	}
	for _, e := range []error{
		c.Set(ctx, 1, k1, []byte("first"), 7, 0),
		c.Set(ctx, 2, k2, all, 0, 0),
	} {
		if e != nil {
			t.Fatalf("round %d: Set: %v", r, e)
		}
	}
	get(k1, []byte("first"))
	get(k2, all)
	if err := c.Set(ctx, 3, k1, []byte("second"), 0, 0); err != nil {
		t.Fatal(err)
	}
	get(k1, []byte("second"))
	// A missing key is nil (no field 0), an empty value is not.
	if v, err := c.Get(ctx, int64(r), []byte("never-set")); err != nil || v != nil {
		t.Errorf("round %d: Get of a missing key = %q (nil %v), %v; want nil", r, v, v == nil, err)
	}
	if err := c.Set(ctx, 4, k2, []byte{}, 0, 0); err != nil {
		t.Fatal(err)
	}
	get(k2, []byte{})
}

func uniqueIDRound(t *testing.T, tr thrift.TTransport, pf thrift.TProtocolFactory, r int) {
	c := unique_id.NewUniqueIdServiceClientFactory(tr, pf)
	for i, pt := range []social_network.PostType{social_network.PostType_POST, social_network.PostType_REPOST, social_network.PostType_REPLY, social_network.PostType_DM} {
		id, err := c.ComposeUniqueId(ctx, int64(100*r+i), pt, carrier(r, i))
		// Ids are 1, 2, 3, ... in call order; each round makes 4 calls.
		if want := int64(4*r + i + 1); err != nil || id != want {
			t.Errorf("round %d call %d: ComposeUniqueId = %d, %v; want %d", r, i, id, err, want)
		}
	}
}

func urlRound(t *testing.T, tr thrift.TTransport, pf thrift.TProtocolFactory, r int) {
	c := url_shorten.NewUrlShortenServiceClientFactory(tr, pf)
	a, b, d := fmt.Sprintf("https://a.example/%d", r), fmt.Sprintf("https://b.example/%d?q=1", r), fmt.Sprintf("https://d.example/%d/long/path", r)
	// Each round shortens 3 new URLs: the n-th distinct one is Short+n.
	short := func(k int) string { return fmt.Sprintf("http://short.arcalis/%d", 3*r+k) }
	got, err := c.ComposeUrls(ctx, 1, []string{a, b, a}, carrier(r, 0))
	want := []*social_network.URL{{ShortenedURL: short(1), ExpandedURL: a}, {ShortenedURL: short(2), ExpandedURL: b}, {ShortenedURL: short(1), ExpandedURL: a}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("round %d: ComposeUrls = %v, %v; want %v", r, got, err, want)
	}
	got, err = c.ComposeUrls(ctx, 2, []string{d}, nil)
	if want := []*social_network.URL{{ShortenedURL: short(3), ExpandedURL: d}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("round %d: ComposeUrls = %v, %v; want %v", r, got, err, want)
	}
	got, err = c.ComposeUrls(ctx, 3, nil, nil)
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("round %d: ComposeUrls of none = %v, %v; want an empty list", r, got, err)
	}
	long, err := c.GetExtendedUrls(ctx, 4, []string{short(3), short(1), short(2)}, carrier(r, 4))
	if want := []string{d, a, b}; err != nil || !reflect.DeepEqual(long, want) {
		t.Errorf("round %d: GetExtendedUrls = %q, %v; want %q", r, long, err, want)
	}
	_, err = c.GetExtendedUrls(ctx, 5, []string{short(1), "http://short.arcalis/999"}, nil)
	wantServiceException(t, fmt.Sprintf("round %d: GetExtendedUrls of an unknown url", r), err, `unknown shortened url "http://short.arcalis/999"`)
}

// post is a post with every field set; empty makes its lists empty.
func post(id int64, empty bool) *social_network.Post {
	p := &social_network.Post{
		PostID: id, Creator: &social_network.Creator{UserID: id * 10, Username: fmt.Sprintf("user-%d", id)}, ReqID: id + 1000,
		Text:         fmt.Sprintf("post %d: héllo, world", id),
		UserMentions: []*social_network.UserMention{{UserID: 1, Username: "a"}, {UserID: 2, Username: "bé"}},
		Media:        []*social_network.Media{{MediaID: 3, MediaType: "png"}},
		Urls:         []*social_network.URL{{ShortenedURL: "http://s/1", ExpandedURL: "https://example.com/1"}},
		Timestamp:    1_700_000_000 + id, PostType: social_network.PostType_DM,
	}
	if empty {
		p.UserMentions, p.Media, p.Urls = []*social_network.UserMention{}, []*social_network.Media{}, []*social_network.URL{}
		p.PostType = social_network.PostType_POST
	}
	return p
}

func postRound(t *testing.T, tr thrift.TTransport, pf thrift.TProtocolFactory, r int) {
	c := post_storage.NewPostStorageServiceClientFactory(tr, pf)
	id1, id2 := int64(10*r+1), int64(10*r+2)
	p1, p2, p1b := post(id1, false), post(id2, true), post(id1, true)
	for i, p := range []*social_network.Post{p1, p2, p1b} { // p1b replaces p1: same id
		if err := c.StorePost(ctx, int64(i), p, carrier(r, i)); err != nil {
			t.Fatalf("round %d: StorePost(%d): %v", r, p.PostID, err)
		}
	}
	got, err := c.ReadPost(ctx, 4, id2, nil)
	if err != nil || !reflect.DeepEqual(got, p2) {
		t.Errorf("round %d: ReadPost(%d) = %+v, %v; want %+v", r, id2, got, err, p2)
	}
	got, err = c.ReadPost(ctx, 5, id1, nil)
	if err != nil || !reflect.DeepEqual(got, p1b) {
		t.Errorf("round %d: ReadPost(%d) = %+v, %v; want the later post %+v", r, id1, got, err, p1b)
	}
	_, err = c.ReadPost(ctx, 6, int64(10*r+9), nil)
	wantServiceException(t, fmt.Sprintf("round %d: ReadPost of a missing post", r), err, fmt.Sprintf("post %d not found", 10*r+9))
	list, err := c.ReadPosts(ctx, 7, []int64{id2, id1, id2}, carrier(r, 7))
	if want := []*social_network.Post{p2, p1b, p2}; err != nil || !reflect.DeepEqual(list, want) {
		t.Errorf("round %d: ReadPosts = %v, %v; want %v", r, list, err, want)
	}
	_, err = c.ReadPosts(ctx, 8, []int64{id1, id1 + 7, id1 + 8}, nil)
	wantServiceException(t, fmt.Sprintf("round %d: ReadPosts with missing posts", r), err, fmt.Sprintf("post %d not found", 10*r+8))
}

// timelinePost is a timeline entry as ReadUserTimeline returns it: post_id,
// timestamp and creator.user_id set, every other field Apache's zero value.
func timelinePost(id, user, ts int64) *social_network.Post {
	return &social_network.Post{PostID: id, Creator: &social_network.Creator{UserID: user}, Timestamp: ts,
		UserMentions: []*social_network.UserMention{}, Media: []*social_network.Media{}, Urls: []*social_network.URL{}}
}

func timelineRound(t *testing.T, tr thrift.TTransport, pf thrift.TProtocolFactory, r int) {
	c := user_timeline.NewUserTimelineServiceClientFactory(tr, pf)
	u, v := int64(100*r+7), int64(100*r+8)
	for i, w := range []struct{ post, user, ts int64 }{
		{1, u, 100}, {2, u, 300}, {3, u, 200}, {4, v, 50}, {5, u, 300},
	} {
		if err := c.WriteUserTimeline(ctx, int64(i), w.post, w.user, w.ts, carrier(r, i)); err != nil {
			t.Fatalf("round %d: WriteUserTimeline: %v", r, err)
		}
	}
	// Newest first; 5 and 2 share a timestamp, 5 was written later.
	line := []*social_network.Post{timelinePost(5, u, 300), timelinePost(2, u, 300), timelinePost(3, u, 200), timelinePost(1, u, 100)}
	for _, q := range []struct {
		user        int64
		start, stop int32
		want        []*social_network.Post
	}{
		{u, 0, 10, line},
		{u, 1, 3, line[1:3]},
		{u, 3, 1, line[:0]},
		{u, -5, 2, line[:2]},
		{v, 0, 1, []*social_network.Post{timelinePost(4, v, 50)}},
	} {
		got, err := c.ReadUserTimeline(ctx, 9, q.user, q.start, q.stop, nil)
		if err != nil || !reflect.DeepEqual(got, q.want) {
			t.Errorf("round %d: ReadUserTimeline(%d, %d, %d) = %v, %v; want %v", r, q.user, q.start, q.stop, got, err, q.want)
		}
	}
}
