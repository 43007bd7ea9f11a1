package main

import (
	"fmt"
	"slices"

	"arcalis/golden/schemagold"
)

// call is one request as the reference read it back: the method's name
// and its arguments.
type call struct {
	method string
	args   *schemagold.Struct
}

// results makes the result each request of a workload is answered with:
// an in-memory store per service, in the spirit of serve/schemasvc's
// business logic, run over the workload's requests in order. The default
// vectors ask for ids, keys and short URLs at random, which a real store
// would mostly not hold: such a request is answered with what the
// workload stores (its Set values, StorePost posts, ComposeUrls URLs and
// WriteUserTimeline entries), taken in turn, as if the store held them,
// so that every reply carries the data a hit would. resultDoc says what
// each method gets.
type results struct {
	turn int // the next pool entry to hand out

	values []string             // MemcachedService: every Set value
	kv     map[string]string    // key -> value, as Set stored it
	ids    int64                // UniqueIdService: the last id handed out
	urls   []string             // UrlShortenService: every URL ComposeUrls shortened
	long   map[string]string    // shortened -> expanded
	posts  []*schemagold.Struct // PostStorageService: every StorePost post
	byID   map[int64]*schemagold.Struct
	writes []timelineEntry // UserTimelineService: every WriteUserTimeline
}

type timelineEntry struct{ post, ts int64 }

// resultDoc says, per method, what the result is: for the report.
var resultDoc = map[string]string{
	"MemcachedService.Set":                  "void",
	"MemcachedService.Get":                  "success: the value Set stored under the key, else a Set value of the workload in turn",
	"UniqueIdService.ComposeUniqueId":       "success: an i64 id (1, 2, 3, ...)",
	"UrlShortenService.ComposeUrls":         "success: one Url per URL asked, shortened to `http://short-url/` and 10 characters",
	"UrlShortenService.GetExtendedUrls":     "success: per short URL the URL ComposeUrls shortened to it, else a URL of the workload's ComposeUrls in turn (else 70 bytes)",
	"PostStorageService.StorePost":          "void",
	"PostStorageService.ReadPost":           "success: the post StorePost stored under the id, else a StorePost post of the workload in turn with that id",
	"PostStorageService.ReadPosts":          "success: one post per id, as ReadPost",
	"UserTimelineService.WriteUserTimeline": "void",
	"UserTimelineService.ReadUserTimeline":  "success: stop - start entries (as if the timeline were that long), each a Post with post_id, creator.user_id and timestamp (as serve's logic writes them), from the workload's writes in turn",
}

// newResults collects the pools from the workload's calls.
func newResults(calls []call) *results {
	r := &results{kv: map[string]string{}, long: map[string]string{}, byID: map[int64]*schemagold.Struct{}}
	for _, c := range calls {
		a := c.args
		switch c.method {
		case "Set":
			r.values = append(r.values, argString(a, "value"))
		case "ComposeUrls":
			for _, u := range argList(a, "urls") {
				s, _ := u.(string)
				r.urls = append(r.urls, s)
			}
		case "StorePost":
			if p := argStruct(a, "post"); p != nil {
				r.posts = append(r.posts, p)
			}
		case "WriteUserTimeline":
			r.writes = append(r.writes, timelineEntry{argI64(a, "post_id"), argI64(a, "timestamp")})
		}
	}
	return r
}

// next is the index of the next pool entry of a pool of n.
func (r *results) next(n int) int {
	r.turn++
	return (r.turn - 1) % n
}

