package replay

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// QuantileLevels are the quantiles a Dist reports.
var QuantileLevels = []float64{0.1, 0.25, 0.5, 0.75, 0.9}

// Dist describes a set of rewards.
type Dist struct {
	N         int
	Mean      float64
	Min, Max  float64
	Quantiles []float64 // at QuantileLevels, linearly interpolated
}

// NewDist describes xs. Any finite values give finite numbers: a sum
// that overflows gives way to one of x/n, and quantiles interpolate without the difference
// of two values (which can overflow); a non-finite value is not counted.
func NewDist(xs []float64) Dist {
	d := Dist{Quantiles: make([]float64, len(QuantileLevels))}
	s := finiteSorted(xs)
	d.N = len(s)
	if len(s) == 0 {
		return d
	}
	d.Mean = mean(s)
	d.Min, d.Max = s[0], s[len(s)-1]
	d.Mean = max(d.Min, min(d.Max, d.Mean)) // rounding cannot take it outside
	for i, q := range QuantileLevels {
		d.Quantiles[i] = quantile(s, q)
	}
	return d
}

// mean of finite s, never overflowing.
func mean(s []float64) float64 {
	n, sum := float64(len(s)), 0.0
	for _, x := range s {
		sum += x
	}
	if !math.IsInf(sum, 0) {
		return sum / n
	}
	sum = 0
	for _, x := range s {
		sum += x / n
	}
	return sum
}

// finiteSorted is the finite values of xs, sorted.
func finiteSorted(xs []float64) []float64 {
	s := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsInf(x, 0) && !math.IsNaN(x) {
			s = append(s, x)
		}
	}
	slices.Sort(s)
	return s
}

// quantile of sorted s at q, interpolating between the closest ranks (as
// numpy's default does).
func quantile(s []float64, q float64) float64 {
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(s)-1)
	return lerp(s[lo], s[hi], pos-float64(lo))
}

// lerp is a + f*(b-a) for f in [0, 1], finite for finite a and b: when
// b-a overflows, the weighted sum of the two, which cannot.
func lerp(a, b, f float64) float64 {
	if f == 0 {
		return a
	}
	if d := b - a; !math.IsInf(d, 0) {
		return a + f*d
	}
	return a*(1-f) + b*f
}

// Histogram counts xs and ys in the same bins: n equal bins from the
// smallest to the largest finite value of both (one bin when they are
// all equal). It returns the bins' lower edges and the counts of each
// set. Any finite values are binned, ±1e308 included; a non-finite value
// is not counted.
func Histogram(xs, ys []float64, n int) (edges []float64, cx, cy []int) {
	all := finiteSorted(append(slices.Clone(xs), ys...))
	if len(all) == 0 || n < 1 {
		return nil, nil, nil
	}
	lo, hi := all[0], all[len(all)-1]
	if lo == hi {
		n = 1
	}
	edges = make([]float64, n)
	for i := range edges {
		edges[i] = lerp(lo, hi, float64(i)/float64(n))
	}
	cx, cy = make([]int, n), make([]int, n)
	count(cx, xs, lo, hi)
	count(cy, ys, lo, hi)
	return edges, cx, cy
}

// count adds each finite x of xs to its bin of c, the bins splitting
// [lo, hi] evenly. Halves keep hi-lo finite.
func count(c []int, xs []float64, lo, hi float64) {
	span := hi/2 - lo/2
	for _, x := range xs {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			continue
		}
		i := 0
		if span > 0 {
			i = int((x/2 - lo/2) / span * float64(len(c)))
		}
		c[max(0, min(i, len(c)-1))]++
	}
}

// RescoreReport compares the rewards and outcomes of the episodes before
// and after rescoring.
type RescoreReport struct {
	Episodes   int      // episodes rescored
	Rejudged   int      // of which the submission was judged again
	Unscorable []string // episodes that could not be rescored, with why
	// Total and final rewards of each rescored episode, before and after.
	TotalBefore, TotalAfter []float64
	FinalBefore, FinalAfter []float64
	OutcomesBefore          map[string]int
	OutcomesAfter           map[string]int
	OutcomeChanged          int // episodes whose outcome changed
}

func newRescoreReport() *RescoreReport {
	return &RescoreReport{OutcomesBefore: map[string]int{}, OutcomesAfter: map[string]int{}}
}

func (r *RescoreReport) add(before, after *Rescored) {
	b, a := before.Record, after.Record
	r.Episodes++
	if after.Rejudged {
		r.Rejudged++
	}
	r.TotalBefore, r.TotalAfter = append(r.TotalBefore, b.TotalReward), append(r.TotalAfter, a.TotalReward)
	r.FinalBefore, r.FinalAfter = append(r.FinalBefore, b.FinalReward), append(r.FinalAfter, a.FinalReward)
	r.OutcomesBefore[outcomeName(b.Outcome)]++
	r.OutcomesAfter[outcomeName(a.Outcome)]++
	if b.Outcome != a.Outcome {
		r.OutcomeChanged++
	}
}

func outcomeName(o string) string {
	if o == "" {
		return "(incomplete)"
	}
	return o
}

// Summary is the report as a table: the distribution of total_reward
// before and after (mean, quantiles, histogram), mean final_reward, and
// the outcome counts.
func (r *RescoreReport) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "rescored %d episodes (%d submissions judged again); %d could not be rescored\n",
		r.Episodes, r.Rejudged, len(r.Unscorable))
	for _, u := range r.Unscorable[:min(len(r.Unscorable), 10)] {
		fmt.Fprintf(&b, "  not rescored: %s\n", u)
	}
	before, after := NewDist(r.TotalBefore), NewDist(r.TotalAfter)
	fmt.Fprintf(&b, "\n%-22s %10s %10s %10s\n", "total_reward", "before", "after", "change")
	row := func(name string, x, y float64) {
		fmt.Fprintf(&b, "%-22s %10.4f %10.4f %+10.4f\n", name, x, y, y-x)
	}
	row("mean", before.Mean, after.Mean)
	row("min", before.Min, after.Min)
	for i, q := range QuantileLevels {
		row(fmt.Sprintf("p%g", q*100), before.Quantiles[i], after.Quantiles[i])
	}
	row("max", before.Max, after.Max)
	row("mean final_reward", NewDist(r.FinalBefore).Mean, NewDist(r.FinalAfter).Mean)
	fmt.Fprintf(&b, "\n%-22s %10s %10s %10s\n", "outcome", "before", "after", "change")
	names := slices.Sorted(maps.Keys(r.OutcomesBefore))
	for _, k := range slices.Sorted(maps.Keys(r.OutcomesAfter)) {
		if !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	for _, k := range names {
		x, y := r.OutcomesBefore[k], r.OutcomesAfter[k]
		fmt.Fprintf(&b, "%-22s %10d %10d %+10d\n", k, x, y, y-x)
	}
	fmt.Fprintf(&b, "%-22s %32d\n", "outcome changed", r.OutcomeChanged)
	r.histogram(&b)
	return b.String()
}

func (r *RescoreReport) histogram(b *strings.Builder) {
	edges, cx, cy := Histogram(r.TotalBefore, r.TotalAfter, 10)
	if len(edges) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%-22s %10s %10s\n", "total_reward from", "before", "after")
	for i, e := range edges {
		fmt.Fprintf(b, "%-22s %10d %10d\n", fmt.Sprintf("%.4f", e), cx[i], cy[i])
	}
}
