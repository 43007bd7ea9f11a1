package workload

import (
	"fmt"
	"math"
	"sort"
)

// The size distributions of Facebook's ETC Memcached pool, as fitted by
// Atikoglu, Xu, Frachtenberg, Jiang and Paleczny, "Workload analysis of a
// large-scale key-value store", SIGMETRICS 2012, section 5 (statistical
// model of ETC):
//
//   - key size: generalized extreme value, location 30.7984, scale 8.20449,
//     shape 0.078688;
//   - value size: generalized Pareto, location 0, scale 214.476, shape
//     0.348238, except for the smallest sizes, 0 to 14 bytes, whose
//     probabilities the paper tabulates separately (etcSmallValues).
//
// Float expressions below are written with explicit float64 conversions
// around products, which the Go specification says prevents fusing them
// into FMA instructions, so the same draw gives the same size on every
// architecture.
var (
	ETCKeySize   = GEV{Loc: 30.7984, Scale: 8.20449, Shape: 0.078688}
	ETCValueSize = GPareto{Loc: 0, Scale: 214.476, Shape: 0.348238}
)

// etcSmallValues is the probability of each value size 0..14 bytes in ETC
// (Atikoglu et al. 2012, the table of the model's first value sizes). The
// entries sum to 0.44155; the rest of the mass follows the generalized
// Pareto distribution, restricted to sizes of 15 bytes and more.
var etcSmallValues = [15]float64{
	0.00536, 0.00047, 0.17820, 0.09239, 0.00018,
	0.02740, 0.00065, 0.00606, 0.00023, 0.00837,
	0.00837, 0.08989, 0.00092, 0.00326, 0.01980,
}

// Limits of generated sizes. Memcached refuses keys over 250 bytes and, by
// default, items over 1 MiB; draws past them are drawn again (the
// distributions are truncated there: under 1e-6 of the GEV's mass lies
// above 250 and about 1e-9 of the Pareto's above 1 MiB).
const (
	MaxKeySize   = 250
	MaxValueSize = 1 << 20
)

// GEV is a generalized extreme value distribution (shape != 0).
type GEV struct{ Loc, Scale, Shape float64 }

// CDF is P(X <= x) = exp(-(1 + shape (x-loc)/scale)^(-1/shape)).
func (d GEV) CDF(x float64) float64 {
	t := 1 + float64(d.Shape*(x-d.Loc))/d.Scale
	if t <= 0 {
		if d.Shape > 0 {
			return 0 // below the support
		}
		return 1
	}
	return math.Exp(-math.Pow(t, -1/d.Shape))
}

// Quantile is the inverse of CDF, for 0 < u < 1.
func (d GEV) Quantile(u float64) float64 {
	return d.Loc + float64(d.Scale*(math.Pow(-math.Log(u), -d.Shape)-1))/d.Shape
}

// GPareto is a generalized Pareto distribution (shape > 0).
type GPareto struct{ Loc, Scale, Shape float64 }

// CDF is P(X <= x) = 1 - (1 + shape (x-loc)/scale)^(-1/shape) for x >= loc.
func (d GPareto) CDF(x float64) float64 {
	if x <= d.Loc {
		return 0
	}
	return 1 - math.Pow(1+float64(d.Shape*(x-d.Loc))/d.Scale, -1/d.Shape)
}

// Quantile is the inverse of CDF, for 0 <= u < 1.
func (d GPareto) Quantile(u float64) float64 {
	return d.Loc + float64(d.Scale*(math.Pow(1-u, -d.Shape)-1))/d.Shape
}

// KeySizeProb is the probability of an integer key size k (1..250) under
// the generator's rule: a GEV draw rounded to the nearest integer, draws
// outside [0.5, 250.5) drawn again.
func KeySizeProb(k int) float64 {
	if k < 1 || k > MaxKeySize {
		return 0
	}
	d := ETCKeySize
	mass := d.CDF(MaxKeySize+0.5) - d.CDF(0.5)
	return (d.CDF(float64(k)+0.5) - d.CDF(float64(k)-0.5)) / mass
}

// valueTailFrom is the first value size drawn from the Pareto tail.
const valueTailFrom = 15 // len(etcSmallValues)

func smallValueMass() float64 {
	var s float64
	for _, p := range etcSmallValues {
		s += p
	}
	return s
}

// ValueSizeCDF is P(size <= x) of the generator's ETC value sizes: the
// table for 0..14 bytes, then the Pareto tail from 15 bytes, restricted to
// [15, 1 MiB] and scaled to the rest of the mass; a tail draw is rounded
// down to whole bytes.
func ValueSizeCDF(x float64) float64 {
	small := smallValueMass()
	if x < valueTailFrom {
		var s float64
		for k := 0; k <= int(math.Floor(x)) && k < valueTailFrom; k++ {
			s += etcSmallValues[k]
		}
		return s
	}
	if x >= MaxValueSize {
		return 1
	}
	d := ETCValueSize
	lo, hi := d.CDF(valueTailFrom), d.CDF(MaxValueSize)
	return small + float64((1-small)*(d.CDF(math.Floor(x)+1)-lo))/(hi-lo)
}

// Zipf draws ranks 0..n-1 with P(i) proportional to 1/(i+1)^s, by inverse
// transform over the table of cumulative probabilities (exact for any
// s >= 0, n*8 bytes of memory).
type Zipf struct {
	cum []float64 // cum[i] = P(rank <= i)
	s   float64
}

// NewZipf makes the table for n ranks and skew s.
func NewZipf(n int, s float64) (*Zipf, error) {
	if n < 1 {
		return nil, fmt.Errorf("zipf: %d keys: want at least 1", n)
	}
	if s < 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("zipf: skew %v: want a number >= 0", s)
	}
	cum := make([]float64, n)
	var sum float64
	for i := range cum {
		sum += math.Pow(float64(i+1), -s)
		cum[i] = sum
	}
	for i := range cum {
		cum[i] /= sum
	}
	cum[n-1] = 1
	return &Zipf{cum: cum, s: s}, nil
}

// Rank maps a uniform u in [0, 1) to a rank.
func (z *Zipf) Rank(u float64) int {
	i := sort.SearchFloat64s(z.cum, u)
	if i < len(z.cum) && z.cum[i] == u {
		i++ // P(rank <= i) == u: u belongs to the next rank
	}
	return min(i, len(z.cum)-1)
}

// Prob is the probability of rank i.
func (z *Zipf) Prob(i int) float64 {
	if i == 0 {
		return z.cum[0]
	}
	return z.cum[i] - z.cum[i-1]
}

// N is the number of ranks.
func (z *Zipf) N() int { return len(z.cum) }
