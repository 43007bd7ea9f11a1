package schemasvc

import (
	"fmt"
	"slices"
	"time"

	"arcalis/golden/schemagold"
	"arcalis/serve"
)

// ErrHandler is the ServiceException error code the business logic
// throws: social_network_common's SE_THRIFT_HANDLER_ERROR.
const ErrHandler = int32(6)

// Short is the prefix of the URLs UrlShortenService hands out: the n-th
// distinct URL it shortens becomes Short + n (n from 1).
const Short = "http://short.arcalis/"

// logic is a service's business logic: it answers a call of a method with
// the arguments read back from App.Recv, giving the fields of the method's
// result struct (success, field 0, or an exception), or an error for a
// call it cannot answer (Apache's processor sends INTERNAL_ERROR for it).
// It runs on the model's goroutine only: no locks.
type logic interface {
	call(method string, args *schemagold.Struct) (*schemagold.Struct, error)
}

// newLogic is the business logic of the service named (the IDL's name).
func newLogic(service string, clock func() time.Time) (logic, error) {
	switch service {
	case "MemcachedService":
		return &memcachedLogic{store: serve.NewStore(clock)}, nil
	case "UniqueIdService":
		return &uniqueIDLogic{}, nil
	case "UrlShortenService":
		return &urlLogic{short: map[string]string{}, long: map[string]string{}}, nil
	case "PostStorageService":
		return &postLogic{posts: map[int64]*schemagold.Struct{}}, nil
	case "UserTimelineService":
		return &timelineLogic{lines: map[int64][]timelineEntry{}}, nil
	}
	return nil, fmt.Errorf("no business logic for service %q: want one of %v", service, Names())
}

// Names are the services Start serves: those of idl/.
func Names() []string {
	return []string{"MemcachedService", "UniqueIdService", "UrlShortenService", "PostStorageService", "UserTimelineService"}
}

// success is a result struct holding v as its success field.
func success(v any) *schemagold.Struct {
	return &schemagold.Struct{Fields: []schemagold.FieldValue{{ID: 0, Value: v}}}
}

// none is a result with no field: a void method's success, or the nil
// result Apache's Go server sends when a handler returns a nil []byte.
func none() *schemagold.Struct { return &schemagold.Struct{} }

// serviceException is a result struct holding the declared exception (field
// 1, se, in every method of idl/'s DeathStarBench services).
func serviceException(format string, a ...any) *schemagold.Struct {
	se := &schemagold.Struct{Name: "ServiceException", Fields: []schemagold.FieldValue{
		{ID: 1, Name: "errorCode", Value: ErrHandler},
		{ID: 2, Name: "message", Value: fmt.Sprintf(format, a...)},
	}}
	return &schemagold.Struct{Fields: []schemagold.FieldValue{{ID: 1, Value: se}}}
}

// Argument readers: an absent field reads as Apache's generated code
// leaves it, the Go zero value.
func argI64(s *schemagold.Struct, name string) int64 {
	v, _ := get(s, name).(int64)
	return v
}

func argI32(s *schemagold.Struct, name string) int32 {
	v, _ := get(s, name).(int32)
	return v
}

func argString(s *schemagold.Struct, name string) string {
	v, _ := get(s, name).(string)
	return v
}

func argList(s *schemagold.Struct, name string) []any {
	v, _ := get(s, name).([]any)
	return v
}

func argStruct(s *schemagold.Struct, name string) *schemagold.Struct {
	v, _ := get(s, name).(*schemagold.Struct)
	return v
}

func get(s *schemagold.Struct, name string) any {
	if s == nil {
		return nil
	}
	v, _ := s.Get(name)
	return v
}

// memcachedLogic is serve's store (memcached's item semantics). Get of a
// missing key returns nil, as serve's Memcached handler does: a result with
// no field, which Apache's Go client reads as a nil value.
type memcachedLogic struct{ store *serve.Store }

func (l *memcachedLogic) call(method string, a *schemagold.Struct) (*schemagold.Struct, error) {
	switch method {
	case "Set":
		l.store.Set([]byte(argString(a, "key")), []byte(argString(a, "value")), argI32(a, "flags"), argI32(a, "exptime"))
		return none(), nil
	case "Get":
		it, ok := l.store.Lookup([]byte(argString(a, "key")))
		if !ok {
			return none(), nil
		}
		return success(string(it.Value)), nil
	}
	return nil, fmt.Errorf("no method %s", method)
}

// uniqueIDLogic hands out ids 1, 2, 3, ... in the order the calls ran.
type uniqueIDLogic struct{ next int64 }

