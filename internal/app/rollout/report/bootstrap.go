package report

import (
	"math/bits"
	"slices"
)

// The bootstrap behind a Comparison's confidence intervals: the paired
// tasks' differences are resampled with replacement BootstrapResamples
// times, from a generator seeded with BootstrapSeed, and the interval is
// the 2.5th and 97.5th percentiles (nearest rank) of the resampled
// means. The seed is fixed so that the same runs give the same interval
// every time.
const (
	BootstrapResamples = 10000
	BootstrapSeed      = 1
	BootstrapMethod    = "percentile"
	BootstrapLevel     = 0.95
)

// Bootstrap says how a Comparison's intervals were computed.
type Bootstrap struct {
	Resamples  int     `json:"resamples"`
	Seed       uint64  `json:"seed"`
	Method     string  `json:"method"`
	Confidence float64 `json:"confidence"`
}

func bootstrapSettings() Bootstrap {
	return Bootstrap{Resamples: BootstrapResamples, Seed: BootstrapSeed, Method: BootstrapMethod, Confidence: BootstrapLevel}
}

// bootstrapCI is the 95% percentile interval of the mean of diffs (not
// empty). When every difference is the same, every resampled mean is
// too, and the interval is that point.
func bootstrapCI(diffs []float64) (lo, hi float64) {
	rng := splitMix{BootstrapSeed}
	means := make([]float64, BootstrapResamples)
	draw := make([]float64, len(diffs))
	for r := range means {
		for i := range draw {
			draw[i] = diffs[rng.intn(len(diffs))]
		}
		means[r] = mean(draw)
	}
	slices.Sort(means)
	return means[nearestRank(25)], means[nearestRank(975)]
}

// nearestRank is the index, among BootstrapResamples sorted values, of
// the permille-th percentile by nearest rank: ceil(p * n) - 1.
func nearestRank(permille int) int {
	return (BootstrapResamples*permille+999)/1000 - 1
}

// splitMix is SplitMix64 (Steele, Lea and Flood 2014): written out here
// rather than taken from math/rand so that the intervals a seed gives
// never change with the Go release.
type splitMix struct{ s uint64 }

func (r *splitMix) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// intn is a number in [0, n), by Lemire's multiply-shift: its bias, under
// n / 2^64, is far below what 10,000 resamples can show.
func (r *splitMix) intn(n int) int {
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int(hi)
}
