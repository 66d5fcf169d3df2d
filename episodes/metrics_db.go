package episodes

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sqlgym/sqlgym/env"
)

// poolCollector reports the databases' connection statistics, read once
// from stats whenever /metrics is scraped.
type poolCollector struct {
	stats                           func() env.PoolStats
	waits, waitSeconds, inUse, open *prometheus.Desc
	prepared, reused                *prometheus.Desc
}

// watchPools registers the databases' connection statistics.
func (m *Metrics) watchPools(stats func() env.PoolStats) {
	m.Registry.MustRegister(&poolCollector{
		stats: stats,
		waits: prometheus.NewDesc("sqlgym_db_pool_wait_total",
			"Statements that waited for a database connection or a running slot before they ran.", nil, nil),
		waitSeconds: prometheus.NewDesc("sqlgym_db_pool_wait_seconds_total",
			"Time statements spent waiting for a database connection or a running slot.", nil, nil),
		inUse: prometheus.NewDesc("sqlgym_db_connections_in_use",
			"Database connections held by a statement now.", nil, nil),
		open: prometheus.NewDesc("sqlgym_db_connections_open",
			"Database connections open, in use or idle.", nil, nil),
		prepared: prometheus.NewDesc("sqlgym_db_statements_prepared_total",
			"Statements prepared by the SQLite engine.", nil, nil),
		reused: prometheus.NewDesc("sqlgym_db_statements_reused_total",
			"Statements the SQLite engine ran again from a connection's prepared statements (--db-stmt-cache-bytes) without preparing them.", nil, nil),
	})
}

// Describe sends the descriptions of the metrics.
func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.waits, c.waitSeconds, c.inUse, c.open, c.prepared, c.reused} {
		ch <- d
	}
}

// Collect sends the metrics, from one reading of the statistics.
func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	ch <- prometheus.MustNewConstMetric(c.waits, prometheus.CounterValue, float64(s.Waits))
	ch <- prometheus.MustNewConstMetric(c.waitSeconds, prometheus.CounterValue, s.WaitTime.Seconds())
	ch <- prometheus.MustNewConstMetric(c.inUse, prometheus.GaugeValue, float64(s.InUse))
	ch <- prometheus.MustNewConstMetric(c.open, prometheus.GaugeValue, float64(s.Open))
	ch <- prometheus.MustNewConstMetric(c.prepared, prometheus.CounterValue, float64(s.Prepared))
	ch <- prometheus.MustNewConstMetric(c.reused, prometheus.CounterValue, float64(s.Reused))
}
