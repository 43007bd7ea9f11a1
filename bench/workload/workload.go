// Package workload generates the Memcached Thrift requests the benchmarks
// run: the memc-tiny, memc-small and etc mixes and Set messages of exact sizes.
package workload

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/internal/memcached"
)

// Request is one message for the receive path.
type Request struct {
	Msg    []byte
	Set    bool // a Set CALL (else a Get CALL)
	Key    int  // key bytes
	Value  int  // value bytes (0 for a Get)
	Offset int  // start offset within its line, 0..63
}

// Mix is a workload: key and value size distributions and the share of Sets.
type Mix struct {
	Name     string
	SetShare float64 // fraction of requests that are Sets
	key      func(r *rand.Rand) int
	value    func(r *rand.Rand) int
	Source   string // where the sizes come from
}

// Value and key limits of the generated requests: memcached's longest key,
// and the largest value the default App.Recv capacity (1030 lines) holds.
const (
	MaxKey   = 250
	MaxValue = 65536
)

func fixed(n int) func(*rand.Rand) int { return func(*rand.Rand) int { return n } }

// Mixes are the three workloads of the benchmarks, each with half Sets and
// half Gets (the paper's mid write intensity for Memcached, Table V, and
// Dagger's write-intense set/get = 50%/50%).
//
//   - memc-tiny and memc-small: 8-byte keys with 8-byte values, and 16-byte
//     keys with 32-byte values (Dagger section 5, after MICA).
//   - etc: Facebook's ETC pool (Atikoglu et al., SIGMETRICS 2012, section 5):
//     key sizes from a generalized extreme value distribution (location
//     30.7984, scale 8.20449, shape 0.078688) and value sizes from a
//     generalized Pareto distribution (location 0, scale 214.476, shape
//     0.348238), rounded, keys clamped to 1..250 and values to 0..65536.
var Mixes = []Mix{
	{Name: "memc-tiny", SetShare: 0.5, key: fixed(8), value: fixed(8), Source: "Dagger: tiny, 8 B keys, 8 B values"},
	{Name: "memc-small", SetShare: 0.5, key: fixed(16), value: fixed(32), Source: "Dagger: small, 16 B keys, 32 B values"},
	{Name: "etc", SetShare: 0.5, key: etcKey, value: etcValue, Source: "Facebook ETC (Atikoglu et al. 2012): GEV keys, generalized Pareto values"},
}

// MixByName returns the named mix.
func MixByName(name string) (Mix, error) {
	for _, m := range Mixes {
		if m.Name == name {
			return m, nil
		}
	}
	return Mix{}, fmt.Errorf("workload: no mix named %q", name)
}

// etcKey draws from GEV(30.7984, 8.20449, 0.078688) by inversion.
func etcKey(r *rand.Rand) int {
	const mu, sigma, xi = 30.7984, 8.20449, 0.078688
	u := r.Float64()
	for u == 0 {
		u = r.Float64()
	}
	x := mu + sigma*(math.Pow(-math.Log(u), -xi)-1)/xi
	return clamp(int(math.Round(x)), 1, MaxKey)
}

// etcValue draws from GPD(0, 214.476, 0.348238) by inversion.
func etcValue(r *rand.Rand) int {
	const sigma, xi = 214.476, 0.348238
	u := r.Float64()
	x := sigma * (math.Pow(1-u, -xi) - 1) / xi
	return clamp(int(math.Round(x)), 0, MaxValue)
}

func clamp(v, lo, hi int) int { return max(lo, min(hi, v)) }

// Generate returns n requests of the mix, the same for the same seed. Start
// offsets are the request's index mod 64, as `arcalis run` places them.
func (m Mix) Generate(n int, seed uint64) ([]Request, error) {
	r := rand.New(rand.NewPCG(seed, 0x5ca1ab1e))
	out := make([]Request, 0, n)
	for i := 0; i < n; i++ {
		req := Request{Set: r.Float64() < m.SetShare, Key: m.key(r), Offset: i % 64}
		key := randomBytes(r, req.Key)
		var err error
		if req.Set {
			req.Value = m.value(r)
			req.Msg, err = EncodeSet(int32(i+1), &memcached.MemcachedServiceSetArgs{
				ReqID: r.Int64(), Key: key, Value: randomBytes(r, req.Value),
				Flags: r.Int32(), Exptime: r.Int32N(86400),
			})
		} else {
			req.Msg, err = EncodeGet(int32(i+1), &memcached.MemcachedServiceGetArgs{ReqID: r.Int64(), Key: key})
		}
		if err != nil {
			return nil, fmt.Errorf("workload %s: request %d: %w", m.Name, i, err)
		}
		out = append(out, req)
	}
	return out, nil
}

// Sets returns only the Set requests of reqs.
func Sets(reqs []Request) []Request {
	var out []Request
	for _, r := range reqs {
		if r.Set {
			out = append(out, r)
		}
	}
	return out
}

func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// SetOfSize returns a Set CALL of exactly size bytes (at least MinSetSize):
// an 8-byte key, every field present, and the value filling the rest.
func SetOfSize(size int, seq int32) ([]byte, error) {
	if size < MinSetSize || size-MinSetSize > MaxValue {
		return nil, fmt.Errorf("workload: Set of %d bytes: want %d..%d", size, MinSetSize, MinSetSize+MaxValue)
	}
	value := make([]byte, size-MinSetSize)
	for i := range value {
		value[i] = byte(i*7 + 1)
	}
	msg, err := EncodeSet(seq, &memcached.MemcachedServiceSetArgs{
		ReqID: int64(seq) * 1000003, Key: []byte("key:0001"), Value: value, Flags: 7, Exptime: 60,
	})
	if err == nil && len(msg) != size {
		err = fmt.Errorf("workload: Set encoded to %d bytes, want %d", len(msg), size)
	}
	return msg, err
}

// MinSetSize is the size of a Set CALL with an 8-byte key and an empty value:
// 15 header bytes, req_id 11, key 7+8, value 7, flags 7, exptime 7, STOP 1.
const MinSetSize = 63

// EncodeSet serializes a Set CALL as an Apache Thrift client does (binary
// protocol, strict write).
func EncodeSet(seq int32, args *memcached.MemcachedServiceSetArgs) ([]byte, error) {
	return encode("Set", seq, args)
}

// EncodeGet serializes a Get CALL the same way.
func EncodeGet(seq int32, args *memcached.MemcachedServiceGetArgs) ([]byte, error) {
	return encode("Get", seq, args)
}

func encode(name string, seq int32, args thrift.TStruct) ([]byte, error) {
	ctx := context.Background()
	buf := thrift.NewTMemoryBuffer()
	p := thrift.NewTBinaryProtocolConf(buf, &thrift.TConfiguration{TBinaryStrictWrite: thrift.BoolPtr(true)})
	if err := p.WriteMessageBegin(ctx, name, thrift.CALL, seq); err != nil {
		return nil, fmt.Errorf("encoding %s: %w", name, err)
	}
	if err := args.Write(ctx, p); err != nil {
		return nil, fmt.Errorf("encoding %s: %w", name, err)
	}
	if err := p.WriteMessageEnd(ctx); err != nil {
		return nil, fmt.Errorf("encoding %s: %w", name, err)
	}
	if err := p.Flush(ctx); err != nil {
		return nil, fmt.Errorf("encoding %s: %w", name, err)
	}
	return append([]byte(nil), buf.Bytes()...), nil
}
