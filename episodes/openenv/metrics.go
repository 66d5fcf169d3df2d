package openenv

import (
	"github.com/prometheus/client_golang/prometheus"
)

// register adds the surface's metrics to reg: the sessions held
// (sqlgym_openenv_sessions) and those refused at the bound
// (sqlgym_openenv_sessions_refused_total).
func (h *Handler) register(reg prometheus.Registerer) {
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sqlgym_openenv_sessions",
		Help: "OpenEnv sessions held: WebSockets on the surface and episodes HTTP clients started (at most --max-openenv-sessions)."},
		func() float64 { return float64(h.sessions.active()) }))
	reg.MustRegister(h.refused)
}

// newRefused is the counter of sessions refused at the bound.
func newRefused() prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Name: "sqlgym_openenv_sessions_refused_total",
		Help: "OpenEnv sessions refused because --max-openenv-sessions were held."})
}
