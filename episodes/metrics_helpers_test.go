package episodes_test

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
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
// test after 20 s: tests wait for events the server reports, never sleep.
func waitMetric(tb testing.TB, reg *prometheus.Registry, name string, cond func(float64) bool) float64 {
	tb.Helper()
	deadline := time.After(20 * time.Second)
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	for {
		v := metric(tb, reg, name)
		if cond(v) {
			return v
		}
		select {
		case <-deadline:
			tb.Fatalf("metric %s is still %v after 20 s", name, v)
		case <-poll.C:
		}
	}
}
