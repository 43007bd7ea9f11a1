package serve

import (
	"context"
	"sync"
	"time"
)

// MaxRelativeExptime is memcached's boundary between relative and absolute
// expiration times: up to 30 days (2,592,000 seconds) an exptime counts from
// now, above it is a Unix time.
const MaxRelativeExptime = 2_592_000

// Store is the business logic: a key-value store with memcached's item
// semantics. Flags are kept with the item; exptime is 0 for never, 1 to
// MaxRelativeExptime seconds from now, a Unix time above that, and already
// expired when negative. Time comes from the clock it was made with, so
// tests can move it. It is safe for concurrent use.
type Store struct {
	now   func() time.Time
	mu    sync.Mutex
	items map[string]item
}

type item struct {
	value   []byte
	flags   int32
	expires int64 // Unix second from which the item is gone; 0: never
}

// Item is what Lookup returns of a live item.
type Item struct {
	Value []byte // never nil for a stored item: an empty value is not a missing one
	Flags int32
}

// NewStore returns an empty store reading time from now (nil: time.Now).
func NewStore(now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{now: now, items: map[string]item{}}
}

// Set stores value under key with flags, expiring as exptime says. It copies
// key and value.
func (s *Store) Set(key, value []byte, flags, exptime int32) {
	now := s.now().Unix()
	it := item{value: append(make([]byte, 0, len(value)), value...), flags: flags}
	switch {
	case exptime < 0:
		it.expires = now // memcached: a negative exptime is immediately expired
	case exptime == 0:
	case exptime <= MaxRelativeExptime:
		it.expires = now + int64(exptime)
	default:
		it.expires = int64(exptime)
	}
	s.mu.Lock()
	s.items[string(key)] = it
	s.mu.Unlock()
}

// Lookup returns the live item under key; an expired one is dropped.
func (s *Store) Lookup(key []byte) (Item, bool) {
	now := s.now().Unix()
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok := s.items[string(key)]
	if !ok {
		return Item{}, false
	}
	if it.expires != 0 && it.expires <= now {
		delete(s.items, string(key))
		return Item{}, false
	}
	return Item{Value: it.value, Flags: it.flags}, true
}

// Len is the number of items stored, expired ones not yet dropped included.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.items)
}

// Handler is the store behind the generated MemcachedService interface: the
// same business logic for this server's software path and for Apache's own
// server in the load comparison.
type Handler struct{ Store *Store }

// Set stores the item; it never fails.
func (h Handler) Set(_ context.Context, _ int64, key, value []byte, flags, exptime int32) error {
	h.Store.Set(key, value, flags, exptime)
	return nil
}

// Get returns the value, or nil (Thrift's unset result: the client reads
// nil) for a missing or expired key.
func (h Handler) Get(_ context.Context, _ int64, key []byte) ([]byte, error) {
	it, ok := h.Store.Lookup(key)
	if !ok {
		return nil, nil
	}
	return it.Value, nil
}
