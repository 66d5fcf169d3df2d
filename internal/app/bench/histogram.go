package bench

import (
	"math"
	"math/bits"
	"sync/atomic"
	"time"

	"github.com/sqlgym/sqlgym/schemas"
)

// subBuckets is how many buckets split each power of two: a recorded
// value is kept within 1/64 (1.6%) of itself, in a fixed 32 KB of
// counters however long the run.
const subBuckets = 64

// histogram counts durations in log-linear buckets, lock-free: values
// below 2*subBuckets nanoseconds have a bucket each, and each power of two
// above is cut into subBuckets equal parts. It is safe for concurrent use.
type histogram struct {
	counts [64 * subBuckets]atomic.Uint64
	total  atomic.Uint64
	max    atomic.Int64 // nanoseconds
}

// bucketOf is the index of the bucket holding v nanoseconds.
func bucketOf(v int64) int {
	if v < 2*subBuckets {
		return int(max(v, 0))
	}
	shift := bits.Len64(uint64(v)) - 7 // log2(2*subBuckets) = 7
	return subBuckets*shift + int(v>>shift)
}

// bucketValue is the middle of bucket i, in nanoseconds.
func bucketValue(i int) int64 {
	if i < 2*subBuckets {
		return int64(i)
	}
	shift := i/subBuckets - 1
	low := int64(i-subBuckets*shift) << shift
	return low + int64(1)<<shift/2
}

// record counts one duration.
func (h *histogram) record(d time.Duration) {
	v := int64(d)
	h.counts[bucketOf(v)].Add(1)
	h.total.Add(1)
	for {
		m := h.max.Load()
		if v <= m || h.max.CompareAndSwap(m, v) {
			return
		}
	}
}

// quantiles returns the durations below which the fraction qs[i] of the
// recorded values fall (each at most the maximum); zeros when empty. qs
// must be ascending.
func (h *histogram) quantiles(qs ...float64) []time.Duration {
	out := make([]time.Duration, len(qs))
	total := h.total.Load()
	if total == 0 {
		return out
	}
	top := h.max.Load()
	var seen uint64
	j := 0
	for i := range h.counts {
		seen += h.counts[i].Load()
		for j < len(qs) && float64(seen) >= math.Ceil(qs[j]*float64(total)) {
			out[j] = time.Duration(min(bucketValue(i), top))
			j++
		}
		if j == len(qs) {
			break
		}
	}
	for ; j < len(qs); j++ {
		out[j] = time.Duration(top)
	}
	return out
}

// Latency summarizes the answered calls of one method, in milliseconds.
type Latency struct {
	Count int64   `json:"count"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}

// summary is the histogram as a Latency.
func (h *histogram) summary() Latency {
	q := h.quantiles(0.5, 0.9, 0.99)
	return Latency{
		Count: int64(h.total.Load()), P50: ms(q[0]), P90: ms(q[1]), P99: ms(q[2]),
		Max: ms(time.Duration(h.max.Load())),
	}
}

func ms(d time.Duration) float64 { return schemas.Milliseconds(d) }
