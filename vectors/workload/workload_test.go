package workload

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"arcalis/golden"
	"arcalis/internal/memcached"
	"arcalis/internal/splitmix"
	"arcalis/vectors"
)

// The statistical tests use a fixed seed, so each gives the same answer on
// every run. Each compares against the distribution written here from the
// published parameters (not against the package's constants) at
// significance level 0.001: a correct generator fails with probability
// 0.001 over the choice of seed, and each test also shows that it rejects
// a generator whose parameter is slightly wrong (the control), so it has
// the power to see an error.

// The published fits (Atikoglu et al., SIGMETRICS 2012, section 5).
const (
	pubKeyLoc, pubKeyScale, pubKeyShape = 30.7984, 8.20449, 0.078688
	pubValScale, pubValShape            = 214.476, 0.348238
)

// pubSmall: the published probabilities of value sizes 0..14 bytes.
var pubSmall = []float64{0.00536, 0.00047, 0.17820, 0.09239, 0.00018, 0.02740, 0.00065,
	0.00606, 0.00023, 0.00837, 0.00837, 0.08989, 0.00092, 0.00326, 0.01980}

func gevCDF(loc, scale, shape, x float64) float64 {
	t := 1 + shape*(x-loc)/scale
	if t <= 0 {
		return 0
	}
	return math.Exp(-math.Pow(t, -1/shape))
}

func gpCDF(scale, shape, x float64) float64 {
	if x <= 0 {
		return 0
	}
	return 1 - math.Pow(1+shape*x/scale, -1/shape)
}

// ksCritical is the Kolmogorov-Smirnov critical value at level alpha for n
// samples, from the limiting distribution: sqrt(-ln(alpha/2)/2)/sqrt(n)
// (1.949/sqrt(n) at 0.001; n is in the tens of thousands, where the
// limit is accurate to well under a percent).
func ksCritical(alpha float64, n int) float64 {
	return math.Sqrt(-math.Log(alpha/2)/2) / math.Sqrt(float64(n))
}

// ksStat is sup |F_n(x) - F(x)| of the samples against cdf.
func ksStat(xs []float64, cdf func(float64) float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := float64(len(s))
	var d float64
	for i, x := range s {
		f := cdf(x)
		d = max(d, math.Abs(float64(i+1)/n-f), math.Abs(f-float64(i)/n))
	}
	return d
}

// chi2Critical is the chi-square quantile 1-alpha for df degrees of freedom
// by the Wilson-Hilferty approximation, df (1 - 2/(9df) + z sqrt(2/(9df)))^3,
// z the standard normal quantile (3.0902 at alpha 0.001); relative error
// under 1% for df >= 10, which every test here has.
func chi2Critical(df int) float64 {
	const z = 3.090232 // Phi^-1(0.999)
	k := float64(df)
	return k * math.Pow(1-2/(9*k)+z*math.Sqrt(2/(9*k)), 3)
}

// chi2 bins observed counts against expected probabilities, merging
// neighbouring bins until each expects at least 5, and returns the
// statistic and the degrees of freedom.
func chi2(counts []int, probs []float64, n int) (stat float64, df int) {
	var obs, exp float64
	bins := 0
	flush := func() {
		stat += (obs - exp) * (obs - exp) / exp
		bins++
		obs, exp = 0, 0
	}
	for i := range counts {
		obs += float64(counts[i])
		exp += probs[i] * float64(n)
		if exp >= 5 {
			flush()
		}
	}
	if exp > 0 || obs > 0 { // the tail: merge into the last bin
		if exp == 0 {
			exp = 1e-9
		}
		flush()
	}
	return stat, bins - 1
}

