package transport_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/internal/testkit/metricstest"
)

// getReady GETs /readyz and decodes its body.
func getReady(t *testing.T, base string) (int, transport.Readiness) {
	t.Helper()
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r transport.Readiness
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, r
}

// TestReadyzChecksCachedAndBounded: /readyz names each check and why it
// fails, answers 503 then, runs its checks once per interval however
// many requests come, fails a check that passes its timeout, and the
// sqlgym_ready gauge says the same; /livez answers 200 throughout, and
// neither needs the token.
func TestReadyzChecksCachedAndBounded(t *testing.T) {
	var runs atomic.Int64
	var fail atomic.Bool
	s := serve(t, transport.ServerConfig{Token: "secret", Ready: transport.ReadyConfig{
		Interval: time.Hour, Timeout: 2 * time.Second,
		Checks: []transport.Check{
			{Name: "store", Probe: func(context.Context) error {
				runs.Add(1)
				if fail.Load() {
					return errors.New("store unreachable")
				}
				return nil
			}},
			{Name: "wedged", Probe: func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }},
		}}})
	code, r := getReady(t, s.http)
	if code != http.StatusServiceUnavailable || r.Ready || len(r.Checks) != 3 {
		t.Fatalf("/readyz: %d %+v", code, r)
	}
	byName := map[string]transport.CheckResult{}
	for _, c := range r.Checks {
		byName[c.Name] = c
	}
	if !byName["draining"].OK || !byName["store"].OK || byName["wedged"].OK ||
		!strings.Contains(byName["wedged"].Error, "--ready-timeout") {
		t.Fatalf("/readyz checks: %+v", r.Checks)
	}
	fail.Store(true)
	getReady(t, s.http)
	if n := runs.Load(); n != 1 {
		t.Fatalf("the store check ran %d times within one interval, want 1", n)
	}
	if v := metricstest.Value(t, s.reg, "sqlgym_ready"); v != 0 {
		t.Fatalf("sqlgym_ready = %v with a check failing", v)
	}
	resp, err := http.Get(s.http + "/livez")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/livez: %d", resp.StatusCode)
	}
}

// TestDrainMakesReadyz503: a server with every check passing is ready
// (gauge 1) until Drain, then answers 503 with "draining" failing.
func TestDrainMakesReadyz503(t *testing.T) {
	s := serve(t, transport.ServerConfig{})
	if code, r := getReady(t, s.http); code != http.StatusOK || !r.Ready {
		t.Fatalf("/readyz: %d %+v", code, r)
	}
	if v := metricstest.Value(t, s.reg, "sqlgym_ready"); v != 1 {
		t.Fatalf("sqlgym_ready = %v, want 1", v)
	}
	s.srv.Drain()
	code, r := getReady(t, s.http)
	if code != http.StatusServiceUnavailable || r.Ready || r.Checks[0].Name != "draining" || r.Checks[0].OK {
		t.Fatalf("/readyz after Drain: %d %+v", code, r)
	}
	if v := metricstest.Value(t, s.reg, "sqlgym_ready"); v != 0 {
		t.Fatalf("sqlgym_ready = %v after Drain, want 0", v)
	}
}
