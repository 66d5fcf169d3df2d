// Package metricstest reads a server's Prometheus metrics for tests: from
// its registry (Value, WaitFor) or, for a server in another process or
// behind HTTP, from its /metrics page (Scrape). Tests wait on these, the
// events a server reports, rather than sleep.
package metricstest

import (
	"bufio"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// Value is the metric name's value in g, summed over its labels (its
// gauges and counters); 0 while it has no sample.
func Value(tb testing.TB, g prometheus.Gatherer, name string) float64 {
	tb.Helper()
	families, err := g.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	var sum float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			sum += m.GetGauge().GetValue() + m.GetCounter().GetValue()
		}
	}
	return sum
}

// WaitFor waits until cond holds for the metric's value in g, failing
// the test after waitfor.Timeout, and returns the value.
func WaitFor(tb testing.TB, g prometheus.Gatherer, name string, cond func(float64) bool) float64 {
	tb.Helper()
	var v float64
	if !waitfor.Within(waitfor.Timeout, func() bool { v = Value(tb, g, name); return cond(v) }) {
		tb.Fatalf("metric %s is still %v after %s", name, v, waitfor.Timeout)
	}
	return v
}

// Scrape is the value of the unlabelled metric name on the /metrics page
// at url; the test fails when the page has no such line.
func Scrape(tb testing.TB, url, name string) float64 {
	tb.Helper()
	resp, err := http.Get(url)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return f
		}
	}
	tb.Fatalf("no metric %s on %s", name, url)
	return 0
}
