package schemagold_test

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"testing"

	"arcalis/golden/schemagold"
)

// The fuzz targets give Serialize any image for any method of a service:
//
//	go test ./golden/schemagold -run '^$' -fuzz FuzzSchemagoldRespPostStorage -fuzztime 60s
//
// method picks the method (one past the last: an unknown one); the image is
// padded with zeros to a multiple of 64 bytes, at least MinCapacity.
func FuzzSchemagoldRespMemcached(f *testing.F)    { fuzzResp(f, "MemcachedService") }
func FuzzSchemagoldRespUniqueId(f *testing.F)     { fuzzResp(f, "UniqueIdService") }
func FuzzSchemagoldRespUrlShorten(f *testing.F)   { fuzzResp(f, "UrlShortenService") }
func FuzzSchemagoldRespPostStorage(f *testing.F)  { fuzzResp(f, "PostStorageService") }
func FuzzSchemagoldRespUserTimeline(f *testing.F) { fuzzResp(f, "UserTimelineService") }

func fuzzResp(f *testing.F, name string) {
	svc := serviceNamed(name)
	tab := svc.table(f)
	for _, s := range respSeeds(f, svc) {
		f.Add(s.img, s.method, s.seq)
	}
	f.Fuzz(func(t *testing.T, in []byte, method uint8, seq int32) {
		n := min(max(schemagold.MinCapacity, (len(in)+63)/64*64), schemagold.MaxCapacity)
		img := make([]byte, n)
		copy(img, in)
		mi := int(method) % (len(tab.Methods) + 1)
		reply, code, off := schemagold.Serialize(tab, img[:n:n], mi, seq)
		if mi == len(tab.Methods) && code != schemagold.CodeUnknownMethod {
			t.Fatalf("method %d of %d: %v", mi, len(tab.Methods), code)
		}
		if (code == schemagold.CodeRespOK) != (reply != nil) || off < 0 || (code == schemagold.CodeRespOK && off != len(reply)) || (code != schemagold.CodeRespOK && off >= n) {
			t.Fatalf("Serialize: %v at %d with %d reply bytes", code, off, len(reply))
		}
		// Nothing at or past the area end is read.
		if h, _ := schemagold.ParseRespHeader(img); code != schemagold.CodeRespBadImage && code != schemagold.CodeUnknownMethod && int(h.AreaEnd) <= n {
			other := append([]byte{}, img...)
			for i := int(h.AreaEnd); i < n; i++ {
				other[i] ^= 0x5A
			}
			r2, c2, o2 := schemagold.Serialize(tab, other, mi, seq)
			if c2 != code || o2 != off || !bytes.Equal(r2, reply) {
				t.Fatalf("bytes past the area end %d change the result: %v at %d, then %v at %d", h.AreaEnd, code, off, c2, o2)
			}
		}
		if code != schemagold.CodeRespOK {
			return
		}
		m := tab.Methods[mi]
		got, gotSeq, res, err := apacheReadReply(svc, reply)
		if err != nil || got != m.Name || gotSeq != seq {
			t.Fatalf("Apache reads %q seqid %d: %v\n% x", got, gotSeq, err, reply)
		}
		// Apache writes back what it read byte for byte: the reply is in
		// the canonical form of its generated code.
		if again := apacheReply(t, m.Name, seq, res); !bytes.Equal(again, reply) {
			t.Fatalf("Apache reads the reply and writes\n% x\nthe reply was\n% x", again, reply)
		}
	})
}

type respSeed struct {
	img    []byte
	method uint8
	seq    int32
}

// respSeeds are BuildResp's images of random results of every method (every
// success and exception case), and some with a byte changed.
func respSeeds(tb testing.TB, svc *service) []respSeed {
	tab := svc.table(tb)
	rng := rand.New(rand.NewPCG(23, uint64(len(svc.name))))
	var out []respSeed
	for mi, m := range tab.Methods {
		fields := tab.StructFields(m.Result)
		cases := len(fields)
		if len(fields) == 0 || fields[0].Name != "success" {
			cases++
		}
		for k := range cases {
			for i := range 3 {
				res := results[svc.name][m.Name]()
				randResult(rng, tab, mi, k, res, small)
				vals := apacheStruct(tab, m.Result, reflect.ValueOf(res).Elem(), func() bool { return rng.IntN(2) == 0 })
				seq := int32(rng.Uint32())
				img, err := schemagold.BuildResp(tab, mi, seq, vals)
				if err != nil {
					tb.Fatal(err)
				}
				out = append(out, respSeed{img, uint8(mi), seq})
				if i == 1 {
					c := append([]byte{}, img...)
					c[64+rng.IntN(len(c)-64)] ^= byte(1 + rng.IntN(255))
					out = append(out, respSeed{c, uint8(mi), seq})
				}
			}
		}
	}
	return append(out, respSeed{nil, 0, 0}, respSeed{nil, uint8(len(tab.Methods)), 0})
}
