// Package workload generates vector records of Memcached request mixes: the datasets
// Dagger and Arcalís evaluate and Facebook's ETC, serialized by Apache Thrift's Go library.
package workload

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/internal/memcached"
	"arcalis/internal/splitmix"
	"arcalis/vectors"
)

// Workloads by name.
//
//   - memc-tiny, memc-small: the "tiny" (8-byte keys, 8-byte values) and
//     "small" (16-byte keys, 32-byte values) datasets Dagger (Lazarev et
//     al., ASPLOS 2021, section 6) and Arcalís compare Memcached on, after
//     MICA (Lim et al., NSDI 2014).
//   - etc: Facebook's ETC pool (Atikoglu et al., SIGMETRICS 2012): key and
//     value sizes from the published fits (dist.go).
//
// Key popularity is Zipf over the key ranks for all three, skew 0.99 by
// default (Dagger: "a Zipfian distribution (Atikoglu et al. 2012) with
// skewness of 0.99").
var workloads = map[string]struct {
	keySize   func(g *Generator, rank int) int
	valueSize func(g *Generator) int
	about     string
}{
	"memc-tiny": {
		keySize:   func(*Generator, int) int { return 8 },
		valueSize: func(*Generator) int { return 8 },
		about:     "8-byte keys, 8-byte values (Dagger/MICA tiny)",
	},
	"memc-small": {
		keySize:   func(*Generator, int) int { return 16 },
		valueSize: func(*Generator) int { return 32 },
		about:     "16-byte keys, 32-byte values (Dagger/MICA small)",
	},
	"etc": {
		keySize:   (*Generator).etcKeySize,
		valueSize: (*Generator).etcValueSize,
		about:     "Facebook ETC: GEV key sizes, generalized Pareto value sizes (Atikoglu et al. 2012)",
	},
}

// Names lists the workloads (About describes each).
func Names() []string {
	return []string{"memc-tiny", "memc-small", "etc"}
}

// About describes a workload in one line.
func About(name string) string { return workloads[name].about }

// Set ratios by name: the write intensities of the Arcalís evaluation
// (Table V, Memcached SET/GET: low 20/80, mid 50/50, high 80/20) and the
// two mixes of Dagger (read-intense 5/95, write-intense 50/50).
var namedRatios = map[string]float64{
	"low":  0.20,
	"mid":  0.50,
	"high": 0.80,
}

