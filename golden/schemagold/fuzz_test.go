package schemagold_test

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"testing"

	"arcalis/golden/schemagold"

	"github.com/apache/thrift/lib/go/thrift"
)

// The fuzz targets compare Deserialize with Apache's generated Go code on
// any input, one target per service:
//
//	go test ./golden/schemagold -run '^$' -fuzz FuzzSchemagoldPostStorage -fuzztime 60s
//
// lines picks the capacity: MaxCapacity when lines < 128, else
// MinCapacity + (lines-128) lines of 64 bytes.
func FuzzSchemagoldMemcached(f *testing.F)    { fuzzService(f, "MemcachedService") }
func FuzzSchemagoldUniqueId(f *testing.F)     { fuzzService(f, "UniqueIdService") }
func FuzzSchemagoldUrlShorten(f *testing.F)   { fuzzService(f, "UrlShortenService") }
func FuzzSchemagoldPostStorage(f *testing.F)  { fuzzService(f, "PostStorageService") }
func FuzzSchemagoldUserTimeline(f *testing.F) { fuzzService(f, "UserTimelineService") }

func fuzzService(f *testing.F, name string) {
	svc := serviceNamed(name)
	tab := svc.table(f)
	for _, s := range seeds(f, svc) {
		f.Add(s, uint8(0))
		f.Add(s, uint8(128+len(s)%8))
	}
	f.Fuzz(func(t *testing.T, msg []byte, lines uint8) {
		img, done := bigImage()
		defer done()
		if lines >= 128 {
			img = img[:schemagold.MinCapacity+64*int(lines-128)]
		}
		// Full slice expressions: a read past the message or a write past
		// the image panics instead of reaching the bytes beyond.
		msg, img = msg[:len(msg):len(msg)], img[:len(img):len(img)]
		r := schemagold.Deserialize(tab, msg, img)
		d, err := apacheDecode(svc, msg)
		compare(t, svc, msg, img, r, d, err)
	})
}

// compare checks one message by the rules of docs/abi.md section 12: when Apache
// decodes it, Deserialize returns OK with the same arguments and bytes
// consumed, unless the message meets a documented divergence, and then it
// returns that divergence's code: golden's header divergences (a non-strict
// header or version bits [15:8] set: BAD_VERSION; a message type other than
// CALL and ONEWAY: BAD_MSG_TYPE), more than MaxDepth levels
// (DEPTH_EXCEEDED), a container over MaxElements (TOO_MANY_ELEMENTS), an
// image too small (AREA_OVERFLOW: the same message in a MaxCapacity image
// then needs more than the capacity). When Apache fails, Deserialize does
// not return OK; a method the service lacks is UNKNOWN_METHOD.
func compare(t *testing.T, svc *service, msg, img []byte, r schemagold.Result, d decoded, err error) {
	t.Helper()
	tab := svc.table(t)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Logf("C=%d message (%d bytes) % x", len(img), len(msg), msg[:min(len(msg), 600)])
		t.Fatalf(format, args...)
	}
	strict := len(msg) >= 4 && msg[0] == 0x80 && msg[1] == 0x01 && msg[2] == 0
	if err != nil {
		if errors.Is(err, errUnknownMethod) && strict && (d.typ == thrift.CALL || d.typ == thrift.ONEWAY) && r.Code != schemagold.CodeUnknownMethod {
			fail("method %q: Deserialize says %v at %d, want UNKNOWN_METHOD", d.name, r.Code, r.Offset)
		}
		if r.Code == schemagold.CodeOK {
			fail("Deserialize says OK at %d; Apache fails: %v", r.Offset, err)
		}
		return
	}
	switch {
	case !strict:
		if r.Code != schemagold.CodeBadVersion || r.Offset != 0 {
			fail("non-strict header or version bits [15:8] set: Deserialize says %v at %d, want BAD_VERSION at 0", r.Code, r.Offset)
		}
		return
	case d.typ != thrift.CALL && d.typ != thrift.ONEWAY:
		if r.Code != schemagold.CodeBadMsgType || r.Offset != 0 {
			fail("message type %d: Deserialize says %v at %d, want BAD_MSG_TYPE at 0", d.typ, r.Code, r.Offset)
		}
		return
	}
	allowed := map[schemagold.Code]bool{}
	if d.maxDepth > schemagold.MaxDepth {
		allowed[schemagold.CodeDepthExceeded] = true
	}
	if d.maxCount > schemagold.MaxElements {
		allowed[schemagold.CodeTooManyElements] = true
	}
	if r.Code == schemagold.CodeAreaOverflow && len(img) < schemagold.MaxCapacity {
		big, done := bigImage()
		defer done()
		rb := schemagold.Deserialize(tab, msg, big)
		if rb.Code == schemagold.CodeOK && int(rb.AreaEnd) <= len(img) {
			fail("AREA_OVERFLOW at C=%d, but in a MaxCapacity image the area ends at %d", len(img), rb.AreaEnd)
		}
		compare(t, svc, msg, big, rb, d, nil)
		return
	}
	if r.Code == schemagold.CodeAreaOverflow { // MaxCapacity: no larger image to try
		return
	}
	if len(allowed) > 0 {
		if !allowed[r.Code] {
			fail("Apache decodes it (%d levels, %d elements at most); Deserialize says %v at %d, want one of %v",
				d.maxDepth, d.maxCount, r.Code, r.Offset, allowed)
		}
		return
	}
	if r.Code != schemagold.CodeOK {
		fail("Apache decodes it (%d levels, %d elements at most); Deserialize says %v at %d", d.maxDepth, d.maxCount, r.Code, r.Offset)
	}
	checkAgree(t, tab, d, r, img)
}

