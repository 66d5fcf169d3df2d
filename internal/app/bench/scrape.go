package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Metric names read from the server's /metrics.
const (
	metricCPU   = "process_cpu_seconds_total"     // Prometheus' process collector
	metricRSS   = "process_resident_memory_bytes" // Prometheus' process collector
	metricSteps = "sqlgym_step_seconds_count"     // the server's steps, by tool (summed)

	metricPrepared = "sqlgym_db_statements_prepared_total"
	metricReused   = "sqlgym_db_statements_reused_total"
	metricEnded    = "sqlgym_episodes_ended_total" // by outcome (summed)
	metricFsyncs   = "sqlgym_trajectory_fsyncs_total"
	metricReplies  = "sqlgym_websocket_replies_total"
	metricFlushes  = "sqlgym_websocket_flushes_total"
)

// MetricsURL is the /metrics address of the server whose WebSocket
// endpoint is wsURL: the same host and port, over http (https for wss).
func MetricsURL(wsURL string) (string, error) {
	u, err := url.Parse(wsURL)
	if err != nil {
		return "", fmt.Errorf("bench: url: %w", err)
	}
	scheme := "http"
	if u.Scheme == "wss" {
		scheme = "https"
	}
	return (&url.URL{Scheme: scheme, Host: u.Host, Path: "/metrics"}).String(), nil
}

// sample is one reading of the server's /metrics.
type sample struct {
	at    time.Time
	cpu   float64 // seconds
	rss   float64 // bytes
	steps float64

	prepared, reused, ended, fsyncs float64 // absent from a server that has none: 0
	replies, flushes                float64
}

// scrape reads the process metrics from the /metrics page at url.
func scrape(ctx context.Context, hc *http.Client, url, token string) (sample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return sample{}, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return sample{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return sample{}, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	s, err := parseMetrics(resp.Body)
	s.at = time.Now()
	return s, err
}

// parseMetrics reads the samples it needs from Prometheus' text format:
// "name value" or "name{labels} value" lines, "#" lines skipped. It fails
// when the process collector's metrics are not there.
func parseMetrics(r io.Reader) (sample, error) {
	var s sample
	fields := map[string]*float64{metricCPU: &s.cpu, metricRSS: &s.rss, metricSteps: &s.steps,
		metricPrepared: &s.prepared, metricReused: &s.reused, metricEnded: &s.ended, metricFsyncs: &s.fsyncs,
		metricReplies: &s.replies, metricFlushes: &s.flushes}
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		cut := strings.LastIndexByte(line, ' ')
		name := line[:max(cut, 0)]
		if i := strings.IndexByte(name, '{'); i >= 0 {
			name = name[:i]
		}
		v, err := strconv.ParseFloat(line[cut+1:], 64)
		if cut < 0 || err != nil {
			continue
		}
		dst, ok := fields[name]
		if !ok {
			continue
		}
		*dst += v // a metric with labels is summed over them
		seen[name] = true
	}
	if err := sc.Err(); err != nil {
		return s, fmt.Errorf("read /metrics: %w", err)
	}
	if !seen[metricCPU] || !seen[metricRSS] {
		return s, fmt.Errorf("/metrics has no %s or %s (the server has no process collector)", metricCPU, metricRSS)
	}
	return s, nil
}

