package jsonrpc

import (
	"errors"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the protocol's Prometheus metrics, registered on the
// manager's registry beside the episodes' own.
type metrics struct {
	rpcErrors *prometheus.CounterVec
}

// newMetrics registers the protocol's metrics on reg; a metric already
// there (a second dispatcher over one manager) is shared.
func newMetrics(reg prometheus.Registerer) *metrics {
	errs := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sqlgym_rpc_errors_total",
		Help: "JSON-RPC error replies, by code."}, []string{"code"})
	var are prometheus.AlreadyRegisteredError
	if err := reg.Register(errs); errors.As(err, &are) {
		errs = are.ExistingCollector.(*prometheus.CounterVec)
	} else if err != nil {
		panic("jsonrpc: register metric: " + err.Error()) // the description is fixed: a programming error
	}
	return &metrics{rpcErrors: errs}
}

func (m *metrics) rpcError(code int) {
	m.rpcErrors.WithLabelValues(strconv.Itoa(code)).Inc()
}
