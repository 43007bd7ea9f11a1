// Package workload gives the benchmarks their requests: the memc-tiny,
// memc-small and etc mixes of vectors/workload, and Set messages of exact sizes.
package workload

import (
	"fmt"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/internal/memcached"
	"arcalis/vectors"
	vw "arcalis/vectors/workload"
)

// Request is one message for the receive path.
type Request struct {
	Msg    []byte
	Set    bool // a Set CALL (else a Get CALL)
	Offset int  // start offset within its line, 0..63
}

// Mix is a workload of vectors/workload at a share of Sets.
type Mix struct {
	Name     string
	SetShare float64
}

// Mixes are the three workloads of the benchmarks, each with half Sets and
// half Gets (the paper's mid write intensity for Memcached, Table V, and
// Dagger's write-intense set/get = 50%/50%); vectors/workload holds their
// key and value sizes and the sources of those.
var Mixes = []Mix{{"memc-tiny", 0.5}, {"memc-small", 0.5}, {"etc", 0.5}}

// MixByName returns the named mix.
func MixByName(name string) (Mix, error) {
	for _, m := range Mixes {
		if m.Name == name {
			return m, nil
		}
	}
	return Mix{}, fmt.Errorf("workload: no mix named %q", name)
}

// Generate returns n requests of the mix, the same for the same seed. Start
// offsets are the request's index mod 64, as `arcalis run` places them.
func (m Mix) Generate(n int, seed uint64) ([]Request, error) {
	g, err := vw.New(vw.Spec{Workload: m.Name, Count: n, Seed: seed, SetRatio: m.SetShare,
		Skew: vw.DefaultSkew, Keys: vw.DefaultKeys})
	if err != nil {
		return nil, fmt.Errorf("workload %s: %w", m.Name, err)
	}
	out := make([]Request, 0, n)
	for i := 0; ; i++ {
		rec, ok, err := g.Next()
		if err != nil {
			return nil, fmt.Errorf("workload %s: %w", m.Name, err)
		}
		if !ok {
			return out, nil
		}
		out = append(out, Request{Msg: rec.Msg, Set: rec.Meta["op"] == "Set", Offset: i % 64})
	}
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

// MaxValue is the longest value SetOfSize makes: 64 KiB.
const MaxValue = 65536

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
	buf := thrift.NewTMemoryBuffer()
	return vectors.EncodeMessage(vectors.StrictBinary(buf), buf, name, thrift.CALL, seq, args)
}
