package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
)

func TestMetricsURL(t *testing.T) {
	tests := []struct{ ws, want string }{
		{"ws://127.0.0.1:8765/v1/ws", "http://127.0.0.1:8765/metrics"},
		{"wss://localhost:443/v1/ws", "https://localhost:443/metrics"},
		{"ws://[::1]:9/v1/ws?x=1", "http://[::1]:9/metrics"},
	}
	for _, tt := range tests {
		if got, err := MetricsURL(tt.ws); err != nil || got != tt.want {
			t.Errorf("MetricsURL(%q) = %q, %v; want %q", tt.ws, got, err, tt.want)
		}
	}
}

func TestParseMetrics(t *testing.T) {
	page := `# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 12.5
process_resident_memory_bytes 4.5e+07
sqlgym_step_seconds_bucket{tool="submit",le="0.0001"} 3
sqlgym_step_seconds_count{tool="execute_sql"} 40
sqlgym_step_seconds_count{tool="submit"} 10
sqlgym_step_seconds_sum{tool="submit"} 0.5
go_goroutines 12
sqlgym_db_statements_prepared_total 30
sqlgym_db_statements_reused_total 90
sqlgym_episodes_ended_total{outcome="correct"} 8
sqlgym_episodes_ended_total{outcome="mismatch"} 4
sqlgym_trajectory_fsyncs_total 3
sqlgym_websocket_replies_total 120
sqlgym_websocket_flushes_total 40
garbage line
`
	s, err := parseMetrics(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	if s.cpu != 12.5 || s.rss != 45e6 || s.steps != 50 {
		t.Errorf("parsed cpu %v, rss %v, steps %v; want 12.5, 45e6, 50", s.cpu, s.rss, s.steps)
	}
	if s.prepared != 30 || s.reused != 90 || s.ended != 12 || s.fsyncs != 3 {
		t.Errorf("parsed prepared %v, reused %v, ended %v, fsyncs %v; want 30, 90, 12, 3", s.prepared, s.reused, s.ended, s.fsyncs)
	}
	if s.replies != 120 || s.flushes != 40 {
		t.Errorf("parsed replies %v, flushes %v; want 120, 40", s.replies, s.flushes)
	}
	_, err = parseMetrics(strings.NewReader("sqlgym_step_seconds_count{tool=\"submit\"} 1\n"))
	if err == nil || !strings.Contains(err.Error(), "no process collector") {
		t.Errorf("a page without the process metrics: %v, want an error saying so", err)
	}
}

// TestRunServerProcess reads the server's CPU and memory from its
// /metrics during a run: the steps it counted are the bench's, and the
// CPU per step is the CPU over them.
func TestRunServerProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the process collector reads /proc")
	}
	srv := startServer(t, serverOptions{durable: true})
	rep, err := Run(context.Background(), Config{URL: srv.URL, Sockets: 2, EpisodesPerSocket: 8, Episodes: 200, InProcess: true})
	if err != nil {
		t.Fatal(err)
	}
	p := rep.Process
	if p.Error != "" || p.MetricsURL != strings.Replace(strings.TrimSuffix(srv.URL, "/v1/ws"), "ws:", "http:", 1)+"/metrics" {
		t.Fatalf("server process %+v: want it read from the server's /metrics", p)
	}
	if p.Steps != rep.Steps || p.Samples < 2 || p.RSSEnd <= 0 || p.RSSPeak < p.RSSEnd || p.CPU < 0 || !p.IncludesClient {
		t.Errorf("server process %+v; want %d steps, 2 samples or more, a resident set, the client included", p, rep.Steps)
	}
	if p.CPU > 0 && p.CPUPerStepUS != p.CPU*1e6/float64(p.Steps) {
		t.Errorf("cpu per step %v us, want %v s over %d steps", p.CPUPerStepUS, p.CPU, p.Steps)
	}
	// The mixed script runs the same statements in every episode, and
	// ends 200 episodes on a durable log.
	if p.StatementsReused <= 0 || p.StatementsReused > 1 || p.EndsPerFsync < 1 || p.RepliesPerWrite < 1 {
		t.Errorf("statements reused %v, ends per fsync %v, replies per write %v; want a share in (0, 1], at least 1, at least 1",
			p.StatementsReused, p.EndsPerFsync, p.RepliesPerWrite)
	}
	var text strings.Builder
	rep.WriteText(&text)
	for _, want := range []string{"us/step; rss peak", "clients and the server's together", "of statements run from prepared ones", "replies per socket write"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the text report lacks %q:\n%s", want, text.String())
		}
	}
}

// TestRunWithoutMetrics runs against a server whose /metrics is not
// found: the run reports all the same, saying why the process is not.
func TestRunWithoutMetrics(t *testing.T) {
	srv := startServer(t, serverOptions{})
	h := srv.Server.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer hs.Close()
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + "/v1/ws"
	rep, err := Run(context.Background(), Config{URL: url, Sockets: 1, EpisodesPerSocket: 2, Episodes: 10})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ended != 10 || !strings.Contains(rep.Process.Error, "404") || rep.Process.Samples != 0 {
		t.Errorf("ended %d, server process %+v; want 10 and a 404 error", rep.Ended, rep.Process)
	}
	var text strings.Builder
	rep.WriteText(&text)
	if !strings.Contains(text.String(), "server process  not read from "+hs.URL+"/metrics") {
		t.Errorf("the text report does not say why:\n%s", text.String())
	}
}
