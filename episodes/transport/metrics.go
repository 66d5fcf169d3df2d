package transport

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the transport's Prometheus metrics, registered on the
// manager's registry beside the episodes' own.
type metrics struct {
	connections  prometheus.Gauge
	stalledConns prometheus.Counter
	slowMessages prometheus.Counter
	refusedConns prometheus.Counter
	readPauses   prometheus.Counter
	replies      prometheus.Counter
	flushes      prometheus.Counter
	tcpConns     prometheus.Gauge
	tcpRefused   prometheus.Counter
}

// newMetrics registers the transport's metrics on reg; a metric already
// there (a second server over one manager) is shared.
func newMetrics(reg prometheus.Registerer) *metrics {
	counter := func(name, help string) prometheus.Counter {
		return register(reg, prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help}))
	}
	return &metrics{
		connections: register(reg, prometheus.NewGauge(prometheus.GaugeOpts{Name: "sqlgym_websocket_connections",
			Help: "Open WebSocket connections."})),
		stalledConns: counter("sqlgym_websocket_stalled_closes_total",
			"WebSockets closed because their client read nothing while --max-conn-bytes of replies waited for --stall-timeout."),
		slowMessages: counter("sqlgym_websocket_slow_message_closes_total",
			"WebSockets closed because a message did not arrive whole within the read deadline."),
		refusedConns: counter("sqlgym_connections_refused_total",
			"WebSocket upgrades and HTTP RPC requests refused with 503 at --max-connections."),
		readPauses: counter("sqlgym_websocket_read_pauses_total",
			"Times a WebSocket's reading paused because it held --max-conn-bytes (backpressure)."),
		replies: counter("sqlgym_websocket_replies_total",
			"Reply frames written to WebSockets."),
		flushes: counter("sqlgym_websocket_flushes_total",
			"Writes that sent a WebSocket's gathered frames: replies over flushes is how many replies a write carried (--reply-delay)."),
		tcpConns: register(reg, prometheus.NewGauge(prometheus.GaugeOpts{Name: "sqlgym_tcp_connections",
			Help: "Open TCP connections: HTTP ones (idle keep-alive included) and upgraded WebSockets (bounded by --max-tcp-connections)."})),
		tcpRefused: counter("sqlgym_tcp_connections_refused_total",
			"TCP connections closed as soon as they were accepted because --max-tcp-connections were open."),
	}
}

// register registers c on reg, or returns the collector of the same
// description already there.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	var are prometheus.AlreadyRegisteredError
	if err := reg.Register(c); errors.As(err, &are) {
		return are.ExistingCollector.(C)
	} else if err != nil {
		panic("transport: register metric: " + err.Error()) // the descriptions are fixed: a programming error
	}
	return c
}

// countReading reports the bytes of messages being received, read from
// inUse whenever /metrics asks.
func countReading(reg prometheus.Registerer, inUse func() int64) {
	register(reg, prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sqlgym_reading_bytes",
		Help: "Bytes of WebSocket messages and HTTP bodies being received (bounded by --max-reading-bytes)."},
		func() float64 { return float64(inUse()) }))
}
