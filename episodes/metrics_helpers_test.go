package episodes_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// metric returns the value of the metric named name (summed over its
// labels) in the registry; 0 when it has no sample yet.
func metric(tb testing.TB, reg *prometheus.Registry, name string) float64 {
	tb.Helper()
	families, err := reg.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	var sum float64
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			switch {
			case m.Gauge != nil:
				sum += m.Gauge.GetValue()
			case m.Counter != nil:
				sum += m.Counter.GetValue()
			}
		}
	}
	return sum
}

// waitMetric waits until cond holds for the metric's value, failing the
// test after waitfor.Timeout: tests wait for events the server reports,
// never sleep.
func waitMetric(tb testing.TB, reg *prometheus.Registry, name string, cond func(float64) bool) float64 {
	tb.Helper()
	var v float64
	if !waitfor.Within(waitfor.Timeout, func() bool { v = metric(tb, reg, name); return cond(v) }) {
		tb.Fatalf("metric %s is still %v after %s", name, v, waitfor.Timeout)
	}
	return v
}