// seeds are messages of svc: Apache's encodings of random arguments of
// every method, with and without injected fields, cut short, corrupted,
// and hand-built ones at the limits.
func seeds(tb testing.TB, svc *service) [][]byte {
	tab := svc.table(tb)
	rng := rand.New(rand.NewPCG(7, uint64(len(svc.name))))
	var out [][]byte
	for mi, m := range tab.Methods {
		for i := range 12 {
			args := svc.args[m.Name]()
			randArgs(rng, tab, mi, args, small)
			var wrap func(thrift.TProtocol) thrift.TProtocol
			if i%2 == 1 {
				wrap = newInjector(rng, tab)
			}
			msg := encode(tb, m.Name, thrift.CALL, int32(i), args, wrap)
			out = append(out, msg)
			switch i % 4 {
			case 0:
				out = append(out, msg[:rng.IntN(len(msg))])
			case 1:
				c := append([]byte{}, msg...)
				c[rng.IntN(len(c))] ^= byte(1 + rng.IntN(255))
				out = append(out, c)
			}
		}
		out = append(out, limitSeeds(m.Name)...)
	}
	out = append(out, nil, []byte{0x80, 0x01}, head(0x80010001, "NoSuchMethod", 1).stop().b)
	return out
}

// FuzzSchemagoldReadBack gives ReadBack images of PostStorage (the service
// with the deepest arguments): ones Deserialize wrote, with bytes changed.
// ReadBack returns values or an error, never panics, and an image it reads
// whole reads the same again.
func FuzzSchemagoldReadBack(f *testing.F) {
	svc := serviceNamed("PostStorageService")
	tab := svc.table(f)
	for _, s := range seeds(f, svc) {
		img := make([]byte, 1<<14)
		if r := schemagold.Deserialize(tab, s, img); r.Code == schemagold.CodeOK && r.AreaEnd <= 4096 {
			f.Add(img[:4096])
		}
	}
	f.Fuzz(func(t *testing.T, img []byte) {
		n := max(schemagold.MinCapacity, (len(img)+63)/64*64)
		buf := make([]byte, n)
		copy(buf, img)
		m, err := schemagold.ReadBack(tab, buf[:n:n])
		if err != nil {
			return
		}
		again, err := schemagold.ReadBack(tab, buf)
		if err != nil || !reflect.DeepEqual(m, again) {
			t.Fatalf("a second ReadBack of the same image: %v", err)
		}
	})
}
