package mcpserver

import "github.com/prometheus/client_golang/prometheus"

// metrics are the MCP server's, on the server's /metrics.
type metrics struct {
	sessions  prometheus.Gauge       // HTTP sessions open
	refused   prometheus.Counter     // HTTP sessions refused at --max-mcp-sessions
	toolCalls *prometheus.CounterVec // tools/call requests, by tool
}

func newMetrics(reg *prometheus.Registry) *metrics {
	m := &metrics{
		sessions: prometheus.NewGauge(prometheus.GaugeOpts{Name: "sqlgym_mcp_sessions",
			Help: "MCP sessions open over Streamable HTTP (bounded by --max-mcp-sessions)."}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{Name: "sqlgym_mcp_sessions_refused_total",
			Help: "MCP sessions refused with HTTP 503 because --max-mcp-sessions were open."}),
		toolCalls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sqlgym_mcp_tool_calls_total",
			Help: "MCP tools/call requests answered, by tool."}, []string{"tool"}),
	}
	reg.MustRegister(m.sessions, m.refused, m.toolCalls)
	return m
}