// ParseSetRatio reads a share of SET requests: "low", "mid", "high", a
// SET/GET pair such as "5/95" or "50/50", or a fraction such as "0.05".
func ParseSetRatio(s string) (float64, error) {
	if r, ok := namedRatios[strings.ToLower(s)]; ok {
		return r, nil
	}
	if a, b, ok := strings.Cut(s, "/"); ok {
		set, err1 := strconv.ParseFloat(a, 64)
		get, err2 := strconv.ParseFloat(b, 64)
		if err1 != nil || err2 != nil || set < 0 || get < 0 || set+get <= 0 || math.IsInf(set+get, 0) {
			return 0, fmt.Errorf("set ratio %q: want SET/GET as two numbers >= 0, e.g. 5/95", s)
		}
		return set / (set + get), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 1 || math.IsNaN(f) {
		return 0, fmt.Errorf("set ratio %q: want low, mid, high, SET/GET (5/95) or a fraction in [0, 1]", s)
	}
	return f, nil
}

// Spec says what to generate.
type Spec struct {
	Workload string  // memc-tiny, memc-small or etc
	Count    int     // requests (with Sweep: Sets per value length)
	Seed     uint64  // same seed, same bytes
	SetRatio float64 // share of Set requests, 0..1 (ignored by Sweep)
	Skew     float64 // Zipf skew of key popularity
	Keys     int     // distinct keys
	Sweep    bool    // Sets only, value lengths SweepLengths() instead of the workload's
}

// Defaults.
const (
	DefaultSkew = 0.99
	// DefaultKeys is the key population. Dagger loads Memcached with 10 M
	// keys; a smaller default keeps the popularity table (8 bytes a key)
	// small, and --keys 10000000 gives Dagger's.
	DefaultKeys = 1_000_000
)

// SweepLengths are the value lengths of a sweep: 0, and one byte below, at
// and above every 64-byte line boundary up to 4 KiB (the App.Recv value
// region starts line-aligned, so these are the lengths where a value's last
// store crosses into a new line).
func SweepLengths() []int {
	ls := []int{0, 1}
	for b := 64; b <= 4096; b += 64 {
		ls = append(ls, b-1, b)
		if b < 4096 {
			ls = append(ls, b+1)
		}
	}
	return ls
}

// Generator makes the records of a Spec, one at a time.
type Generator struct {
	spec   Spec
	rng    splitmix.Source
	zipf   *Zipf
	sweep  []int
	n      int // records made
	total  int
	source string
	buf    *thrift.TMemoryBuffer
	prot   thrift.TProtocol
	keyBuf []byte
}

// New checks spec and returns its generator.
func New(spec Spec) (*Generator, error) {
	if _, ok := workloads[spec.Workload]; !ok {
		return nil, fmt.Errorf("unknown workload %q (want %s)", spec.Workload, strings.Join(Names(), ", "))
	}
	switch {
	case spec.Count < 1:
		return nil, fmt.Errorf("count %d: want at least 1", spec.Count)
	case spec.SetRatio < 0 || spec.SetRatio > 1 || math.IsNaN(spec.SetRatio):
		return nil, fmt.Errorf("set ratio %v: want 0..1", spec.SetRatio)
	case spec.Keys < 1:
		return nil, fmt.Errorf("keys %d: want at least 1", spec.Keys)
	case spec.Keys > 100_000_000:
		return nil, fmt.Errorf("keys %d: at most 100,000,000 (the popularity table takes 8 bytes a key)", spec.Keys)
	}
	z, err := NewZipf(spec.Keys, spec.Skew)
	if err != nil {
		return nil, err
	}
	g := &Generator{spec: spec, rng: splitmix.Source(spec.Seed), zipf: z, total: spec.Count}
	if spec.Sweep {
		g.sweep = SweepLengths()
		g.total = spec.Count * len(g.sweep)
	}
	g.source = fmt.Sprintf("gen/%s/seed-%d", spec.Workload, spec.Seed)
	g.buf = thrift.NewTMemoryBuffer()
	g.prot = thrift.NewTBinaryProtocolConf(g.buf, &thrift.TConfiguration{}) // strict write, as Apache's clients
	return g, nil
}

// Len is the number of records the generator makes.
func (g *Generator) Len() int { return g.total }

// Next returns the next record, or ok false after the last one.
func (g *Generator) Next() (rec vectors.Record, ok bool, err error) {
	if g.n >= g.total {
		return vectors.Record{}, false, nil
	}
	i := g.n
	g.n++
	w := workloads[g.spec.Workload]
	rank := g.zipf.Rank(g.rng.Float())
	key := g.key(rank, w.keySize(g, rank))
	seqid := int32(i + 1)
	meta := map[string]any{"op": "Set", "key_rank": rank}
	var msg []byte
	set := g.spec.Sweep || g.rng.Float() < g.spec.SetRatio
	if set {
		var vlen int
		if g.spec.Sweep {
			vlen = g.sweep[i/g.spec.Count]
		} else {
			vlen = w.valueSize(g)
		}
		args := memcached.NewMemcachedServiceSetArgs()
		args.ReqID, args.Key, args.Value = int64(i+1), key, randomBytes(&g.rng, vlen)
		args.Flags, args.Exptime = int32(g.rng.Next()), 0
		msg, err = g.encode("Set", seqid, args)
		meta["value_len"] = vlen
	} else {
		args := memcached.NewMemcachedServiceGetArgs()
		args.ReqID, args.Key = int64(i+1), key
		msg, err = g.encode("Get", seqid, args)
		meta["op"] = "Get"
	}
	if err != nil {
		return vectors.Record{}, false, fmt.Errorf("record %d: %w", i, err)
	}
	return vectors.Record{Source: g.source, Meta: meta, Msg: msg}, true, nil
}

func (g *Generator) encode(method string, seqid int32, args thrift.TStruct) ([]byte, error) {
	return vectors.EncodeMessage(g.prot, g.buf, method, thrift.CALL, seqid, args)
}

// key is the key of rank r, size bytes long: the rank in lowercase hex, a
// colon, then filler derived from the rank (so the same rank is always the
// same key). Keys of 1..7 bytes hold the rank's last hex digits (the
// memc workloads have 8 bytes or more, ETC keys under 8 bytes have a
// probability below 1e-9).
func (g *Generator) key(r, size int) []byte {
	k := g.keyBuf[:0]
	k = strconv.AppendInt(k, int64(r), 16)
	k = append(k, ':')
	f := splitmix.Source(uint64(r)*0x9e3779b97f4a7c15 ^ g.spec.Seed)
	for len(k) < size {
		k = append(k, 'a'+byte(f.Next()%26))
	}
	if len(k) > size {
		k = k[len(k)-size:]
	}
	g.keyBuf = k
	return append([]byte(nil), k...)
}

// etcKeySize is the size of the key of rank r: a property of the key,
// drawn once from the GEV by a generator seeded with the rank (so every
// request for a key carries the same key).
func (g *Generator) etcKeySize(r int) int {
	f := splitmix.Source(uint64(r)*0xbf58476d1ce4e5b9 ^ g.spec.Seed ^ 0x6b657973)
	for {
		u := f.Float()
		if u == 0 {
			continue
		}
		if k := math.Floor(ETCKeySize.Quantile(u) + 0.5); k >= 1 && k <= MaxKeySize {
			return int(k)
		}
	}
}

// etcValueSize draws one ETC value size: the small-size table with its
// probabilities, else the Pareto tail from 15 bytes up to 1 MiB.
func (g *Generator) etcValueSize() int {
	u := g.rng.Float()
	for k, p := range etcSmallValues {
		if u < p {
			return k
		}
		u -= p
	}
	d := ETCValueSize
	lo, hi := d.CDF(valueTailFrom), d.CDF(MaxValueSize)
	x := d.Quantile(lo + float64(g.rng.Float()*(hi-lo)))
	return min(int(math.Floor(x)), MaxValueSize-1)
}

// randomBytes packs eight bytes into each draw.
func randomBytes(s *splitmix.Source, n int) []byte {
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(b[i:], s.Next())
	}
	if r := n % 8; r > 0 {
		var t [8]byte
		binary.LittleEndian.PutUint64(t[:], s.Next())
		copy(b[n-r:], t[:r])
	}
	return b
}