// result answers one call; every call goes through it, in order, as the
// stores change.
func (r *results) result(c call) (*schemagold.Struct, error) {
	a := c.args
	switch c.method {
	case "Set":
		r.kv[argString(a, "key")] = argString(a, "value")
		return void(), nil
	case "Get":
		v, ok := r.kv[argString(a, "key")]
		if !ok && len(r.values) > 0 {
			v = r.values[r.next(len(r.values))]
		}
		return success(v), nil
	case "ComposeUniqueId":
		r.ids++
		return success(r.ids), nil
	case "ComposeUrls":
		out := []any{}
		for _, u := range argList(a, "urls") {
			u, _ := u.(string)
			s := fmt.Sprintf("http://short-url/%010d", len(r.long)+1)
			r.long[s] = u
			out = append(out, &schemagold.Struct{Name: "Url", Fields: []schemagold.FieldValue{
				{ID: 1, Name: "shortened_url", Value: s}, {ID: 2, Name: "expanded_url", Value: u}}})
		}
		return success(out), nil
	case "GetExtendedUrls":
		out := []any{}
		for _, s := range argList(a, "shortened_urls") {
			s, _ := s.(string)
			u, ok := r.long[s]
			switch {
			case ok:
			case len(r.urls) > 0:
				u = r.urls[r.next(len(r.urls))]
			default:
				u = fmt.Sprintf("http://%063d", len(out))
			}
			out = append(out, u)
		}
		return success(out), nil
	case "StorePost":
		if p := argStruct(a, "post"); p != nil {
			r.byID[argI64(p, "post_id")] = p
		}
		return void(), nil
	case "ReadPost":
		return success(r.post(argI64(a, "post_id"))), nil
	case "ReadPosts":
		out := []any{}
		for _, id := range argList(a, "post_ids") {
			id, _ := id.(int64)
			out = append(out, r.post(id))
		}
		return success(out), nil
	case "WriteUserTimeline":
		return void(), nil
	case "ReadUserTimeline":
		u := argI64(a, "user_id")
		n := max(0, int(argI32(a, "stop"))-int(argI32(a, "start")))
		out := []any{}
		for i := range n {
			e := timelineEntry{post: int64(i + 1), ts: int64(i + 1)}
			if len(r.writes) > 0 {
				e = r.writes[r.next(len(r.writes))]
			}
			out = append(out, &schemagold.Struct{Name: "Post", Fields: []schemagold.FieldValue{
				{ID: 1, Name: "post_id", Value: e.post},
				{ID: 2, Name: "creator", Value: &schemagold.Struct{Name: "Creator", Fields: []schemagold.FieldValue{{ID: 1, Name: "user_id", Value: u}}}},
				{ID: 8, Name: "timestamp", Value: e.ts},
			}})
		}
		return success(out), nil
	}
	return nil, fmt.Errorf("no result for method %s", c.method)
}

// post is the post stored under id, else the workload's next post with
// its post_id set to id, else a post holding only the id.
func (r *results) post(id int64) *schemagold.Struct {
	if p, ok := r.byID[id]; ok {
		return p
	}
	p := &schemagold.Struct{Name: "Post"}
	if len(r.posts) > 0 {
		p.Fields = slices.Clone(r.posts[r.next(len(r.posts))].Fields)
	}
	for i, f := range p.Fields {
		if f.ID == 1 {
			p.Fields[i].Value = id
			return p
		}
	}
	p.Fields = append([]schemagold.FieldValue{{ID: 1, Name: "post_id", Value: id}}, p.Fields...)
	return p
}

func success(v any) *schemagold.Struct {
	return &schemagold.Struct{Fields: []schemagold.FieldValue{{ID: 0, Name: "success", Value: v}}}
}

func void() *schemagold.Struct { return &schemagold.Struct{} }

func get(s *schemagold.Struct, name string) any {
	if s == nil {
		return nil
	}
	v, _ := s.Get(name)
	return v
}

func argString(s *schemagold.Struct, name string) string {
	switch v := get(s, name).(type) {
	case string:
		return v
	case []byte:
		return string(v)
	}
	return ""
}

func argI64(s *schemagold.Struct, name string) int64 { v, _ := get(s, name).(int64); return v }
func argI32(s *schemagold.Struct, name string) int32 { v, _ := get(s, name).(int32); return v }
func argList(s *schemagold.Struct, name string) []any {
	v, _ := get(s, name).([]any)
	return v
}
func argStruct(s *schemagold.Struct, name string) *schemagold.Struct {
	v, _ := get(s, name).(*schemagold.Struct)
	return v
}