func TestKeySizeDistribution(t *testing.T) {
	// KS: the continuous GEV draws (the quantile function the generator
	// uses, fed by its uniform source) against the published CDF.
	const n = 20000
	rng := splitmix.Source(42)
	xs := make([]float64, n)
	for i := range xs {
		u := rng.Float()
		for u == 0 {
			u = rng.Float()
		}
		xs[i] = ETCKeySize.Quantile(u)
	}
	crit := ksCritical(0.001, n)
	pub := func(x float64) float64 { return gevCDF(pubKeyLoc, pubKeyScale, pubKeyShape, x) }
	d := ksStat(xs, pub)
	t.Logf("key sizes: KS D = %.4f, critical %.4f (n %d)", d, crit, n)
	if d > crit {
		t.Errorf("key sizes: KS D = %.4f > %.4f against the published GEV", d, crit)
	}
	for _, ctl := range []struct {
		name              string
		loc, scale, shape float64
	}{
		{"location +0.5", pubKeyLoc + 0.5, pubKeyScale, pubKeyShape},
		{"scale x1.05", pubKeyLoc, pubKeyScale * 1.05, pubKeyShape},
		{"shape negated", pubKeyLoc, pubKeyScale, -pubKeyShape},
	} {
		if d := ksStat(xs, func(x float64) float64 { return gevCDF(ctl.loc, ctl.scale, ctl.shape, x) }); d <= crit {
			t.Errorf("control %s: KS D = %.4f, not rejected (<= %.4f): the test has no power", ctl.name, d, crit)
		}
	}

	// Chi-square: the integer key sizes the generator gives its keys
	// (nearest integer, 1..250) against the published GEV so discretized.
	g, err := New(Spec{Workload: "etc", Count: 1, Seed: 7, Keys: 1, Skew: DefaultSkew})
	if err != nil {
		t.Fatal(err)
	}
	const keys = 50000
	counts := make([]int, MaxKeySize+1)
	for r := 0; r < keys; r++ {
		counts[g.etcKeySize(r)]++
	}
	probsFor := func(loc, scale, shape float64) []float64 {
		p := make([]float64, MaxKeySize+1)
		mass := gevCDF(loc, scale, shape, 250.5) - gevCDF(loc, scale, shape, 0.5)
		for k := 1; k <= MaxKeySize; k++ {
			p[k] = (gevCDF(loc, scale, shape, float64(k)+0.5) - gevCDF(loc, scale, shape, float64(k)-0.5)) / mass
		}
		return p
	}
	stat, df := chi2(counts, probsFor(pubKeyLoc, pubKeyScale, pubKeyShape), keys)
	t.Logf("integer key sizes: chi-square %.1f, critical %.1f (df %d)", stat, chi2Critical(df), df)
	if c := chi2Critical(df); stat > c {
		t.Errorf("integer key sizes: chi-square %.1f > %.1f (df %d)", stat, c, df)
	}
	if s, df := chi2(counts, probsFor(pubKeyLoc+0.5, pubKeyScale, pubKeyShape), keys); s <= chi2Critical(df) {
		t.Errorf("control location +0.5: chi-square %.1f not rejected", s)
	}
}

// pubValueProbs is P(size = k) for k < limit under the published model as
// the generator applies it, and the mass at or above limit.
func pubValueProbs(scale, shape float64, limit int) []float64 {
	var small float64
	for _, p := range pubSmall {
		small += p
	}
	lo, hi := gpCDF(scale, shape, 15), gpCDF(scale, shape, MaxValueSize)
	p := make([]float64, limit+1)
	for k := 0; k < limit; k++ {
		if k < 15 {
			p[k] = pubSmall[k]
		} else {
			p[k] = (1 - small) * (gpCDF(scale, shape, float64(k+1)) - gpCDF(scale, shape, float64(k))) / (hi - lo)
		}
	}
	p[limit] = (1 - small) * (hi - gpCDF(scale, shape, float64(limit))) / (hi - lo)
	return p
}

