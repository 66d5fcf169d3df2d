package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
)

// TestServeRefusesConnectionFlagsThatCannotWork: an origin no browser
// sends, a host with a port, and a connection bound the open-file limit
// cannot hold are refused before anything starts, saying what is taken.
func TestServeRefusesConnectionFlagsThatCannotWork(t *testing.T) {
	clearAuthEnv(t)
	cases := [][]string{
		{"--allowed-origins", "console.example", "an origin is scheme://host[:port]"},
		{"--allowed-origins", "https://console.example/app", "an origin is scheme://host[:port]"},
		{"--allowed-origins", "https://ok.example,ftp://x", "an origin is scheme://host[:port]"},
		{"--allowed-hosts", "gpu-box:8765", "without a scheme, path or port"},
		{"--allowed-hosts", "http://gpu-box", "without a scheme, path or port"},
		{"--idle-conn-timeout", "0s", "--idle-conn-timeout"},
	}
	if limit, ok := transport.OpenFileLimit(); ok {
		cases = append(cases, []string{"--max-tcp-connections", fmt.Sprint(limit), "open-file limit"})
	}
	for _, c := range cases {
		err := run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), c[0], c[1]}, io.Discard, io.Discard)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c[2]) {
			t.Errorf("%s %s gave %v, want a usage error saying %q", c[0], c[1], err, c[2])
		}
	}
}

// TestInsecureServeAllowsItsOwnAddress: without a token on an address
// that is not loopback (--insecure), the Host check lets through any IP
// address and the name --addr gives; on loopback, or with a token, only
// what the flags name.
func TestInsecureServeAllowsItsOwnAddress(t *testing.T) {
	tests := []struct {
		addr, token string
		anyIP       bool
		hosts       []string
	}{
		{"127.0.0.1:8765", "", false, []string{"a.lan"}},
		{"localhost:8765", "", false, []string{"a.lan"}},
		{"0.0.0.0:8765", "", true, []string{"a.lan"}},
		{":8765", "", true, []string{"a.lan"}},
		{"10.1.2.3:8765", "", true, []string{"a.lan"}},
		{"gpu-box.lan:8765", "", true, []string{"a.lan", "gpu-box.lan"}},
		{"gpu-box.lan:8765", "t", false, []string{"a.lan"}},
	}
	for _, tt := range tests {
		var c connFlags
		c.hosts.Set("a.lan")
		c.exposed(tt.addr, tt.token, zap.NewNop())
		var cfg transport.ServerConfig
		c.apply(&cfg)
		if cfg.AllowIPHosts != tt.anyIP || !slices.Equal(cfg.AllowedHosts, tt.hosts) {
			t.Errorf("--addr %s, token %q: any IP %v, hosts %v; want %v, %v", tt.addr, tt.token, cfg.AllowIPHosts, cfg.AllowedHosts, tt.anyIP, tt.hosts)
		}
	}
}

// TestServeAllowedOriginsReachTheServer runs serve with
// --allowed-origins: an upgrade from that origin is served, one from
// another page is refused with 403 naming the flag.
func TestServeAllowedOriginsReachTheServer(t *testing.T) {
	clearAuthEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	out := &signalWriter{ready: make(chan struct{}), want: "serving"}
	var stderr binserver.LockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--shutdown-grace", "5s",
			"--allowed-origins", "https://a.example,https://console.example"}, out, &stderr)
	}()
	select {
	case <-out.ready:
	case err := <-done:
		cancel()
		t.Fatalf("serve: %v", err)
	}
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	out.mu.Lock()
	addr := regexp.MustCompile(`ws://(\S+)/v1/ws`).FindStringSubmatch(out.buf.String())[1]
	out.mu.Unlock()
	for origin, want := range map[string]int{"https://console.example": http.StatusSwitchingProtocols, "https://evil.example": http.StatusForbidden} {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/v1/ws", nil)
		for k, v := range map[string]string{"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
			"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Origin": origin} {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		var body []byte
		if resp.StatusCode != http.StatusSwitchingProtocols { // after 101 the body is the socket
			body, _ = io.ReadAll(resp.Body)
		}
		resp.Body.Close()
		if resp.StatusCode != want || want == http.StatusForbidden && !strings.Contains(string(body), "--allowed-origins") {
			t.Errorf("upgrade from %s: %d %q, want %d", origin, resp.StatusCode, body, want)
		}
	}
}