func (l *uniqueIDLogic) call(method string, _ *schemagold.Struct) (*schemagold.Struct, error) {
	if method != "ComposeUniqueId" {
		return nil, fmt.Errorf("no method %s", method)
	}
	l.next++
	return success(l.next), nil
}

// urlLogic shortens each distinct URL once, to Short + n, and expands the
// URLs it shortened; another shortened URL is a ServiceException.
type urlLogic struct {
	short map[string]string // expanded -> shortened
	long  map[string]string // shortened -> expanded
}

func (l *urlLogic) call(method string, a *schemagold.Struct) (*schemagold.Struct, error) {
	switch method {
	case "ComposeUrls":
		out := []any{}
		for _, u := range argList(a, "urls") {
			u, _ := u.(string)
			s, ok := l.short[u]
			if !ok {
				s = fmt.Sprintf("%s%d", Short, len(l.short)+1)
				l.short[u], l.long[s] = s, u
			}
			out = append(out, &schemagold.Struct{Name: "Url", Fields: []schemagold.FieldValue{
				{ID: 1, Name: "shortened_url", Value: s}, {ID: 2, Name: "expanded_url", Value: u}}})
		}
		return success(out), nil
	case "GetExtendedUrls":
		out := []any{}
		for _, s := range argList(a, "shortened_urls") {
			s, _ := s.(string)
			u, ok := l.long[s]
			if !ok {
				return serviceException("unknown shortened url %q", s), nil
			}
			out = append(out, u)
		}
		return success(out), nil
	}
	return nil, fmt.Errorf("no method %s", method)
}

// postLogic stores posts by post_id (a later one replaces) as read from
// App.Recv, and reads them back; a post id never stored is a
// ServiceException naming it.
type postLogic struct{ posts map[int64]*schemagold.Struct }

func (l *postLogic) call(method string, a *schemagold.Struct) (*schemagold.Struct, error) {
	switch method {
	case "StorePost":
		p := argStruct(a, "post")
		if p == nil {
			return serviceException("StorePost without a post"), nil
		}
		l.posts[argI64(p, "post_id")] = p
		return none(), nil
	case "ReadPost":
		id := argI64(a, "post_id")
		p, ok := l.posts[id]
		if !ok {
			return serviceException("post %d not found", id), nil
		}
		return success(p), nil
	case "ReadPosts":
		out := []any{}
		for _, id := range argList(a, "post_ids") {
			id, _ := id.(int64)
			p, ok := l.posts[id]
			if !ok {
				return serviceException("post %d not found", id), nil
			}
			out = append(out, p)
		}
		return success(out), nil
	}
	return nil, fmt.Errorf("no method %s", method)
}

// timelineLogic keeps each user's timeline: WriteUserTimeline adds a post,
// ReadUserTimeline returns entries [start, stop) of the timeline newest
// first (by timestamp, and for equal timestamps the later write first),
// the bounds clipped to the timeline; each as a Post with post_id,
// timestamp and creator.user_id set.
type timelineLogic struct {
	lines  map[int64][]timelineEntry
	writes int
}

type timelineEntry struct {
	post, ts int64
	seq      int // the write's number: newer first among equal timestamps
}

func (l *timelineLogic) call(method string, a *schemagold.Struct) (*schemagold.Struct, error) {
	switch method {
	case "WriteUserTimeline":
		u := argI64(a, "user_id")
		l.writes++
		l.lines[u] = append(l.lines[u], timelineEntry{argI64(a, "post_id"), argI64(a, "timestamp"), l.writes})
		return none(), nil
	case "ReadUserTimeline":
		u := argI64(a, "user_id")
		line := slices.Clone(l.lines[u])
		slices.SortFunc(line, func(x, y timelineEntry) int {
			if x.ts != y.ts {
				return cmpDesc(x.ts, y.ts)
			}
			return cmpDesc(int64(x.seq), int64(y.seq))
		})
		lo := min(max(int(argI32(a, "start")), 0), len(line))
		hi := min(max(int(argI32(a, "stop")), lo), len(line))
		out := []any{}
		for _, e := range line[lo:hi] {
			out = append(out, &schemagold.Struct{Name: "Post", Fields: []schemagold.FieldValue{
				{ID: 1, Name: "post_id", Value: e.post},
				{ID: 2, Name: "creator", Value: &schemagold.Struct{Name: "Creator", Fields: []schemagold.FieldValue{{ID: 1, Name: "user_id", Value: u}}}},
				{ID: 8, Name: "timestamp", Value: e.ts},
			}})
		}
		return success(out), nil
	}
	return nil, fmt.Errorf("no method %s", method)
}

func cmpDesc(x, y int64) int {
	switch {
	case x > y:
		return -1
	case x < y:
		return 1
	}
	return 0
}
