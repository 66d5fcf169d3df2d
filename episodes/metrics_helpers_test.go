package episodes_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/sqlgym/sqlgym/internal/testkit/metricstest"
)

// metric returns the value of the metric named name (summed over its
// labels) in the registry; 0 when it has no sample yet.
func metric(tb testing.TB, reg *prometheus.Registry, name string) float64 {
	tb.Helper()
	return metricstest.Value(tb, reg, name)
}

// waitMetric waits until cond holds for the metric's value, failing the
// test after waitfor.Timeout: tests wait for events the server reports,
// never sleep.
func waitMetric(tb testing.TB, reg *prometheus.Registry, name string, cond func(float64) bool) float64 {
	tb.Helper()
	return metricstest.WaitFor(tb, reg, name, cond)
}
