package stack

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sqlgym/sqlgym/env/valueindex"
)

// searchMetrics are the value index's search counters (valueindex.Stats)
// as metrics: name, help, whether it is a gauge (else a counter), and
// the counter's value.
var searchMetrics = []struct {
	name, help string
	gauge      bool
	value      func(valueindex.Stats) float64
}{
	{"sqlgym_value_searches_total", "search_values calls answered from a value index.", false,
		func(s valueindex.Stats) float64 { return float64(s.Searches) }},
	{"sqlgym_value_searches_running", "search_values calls running now (at most --search-concurrency).", true,
		func(s valueindex.Stats) float64 { return float64(s.Running) }},
	{"sqlgym_value_searches_waiting", "search_values calls waiting now for a running slot.", true,
		func(s valueindex.Stats) float64 { return float64(s.Waiting) }},
	{"sqlgym_value_searches_waited_total", "search_values calls that found every running slot taken and waited.", false,
		func(s valueindex.Stats) float64 { return float64(s.Waited) }},
	{"sqlgym_value_searches_busy_total", "search_values calls refused as busy: their --query-timeout ended while they waited.", false,
		func(s valueindex.Stats) float64 { return float64(s.Busy) }},
}

// RegisterSearchMetrics exports the search counters of the stack's
// value index, read at each scrape, so that an operator sees
// search_values at its --search-concurrency bound and the calls it
// refused. Nothing is registered without an index.
func (st *Stack) RegisterSearchMetrics(reg *prometheus.Registry) {
	store := st.Values
	if store == nil {
		return
	}
	for _, m := range searchMetrics {
		read := func() float64 { return m.value(store.Stats()) }
		if m.gauge {
			reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: m.name, Help: m.help}, read))
		} else {
			reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: m.name, Help: m.help}, read))
		}
	}
}