func TestValueSizeDistribution(t *testing.T) {
	if got := smallValueMass(); math.Abs(got-0.44155) > 1e-12 {
		t.Errorf("the small-size table sums to %v, the published total is 0.44155", got)
	}
	for k, p := range pubSmall {
		if etcSmallValues[k] != p {
			t.Errorf("size %d: table holds %v, published %v", k, etcSmallValues[k], p)
		}
	}
	// KS on the continuous tail draws (sizes >= 15) against the published
	// Pareto restricted to [15, 1 MiB].
	const n = 20000
	rng := splitmix.Source(9)
	lo, hi := gpCDF(pubValScale, pubValShape, 15), gpCDF(pubValScale, pubValShape, MaxValueSize)
	d := ETCValueSize
	dlo, dhi := d.CDF(valueTailFrom), d.CDF(MaxValueSize)
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = d.Quantile(dlo + rng.Float()*(dhi-dlo))
	}
	tail := func(scale, shape float64) func(float64) float64 {
		l, h := gpCDF(scale, shape, 15), gpCDF(scale, shape, MaxValueSize)
		return func(x float64) float64 { return (gpCDF(scale, shape, x) - l) / (h - l) }
	}
	crit := ksCritical(0.001, n)
	ks := ksStat(xs, tail(pubValScale, pubValShape))
	t.Logf("value tail: KS D = %.4f, critical %.4f (n %d)", ks, crit, n)
	if ks > crit {
		t.Errorf("value tail: KS D = %.4f > %.4f (tail mass %.4f..%.4f)", ks, crit, lo, hi)
	}
	if ks := ksStat(xs, tail(pubValScale*1.05, pubValShape)); ks <= crit {
		t.Errorf("control scale x1.05: KS D = %.4f not rejected", ks)
	}

	// Chi-square on the integer sizes etcValueSize draws: sizes 0..14 one
	// bin each, then 30 bins of equal mass under the published tail (whole
	// bytes: a bin [a, b) holds the sizes a..b-1).
	g, err := New(Spec{Workload: "etc", Count: 1, Seed: 11, Keys: 1, Skew: DefaultSkew})
	if err != nil {
		t.Fatal(err)
	}
	const draws, tailBins = 100000, 30
	sizes := make([]int, draws)
	for i := range sizes {
		sizes[i] = g.etcValueSize()
	}
	binned := func(scale, shape float64) (counts []int, probs []float64) {
		var small float64
		for _, p := range pubSmall {
			small += p
		}
		l, h := gpCDF(scale, shape, 15), gpCDF(scale, shape, MaxValueSize)
		bounds := []float64{15}
		for j := 1; j < tailBins; j++ { // quantiles of the published tail, as whole bytes
			q := pubValScale * (math.Pow(1-(lo+float64(j)/tailBins*(hi-lo)), -pubValShape) - 1) / pubValShape
			bounds = append(bounds, math.Ceil(q))
		}
		bounds = append(bounds, MaxValueSize)
		probs = append(probs, pubSmall...)
		for j := 0; j+1 < len(bounds); j++ {
			probs = append(probs, (1-small)*(gpCDF(scale, shape, bounds[j+1])-gpCDF(scale, shape, bounds[j]))/(h-l))
		}
		counts = make([]int, len(probs))
		for _, v := range sizes {
			if v < 15 {
				counts[v]++
				continue
			}
			j := sort.SearchFloat64s(bounds, float64(v)+0.5) - 1 // bounds[j] <= v < bounds[j+1]
			counts[15+j]++
		}
		return counts, probs
	}
	counts, probs := binned(pubValScale, pubValShape)
	stat, df := chi2(counts, probs, draws)
	t.Logf("value sizes: chi-square %.1f, critical %.1f (df %d)", stat, chi2Critical(df), df)
	if c := chi2Critical(df); stat > c {
		t.Errorf("value sizes: chi-square %.1f > %.1f (df %d)", stat, c, df)
	}
	counts, probs = binned(pubValScale*1.1, pubValShape)
	if s, df := chi2(counts, probs, draws); s <= chi2Critical(df) {
		t.Errorf("control scale x1.1: chi-square %.1f not rejected", s)
	}
	// The package's own CDF (used in docs and reports) agrees with the model.
	for _, x := range []float64{0, 2, 14, 15, 100, 1000, 100000} {
		want := 0.0
		for k, p := range pubValueProbs(pubValScale, pubValShape, 200000) {
			if float64(k) <= x && k < 200000 {
				want += p
			}
		}
		if got := ValueSizeCDF(x); math.Abs(got-want) > 1e-9 {
			t.Errorf("ValueSizeCDF(%v) = %.12f, model %.12f", x, got, want)
		}
	}
}

