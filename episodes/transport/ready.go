package transport

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Defaults of the readiness checks (ReadyConfig).
const (
	DefaultReadyInterval = 2 * time.Second
	DefaultReadyTimeout  = time.Second
)

// Check is one of readiness's checks: a name, and a probe that returns
// why the server cannot serve new episodes now, or nil. A probe must
// return soon after its context ends.
type Check struct {
	Name  string
	Probe func(context.Context) error
}

// ReadyConfig is what GET /readyz checks, besides whether the server
// drains (Server.Drain).
type ReadyConfig struct {
	Checks []Check
	// Interval is how long a round of checks is reused before the next
	// request runs them again (0: DefaultReadyInterval).
	Interval time.Duration
	// Timeout bounds each check; one that passes it fails
	// (0: DefaultReadyTimeout).
	Timeout time.Duration
}

// CheckResult is one check's outcome in /readyz's body.
type CheckResult struct {
	Name  string `json:"name"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// Readiness is /readyz's body.
type Readiness struct {
	Ready  bool          `json:"ready"`
	Checks []CheckResult `json:"checks"`
}

// readiness runs the checks, at most once per interval, and knows
// whether the server drains.
type readiness struct {
	cfg      ReadyConfig
	draining atomic.Bool

	mu   sync.Mutex // guards last and at; held while a round runs, so that concurrent requests share it
	last []CheckResult
	at   time.Time
}

func newReadiness(cfg ReadyConfig, reg prometheus.Registerer) *readiness {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultReadyInterval
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultReadyTimeout
	}
	r := &readiness{cfg: cfg}
	register(reg, prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sqlgym_ready",
		Help: "1 when the server can serve new episodes (what GET /readyz answers 200 for), 0 when it drains or a check fails."},
		func() float64 {
			if r.state(context.Background()).Ready {
				return 1
			}
			return 0
		}))
	return r
}

// state is the readiness now: draining first, then the checks' last
// round, run again when older than the interval.
func (r *readiness) state(ctx context.Context) Readiness {
	out := Readiness{Ready: true, Checks: []CheckResult{{Name: "draining", OK: true}}}
	if r.draining.Load() {
		out.Ready = false
		out.Checks[0] = CheckResult{Name: "draining", Error: "the server is shutting down: it starts no new episodes"}
	}
	for _, c := range r.results(ctx) {
		out.Checks = append(out.Checks, c)
		out.Ready = out.Ready && c.OK
	}
	return out
}

// results returns the checks' last round, or runs a new one: the checks
// at once, each within the timeout.
func (r *readiness) results(ctx context.Context) []CheckResult {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last != nil && time.Since(r.at) < r.cfg.Interval {
		return r.last
	}
	res := make([]CheckResult, len(r.cfg.Checks))
	var wg sync.WaitGroup
	for i, c := range r.cfg.Checks {
		wg.Go(func() { res[i] = r.run(ctx, c) })
	}
	wg.Wait()
	r.last, r.at = res, time.Now()
	return res
}

// run runs one check within the timeout.
func (r *readiness) run(ctx context.Context, c Check) CheckResult {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.cfg.Timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Probe(ctx) }()
	select {
	case err := <-done:
		if err != nil {
			return CheckResult{Name: c.Name, Error: err.Error()}
		}
		return CheckResult{Name: c.Name, OK: true}
	case <-ctx.Done():
		return CheckResult{Name: c.Name, Error: "no answer within " + r.cfg.Timeout.String() + " (--ready-timeout)"}
	}
}

// serveReady answers GET /readyz: 200 when ready, 503 when not, the
// checks in the body either way.
func (r *readiness) serveReady(w http.ResponseWriter, req *http.Request) {
	st := r.state(req.Context())
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if !st.Ready {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	json.NewEncoder(w).Encode(st)
}

// serveLive answers GET /livez: 200 while the process serves HTTP at all;
// it touches no database, store or lock the episodes hold.
func serveLive(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte(`{"live":true}` + "\n"))
}

// Drain makes GET /readyz answer 503 from now on (its "draining" check
// failing), so that load balancers and orchestrators send new clients
// elsewhere; the server goes on serving its connections, and new ones,
// until Serve's context ends.
func (s *Server) Drain() { s.ready.draining.Store(true) }
