package episodes

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/sqlgym/sqlgym/schemas"
)

// Metrics are the server's Prometheus metrics, on a registry of their own
// (never the global one), plus the counts server.info reports.
type Metrics struct {
	Registry *prometheus.Registry

	startedTotal prometheus.Counter
	endedTotal   *prometheus.CounterVec
	liveEpisodes prometheus.Gauge
	steps        *prometheus.HistogramVec
	records      prometheus.Counter
	recordErrors prometheus.Counter
	recentBytes  prometheus.Gauge
	stepsRunning prometheus.Gauge
	keptRefused  *prometheus.CounterVec
	takeovers    prometheus.Histogram

	mu     sync.Mutex // guards counts and bytes
	counts schemas.Stats
	bytes  func() int64 // the trajectory store's bytes written; nil when it does not count them
}

// newMetrics registers sqlgym's metrics on a new registry, with
// Prometheus' process collector (process_cpu_seconds_total,
// process_resident_memory_bytes, ...) and Go collector (go_*), which
// sqlgym bench reads for the server's CPU per step and memory.
func newMetrics() *Metrics {
	m := &Metrics{Registry: prometheus.NewRegistry()}
	f := func(c prometheus.Collector) { m.Registry.MustRegister(c) }
	m.startedTotal = prometheus.NewCounter(prometheus.CounterOpts{Name: "sqlgym_episodes_started_total", Help: "Episodes started."})
	m.endedTotal = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sqlgym_episodes_ended_total", Help: "Episodes ended, by outcome."}, []string{"outcome"})
	m.liveEpisodes = prometheus.NewGauge(prometheus.GaugeOpts{Name: "sqlgym_live_episodes", Help: "Episodes started and not yet ended."})
	m.steps = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "sqlgym_step_seconds", Help: "Wall time of episode steps, by tool.",
		Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10)}, []string{"tool"})
	m.records = prometheus.NewCounter(prometheus.CounterOpts{Name: "sqlgym_trajectory_records_total", Help: "Trajectory records written."})
	m.recordErrors = prometheus.NewCounter(prometheus.CounterOpts{Name: "sqlgym_trajectory_write_errors_total", Help: "Trajectory records that failed to be written."})
	m.recentBytes = prometheus.NewGauge(prometheus.GaugeOpts{Name: "sqlgym_recent_trajectory_bytes",
		Help: "Bytes of ended episodes' trajectories held in memory for episode.get (bounded by --recent-bytes)."})
	m.stepsRunning = prometheus.NewGauge(prometheus.GaugeOpts{Name: "sqlgym_steps_running",
		Help: "Episode steps running now (their turn in the episode's queue has come and they have not yet returned)."})
	m.keptRefused = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sqlgym_episode_bytes_refused_total",
		Help: "Resets and steps refused for the bytes live episodes keep, by the bound they would pass: episode (--max-episode-bytes) or live (--max-live-bytes)."},
		[]string{"bound"})
	m.takeovers = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "sqlgym_takeover_seconds",
		Help:    "Episodes taken over from the shared trajectory store (--takeover), by the time the claim and the rebuild took.",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14)})
	for _, c := range []prometheus.Collector{m.startedTotal, m.endedTotal, m.liveEpisodes, m.steps,
		m.records, m.recordErrors, m.recentBytes, m.stepsRunning, m.keptRefused, m.takeovers,
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), collectors.NewGoCollector()} {
		f(c)
	}
	m.counts.Ended = map[string]int64{}
	return m
}

func (m *Metrics) started(live int) {
	m.startedTotal.Inc()
	m.liveEpisodes.Set(float64(live))
	m.mu.Lock()
	m.counts.Started++
	m.counts.LiveEpisodes = live
	m.mu.Unlock()
}

func (m *Metrics) ended(outcome string, live int) {
	m.endedTotal.WithLabelValues(outcome).Inc()
	m.liveEpisodes.Set(float64(live))
	m.mu.Lock()
	m.counts.Ended[outcome]++
	m.counts.LiveEpisodes = live
	m.mu.Unlock()
}

func (m *Metrics) stepped(tool string, d time.Duration) {
	m.steps.WithLabelValues(tool).Observe(d.Seconds())
}

func (m *Metrics) written() {
	m.records.Inc()
	m.mu.Lock()
	m.counts.RecordsWritten++
	m.mu.Unlock()
}

func (m *Metrics) writeFailed() {
	m.recordErrors.Inc()
	m.mu.Lock()
	m.counts.WriteErrors++
	m.mu.Unlock()
}

// watchKept reports the bytes live episodes keep, read from kept
// whenever /metrics asks.
func (m *Metrics) watchKept(kept func() int64) {
	m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sqlgym_live_episode_bytes",
		Help: "Bytes live episodes keep: prompts, tags, steps (bounded by --max-live-bytes; one episode by --max-episode-bytes)."},
		func() float64 { return float64(kept()) }))
}

// bytesRefused counts a reset or step refused at a bound of kept bytes.
func (m *Metrics) bytesRefused(bound string) { m.keptRefused.WithLabelValues(bound).Inc() }

// countBytes reports the trajectory store's bytes written, read from
// bytes whenever server.info or /metrics asks.
func (m *Metrics) countBytes(bytes func() int64) {
	m.countFunc("sqlgym_trajectory_bytes_written_total", "Bytes the trajectory store wrote.", bytes)
	m.mu.Lock()
	m.bytes = bytes
	m.mu.Unlock()
}

// countFsyncs reports the trajectory log's fsyncs, read from fsyncs
// whenever /metrics asks: over sqlgym_episodes_ended_total, how many
// episode ends one fsync made durable.
func (m *Metrics) countFsyncs(fsyncs func() int64) {
	m.countFunc("sqlgym_trajectory_fsyncs_total",
		"Fsyncs of the trajectory log's segments; one covers every line written before it (group commit).", fsyncs)
}

// countFunc registers a counter whose value is read from count.
func (m *Metrics) countFunc(name, help string, count func() int64) {
	m.Registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
		func() float64 { return float64(count()) }))
}

// snapshot returns a copy of the counts.
func (m *Metrics) snapshot() schemas.Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.counts
	if m.bytes != nil {
		c.BytesWritten = m.bytes()
	}
	c.Ended = make(map[string]int64, len(m.counts.Ended))
	for k, v := range m.counts.Ended {
		c.Ended[k] = v
	}
	return c
}

// tookOver counts an episode taken over, and how long it took.
func (m *Metrics) tookOver(d time.Duration) { m.takeovers.Observe(d.Seconds()) }