func zipfProbs(n int, s float64) []float64 {
	p := make([]float64, n)
	var h float64
	for i := range p {
		p[i] = math.Pow(float64(i+1), -s)
		h += p[i]
	}
	for i := range p {
		p[i] /= h
	}
	return p
}

func TestZipfPopularity(t *testing.T) {
	// Chi-square over every rank of 1000 keys (200,000 draws: at least 28
	// expected in the least popular rank, so no bin is merged).
	const keys, draws = 1000, 200000
	for _, s := range []float64{0.99, 0.5, 1.2} {
		t.Run(fmt.Sprint("skew ", s), func(t *testing.T) {
			z, err := NewZipf(keys, s)
			if err != nil {
				t.Fatal(err)
			}
			rng := splitmix.Source(5)
			counts := make([]int, keys)
			for i := 0; i < draws; i++ {
				counts[z.Rank(rng.Float())]++
			}
			stat, df := chi2(counts, zipfProbs(keys, s), draws)
			t.Logf("chi-square %.1f, critical %.1f (df %d)", stat, chi2Critical(df), df)
			if c := chi2Critical(df); stat > c {
				t.Errorf("chi-square %.1f > %.1f (df %d)", stat, c, df)
			}
			for _, wrong := range []float64{s - 0.03, s + 0.03} {
				if st, df := chi2(counts, zipfProbs(keys, wrong), draws); st <= chi2Critical(df) {
					t.Errorf("control skew %.2f: chi-square %.1f not rejected", wrong, st)
				}
			}
		})
	}
}

// request is a generated record decoded by Apache's generated code.
type request struct {
	method string
	seqid  int32
	args   *memcached.MemcachedServiceSetArgs
	get    *memcached.MemcachedServiceGetArgs
}