// ServerProcess is what the server's process used during the episodes,
// read from its /metrics (Prometheus' process collector) at the start, at
// the end, and every MetricsEvery in between.
type ServerProcess struct {
	MetricsURL string `json:"metrics_url"`
	Error      string `json:"error,omitempty"` // why nothing could be read
	// IncludesClient is set when the server runs in the bench's process:
	// its CPU and memory are the clients' too.
	IncludesClient bool    `json:"includes_client"`
	CPU            float64 `json:"cpu_s"`           // process_cpu_seconds_total's rise (10 ms resolution)
	Cores          float64 `json:"cores"`           // CPU over the time between the first and last sample
	Steps          int64   `json:"steps"`           // episode.step calls the server counted (sqlgym_step_seconds_count's rise)
	CPUPerStepUS   float64 `json:"cpu_per_step_us"` // CPU / Steps, in microseconds
	RSSPeak        float64 `json:"rss_peak_bytes"`  // the largest resident set sampled
	RSSEnd         float64 `json:"rss_end_bytes"`   // the resident set at the end
	Samples        int     `json:"samples"`
	// StatementsReused is the share of the SQLite statements run that
	// came from a connection's prepared statements (--db-stmt-cache-bytes);
	// EndsPerFsync is how many episode ends one fsync of the trajectory
	// log made durable; RepliesPerWrite how many reply frames one write
	// to a WebSocket carried (--reply-delay). Each is 0 when the server
	// reports none.
	StatementsReused float64 `json:"statements_reused,omitempty"`
	EndsPerFsync     float64 `json:"ends_per_fsync,omitempty"`
	RepliesPerWrite  float64 `json:"replies_per_write,omitempty"`
}

// sampler reads the server's /metrics while the episodes run.
type sampler struct {
	url, token string
	http       *http.Client
	first      sample
	err        error
	peak       float64 // written by the sampling goroutine until stop joins it
	n          int
	done       chan struct{}
	wg         sync.WaitGroup
	inProcess  bool
}

// startSampler takes the first sample and samples every cfg.MetricsEvery
// until stop. A server whose /metrics cannot be read is reported so, and
// not sampled again.
func startSampler(ctx context.Context, cfg Config) *sampler {
	s := &sampler{token: cfg.Token, http: &http.Client{Timeout: 5 * time.Second},
		done: make(chan struct{}), inProcess: cfg.InProcess}
	if s.url, s.err = MetricsURL(cfg.URL); s.err != nil {
		return s
	}
	if s.first, s.err = scrape(ctx, s.http, s.url, s.token); s.err != nil {
		return s
	}
	s.peak, s.n = s.first.rss, 1
	s.wg.Go(func() { s.loop(ctx, cfg.MetricsEvery) })
	return s
}

func (s *sampler) loop(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-ctx.Done():
			return
		case <-t.C:
			if v, err := scrape(ctx, s.http, s.url, s.token); err == nil {
				s.peak, s.n = max(s.peak, v.rss), s.n+1
			}
		}
	}
}

// stop joins the sampling goroutine, takes the last sample and reports;
// steps is the bench's own count, used when the server counts none.
func (s *sampler) stop(ctx context.Context, steps int64) ServerProcess {
	close(s.done)
	s.wg.Wait()
	defer s.http.CloseIdleConnections()
	p := ServerProcess{MetricsURL: s.url, IncludesClient: s.inProcess}
	if s.err != nil {
		p.Error = s.err.Error()
		return p
	}
	last, err := scrape(context.WithoutCancel(ctx), s.http, s.url, s.token)
	if err != nil {
		p.Error = err.Error()
		return p
	}
	p.Samples, p.RSSPeak, p.RSSEnd = s.n+1, max(s.peak, last.rss), last.rss
	p.CPU = last.cpu - s.first.cpu
	if secs := last.at.Sub(s.first.at).Seconds(); secs > 0 {
		p.Cores = p.CPU / secs
	}
	p.Steps = int64(last.steps - s.first.steps)
	if p.Steps <= 0 {
		p.Steps = steps
	}
	if p.Steps > 0 {
		p.CPUPerStepUS = p.CPU * 1e6 / float64(p.Steps)
	}
	if run := (last.prepared - s.first.prepared) + (last.reused - s.first.reused); run > 0 {
		p.StatementsReused = (last.reused - s.first.reused) / run
	}
	if fsyncs := last.fsyncs - s.first.fsyncs; fsyncs > 0 {
		p.EndsPerFsync = (last.ended - s.first.ended) / fsyncs
	}
	if flushes := last.flushes - s.first.flushes; flushes > 0 {
		p.RepliesPerWrite = (last.replies - s.first.replies) / flushes
	}
	return p
}
