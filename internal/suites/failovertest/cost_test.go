package failovertest

import (
	"bufio"
	"math"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// quantile is the q-quantile of xs (nearest rank); NaN for none.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[int(math.Ceil(q*float64(len(s))))-1]
}

// resentLatencies are the client's times, from first send to reply, of
// the steps whose call spanned a reconnect (the client sent them again),
// in milliseconds.
func resentLatencies(l driverLog) []float64 {
	var out []float64
	for _, e := range l.Episodes {
		for _, s := range e.Steps {
			if s.AcrossReconnect {
				out = append(out, s.LatencyMS)
			}
		}
	}
	return out
}

// replayed counts the steps answered from the record (info.replayed):
// sent again after their reply was lost, and not run again.
func replayed(l driverLog) int {
	n := 0
	for _, e := range l.Episodes {
		for _, s := range e.Steps {
			if s.Replayed {
				n++
			}
		}
	}
	return n
}

// bucketLine is one bucket of a histogram on a /metrics page.
var bucketLine = regexp.MustCompile(`^(\w+)_bucket\{(?:.*,)?le="([^"]+)"[^}]*\} (\S+)$`)

// histogram is a histogram's cumulative counts by upper bound, summed
// over its labels.
type histogram map[float64]float64

// scrapeHistograms reads every histogram on the /metrics page at url
// whose name starts with prefix.
func scrapeHistograms(t *testing.T, url, prefix string) map[string]histogram {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]histogram{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		m := bucketLine.FindStringSubmatch(sc.Text())
		if m == nil || !strings.HasPrefix(m[1], prefix) {
			continue
		}
		le, err1 := strconv.ParseFloat(m[2], 64)
		n, err2 := strconv.ParseFloat(m[3], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %q", url, sc.Text())
		}
		if out[m[1]] == nil {
			out[m[1]] = histogram{}
		}
		out[m[1]][le] += n
	}
	return out
}

// count is how many observations h holds.
func (h histogram) count() float64 { return h[math.Inf(1)] }

// quantile is h's q-quantile, interpolated within its bucket as
// Prometheus's histogram_quantile does.
func (h histogram) quantile(q float64) float64 {
	bounds := make([]float64, 0, len(h))
	for le := range h {
		bounds = append(bounds, le)
	}
	sort.Float64s(bounds)
	rank, lower, below := q*h.count(), 0.0, 0.0
	for _, le := range bounds {
		if h[le] >= rank {
			if math.IsInf(le, 1) {
				return lower
			}
			if h[le] == below {
				return le
			}
			return lower + (le-lower)*(rank-below)/(h[le]-below)
		}
		lower, below = le, h[le]
	}
	return math.NaN()
}