func decode(t *testing.T, rec vectors.Record) request {
	t.Helper()
	ctx := context.Background()
	buf := &thrift.TMemoryBuffer{Buffer: bytes.NewBuffer(rec.Msg)}
	p := thrift.NewTBinaryProtocolConf(buf, &thrift.TConfiguration{})
	name, typ, seqid, err := p.ReadMessageBegin(ctx)
	if err != nil || typ != thrift.CALL {
		t.Fatalf("header: %v, type %v", err, typ)
	}
	r := request{method: name, seqid: seqid}
	switch name {
	case "Set":
		r.args = memcached.NewMemcachedServiceSetArgs()
		err = r.args.Read(ctx, p)
	case "Get":
		r.get = memcached.NewMemcachedServiceGetArgs()
		err = r.get.Read(ctx, p)
	default:
		t.Fatalf("method %q", name)
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

func generate(t *testing.T, spec Spec) []vectors.Record {
	t.Helper()
	g, err := New(spec)
	if err != nil {
		t.Fatal(err)
	}
	var recs []vectors.Record
	for {
		rec, ok, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		recs = append(recs, rec)
	}
	if len(recs) != g.Len() {
		t.Fatalf("%d records, Len says %d", len(recs), g.Len())
	}
	return recs
}

// binomialOK: k of n within 3.29 standard deviations of n p (two-sided 0.001).
func binomialOK(k, n int, p float64) bool {
	sd := math.Sqrt(float64(n) * p * (1 - p))
	return math.Abs(float64(k)-float64(n)*p) <= 3.2905*sd+1e-9
}

func TestWorkloads(t *testing.T) {
	tests := []struct {
		spec         Spec
		keyLen, vLen int // 0: not fixed
	}{
		{Spec{Workload: "memc-tiny", Count: 4000, Seed: 1, SetRatio: 0.05, Skew: 0.99, Keys: 1000}, 8, 8},
		{Spec{Workload: "memc-tiny", Count: 4000, Seed: 2, SetRatio: 0.5, Skew: 0.99, Keys: DefaultKeys}, 8, 8},
		{Spec{Workload: "memc-small", Count: 4000, Seed: 3, SetRatio: 0.2, Skew: 0.99, Keys: 1000}, 16, 32},
		{Spec{Workload: "memc-small", Count: 4000, Seed: 4, SetRatio: 0.8, Skew: 0.5, Keys: 1000}, 16, 32},
		{Spec{Workload: "etc", Count: 4000, Seed: 5, SetRatio: 0.5, Skew: 0.99, Keys: 1000}, 0, 0},
	}
	for _, tc := range tests {
		s := tc.spec
		t.Run(fmt.Sprintf("%s set %.2f seed %d", s.Workload, s.SetRatio, s.Seed), func(t *testing.T) {
			recs := generate(t, s)
			g, _ := New(s)
			sets := 0
			keyOf := map[int]string{}
			img := make([]byte, golden.MaxCapacity) // holds the largest value (1 MiB)
			for i, rec := range recs {
				r := decode(t, rec)
				if r.seqid != int32(i+1) {
					t.Fatalf("record %d: seqid %d", i, r.seqid)
				}
				rank := rec.Meta["key_rank"].(int)
				var key []byte
				if r.method == "Set" {
					sets++
					key = r.args.Key
					if tc.vLen > 0 && len(r.args.Value) != tc.vLen {
						t.Fatalf("record %d: value of %d bytes, want %d", i, len(r.args.Value), tc.vLen)
					}
					if rec.Meta["value_len"] != len(r.args.Value) {
						t.Fatalf("record %d: metadata value_len %v, message %d", i, rec.Meta["value_len"], len(r.args.Value))
					}
				} else {
					key = r.get.Key
				}
				want := tc.keyLen
				if want == 0 {
					want = g.etcKeySize(rank)
				}
				if len(key) != want {
					t.Fatalf("record %d: key of %d bytes, want %d", i, len(key), want)
				}
				if k, ok := keyOf[rank]; ok && k != string(key) {
					t.Fatalf("record %d: rank %d has key %q, earlier %q", i, rank, key, k)
				}
				keyOf[rank] = string(key)
				// What `arcalis run` does with it: the reference parses it
				// whole, up to its STOP.
				res := golden.Deserialize(rec.Msg, img)
				if res.Code != golden.CodeOK || int(res.Offset) != len(rec.Msg) {
					t.Fatalf("record %d: reference says %v at offset %d of %d", i, res.Code, res.Offset, len(rec.Msg))
				}
			}
			if !binomialOK(sets, len(recs), s.SetRatio) {
				t.Errorf("%d Sets in %d requests: not a set ratio of %v", sets, len(recs), s.SetRatio)
			}
			seen := map[string]int{}
			for rank, k := range keyOf {
				if r, dup := seen[k]; dup {
					t.Errorf("ranks %d and %d share key %q", r, rank, k)
				}
				seen[k] = rank
			}
		})
	}
}

// TestPopularityEndToEnd: the key ranks of generated requests follow the
// Zipf law (chi-square over every rank), and the Set share is binomial.
func TestPopularityEndToEnd(t *testing.T) {
	spec := Spec{Workload: "memc-small", Count: 30000, Seed: 99, SetRatio: 0.05, Skew: 0.99, Keys: 200}
	recs := generate(t, spec)
	counts := make([]int, spec.Keys)
	for _, rec := range recs {
		counts[rec.Meta["key_rank"].(int)]++
	}
	stat, df := chi2(counts, zipfProbs(spec.Keys, spec.Skew), len(recs))
	if c := chi2Critical(df); stat > c {
		t.Errorf("ranks: chi-square %.1f > %.1f (df %d)", stat, c, df)
	}
	if st, df := chi2(counts, zipfProbs(spec.Keys, 0.90), len(recs)); st <= chi2Critical(df) {
		t.Errorf("control skew 0.90: chi-square %.1f not rejected", st)
	}
}

func TestDeterministic(t *testing.T) {
	for _, w := range Names() {
		spec := Spec{Workload: w, Count: 300, Seed: 12345, SetRatio: 0.5, Skew: 0.99, Keys: 5000}
		a, b := generate(t, spec), generate(t, spec)
		spec.Seed++
		c := generate(t, spec)
		same := 0
		for i := range a {
			ma, _ := vectors.EncodeMeta(a[i])
			mb, _ := vectors.EncodeMeta(b[i])
			if !bytes.Equal(a[i].Msg, b[i].Msg) || !bytes.Equal(ma, mb) {
				t.Fatalf("%s: record %d differs between two runs with the same seed", w, i)
			}
			if bytes.Equal(a[i].Msg, c[i].Msg) {
				same++
			}
		}
		if same > len(a)/10 {
			t.Errorf("%s: %d of %d records equal with another seed", w, same, len(a))
		}
	}
}

func TestSweep(t *testing.T) {
	ls := SweepLengths()
	if ls[0] != 0 || ls[len(ls)-1] != 4096 || len(ls) != 2+64*3-1 {
		t.Fatalf("sweep lengths %v", ls)
	}
	for _, b := range []int{64, 128, 4032} {
		for _, l := range []int{b - 1, b, b + 1} {
			if sort.SearchInts(ls, l) == len(ls) || ls[sort.SearchInts(ls, l)] != l {
				t.Errorf("sweep misses length %d", l)
			}
		}
	}
	recs := generate(t, Spec{Workload: "memc-small", Count: 3, Seed: 1, SetRatio: 0, Skew: 0.99, Keys: 10, Sweep: true})
	if len(recs) != 3*len(ls) {
		t.Fatalf("%d records, want %d", len(recs), 3*len(ls))
	}
	for i, rec := range recs {
		r := decode(t, rec)
		if r.method != "Set" || len(r.args.Value) != ls[i/3] {
			t.Fatalf("record %d: %s with %d value bytes, want Set with %d", i, r.method, len(r.args.Value), ls[i/3])
		}
	}
}

func TestWrittenFileReads(t *testing.T) {
	recs := generate(t, Spec{Workload: "etc", Count: 200, Seed: 3, SetRatio: 0.5, Skew: 0.99, Keys: 100})
	path := filepath.Join(t.TempDir(), "etc.vec")
	if err := vectors.WriteFile(path, recs); err != nil {
		t.Fatal(err)
	}
	back, err := vectors.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if !bytes.Equal(back[i].Msg, recs[i].Msg) || vectors.CheckMessage(back[i].Msg) != nil {
			t.Fatalf("record %d does not read back as one Thrift message", i)
		}
	}
}

func TestBadSpecs(t *testing.T) {
	ok := Spec{Workload: "etc", Count: 1, Seed: 1, SetRatio: 0.5, Skew: 0.99, Keys: 10}
	tests := []struct {
		change func(*Spec)
		want   string
	}{
		{func(s *Spec) { s.Workload = "ycsb" }, `unknown workload "ycsb" (want memc-tiny, memc-small, etc)`},
		{func(s *Spec) { s.Count = 0 }, "count 0: want at least 1"},
		{func(s *Spec) { s.SetRatio = 1.5 }, "set ratio 1.5: want 0..1"},
		{func(s *Spec) { s.Keys = 0 }, "keys 0: want at least 1"},
		{func(s *Spec) { s.Keys = 200_000_000 }, "keys 200000000: at most 100,000,000"},
		{func(s *Spec) { s.Skew = -1 }, "zipf: skew -1: want a number >= 0"},
	}
	for _, tc := range tests {
		s := ok
		tc.change(&s)
		_, err := New(s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", s, err, tc.want)
		}
	}
}

func TestParseSetRatio(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  string
	}{
		{"low", 0.2, ""}, {"MID", 0.5, ""}, {"high", 0.8, ""},
		{"5/95", 0.05, ""}, {"50/50", 0.5, ""}, {"1/3", 0.25, ""}, {"0.3", 0.3, ""}, {"0", 0, ""}, {"1", 1, ""},
		{"", 0, `set ratio "": want low`}, {"1.5", 0, `set ratio "1.5"`}, {"5/", 0, `set ratio "5/": want SET/GET`},
		{"-1/2", 0, "want SET/GET as two numbers >= 0"}, {"0/0", 0, "want SET/GET"}, {"lots", 0, `set ratio "lots"`},
	}
	for _, tc := range tests {
		got, err := ParseSetRatio(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseSetRatio(%q): error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("ParseSetRatio(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}
