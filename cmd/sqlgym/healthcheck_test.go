package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHealthcheckServe checks that sqlgym healthcheck passes on a running
// server, probed by its --addr, and that SQLGYM_ADDR, which serve reads
// too, points it there.
func TestHealthcheckServe(t *testing.T) {
	withServer(t, []string{"--data-dir", t.TempDir()}, func(url string) {
		addr := strings.TrimSuffix(strings.TrimPrefix(url, "ws://"), "/v1/ws")
		out := mustRun(t, "healthcheck", "--addr", addr)
		if out != "healthy: http://"+addr+"/healthz\n" {
			t.Errorf("healthcheck --addr %s printed %q", addr, out)
		}
		_, port, _ := net.SplitHostPort(addr)
		t.Setenv("SQLGYM_ADDR", "0.0.0.0:"+port) // every interface: probed on the loopback one
		if out := mustRun(t, "healthcheck"); out != "healthy: http://127.0.0.1:"+port+"/healthz\n" {
			t.Errorf("healthcheck with SQLGYM_ADDR=0.0.0.0:%s printed %q", port, out)
		}
	})
}

// TestHealthcheckUnhealthy checks that a server that answers anything but
// 200, or none at all, fails the check (exit 1) saying why, and that a
// bad --addr is a usage error (exit 2).
func TestHealthcheckUnhealthy(t *testing.T) {
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "starting", http.StatusServiceUnavailable)
	}))
	defer down.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	for _, tt := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"--url", down.URL + "/healthz"}, "answered 503 Service Unavailable", 1},
		{[]string{"--addr", closed}, "unhealthy: ", 1},
		{[]string{"--addr", "8765"}, `--addr "8765": want HOST:PORT`, 2},
		{[]string{"--timeout", "0s"}, "--timeout must be > 0", 2},
	} {
		_, _, err := sqlgym(t, append([]string{"healthcheck"}, tt.args...)...)
		if err == nil || exitCode(err) != tt.code || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("healthcheck %v: %v (exit %d), want exit %d with %q", tt.args, err, exitCode(err), tt.code, tt.want)
		}
	}
}
