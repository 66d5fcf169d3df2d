package main

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
)

// TestServeBanner starts serve with a token and checks that its banner
// names the WebSocket, the HTTP endpoints and the REPL command, each at
// the address it listens on, and that each printed endpoint answers.
func TestServeBanner(t *testing.T) {
	clearAuthEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &signalWriter{ready: make(chan struct{}), want: "attach a REPL"}
	var stderr binserver.LockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--token", "sekret",
			"--shutdown-grace", "5s"}, out, &stderr)
	}()
	select {
	case <-out.ready:
	case err := <-done:
		t.Fatalf("serve: %v\n%s", err, stderr.String())
	}
	out.mu.Lock()
	banner := out.buf.String()
	out.mu.Unlock()
	addr := regexp.MustCompile(`on ws://(\S+)/v1/ws\n`).FindStringSubmatch(banner)
	if addr == nil {
		t.Fatalf("banner has no ws:// URL on its first line:\n%s", banner)
	}
	for _, want := range []string{
		"POST http://" + addr[1] + "/v1/rpc", "GET  http://" + addr[1] + "/healthz", "GET  http://" + addr[1] + "/metrics",
		"sqlgym repl --url ws://" + addr[1] + "/v1/ws --token TOKEN", "OpenEnv base_url    http://" + addr[1] + "/openenv",
	} {
		if !strings.Contains(banner, want) {
			t.Errorf("banner lacks %q:\n%s", want, banner)
		}
	}
	if strings.Contains(banner, "sekret") {
		t.Errorf("banner shows the token:\n%s", banner)
	}
	for _, path := range []string{"/healthz", "/metrics"} {
		resp, err := http.Get("http://" + addr[1] + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %s", path, resp.Status)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr[1]+"/openenv/health", nil)
	req.Header.Set("Authorization", "Bearer sekret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /openenv/health with the token: %s", resp.Status)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
}
