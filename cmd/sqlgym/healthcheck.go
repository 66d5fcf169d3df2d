package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// runHealthcheck asks a server's /healthz whether it serves, for a
// container's HEALTHCHECK where the image has no curl: it exits 0 when
// the server answers 200, 1 otherwise. Its --addr is serve's (the same
// SQLGYM_ADDR), so the check follows the address the server was given;
// an address on every interface (0.0.0.0, ::, ":PORT") is probed on the
// loopback one.
func runHealthcheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("healthcheck", stderr)
	addr := fs.String("addr", "127.0.0.1:8765", "the address the server listens on (serve's --addr); probed at http://ADDR/healthz")
	url := fs.String("url", "", "the health URL to probe instead of --addr's (http://HOST:PORT/healthz)")
	timeout := fs.Duration("timeout", 5*time.Second, "how long the probe may take")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *timeout <= 0 {
		return usageError{fmt.Sprintf("--timeout must be > 0, got %s", *timeout)}
	}
	target := *url
	if target == "" {
		probe, err := probeAddr(*addr)
		if err != nil {
			return err
		}
		target = "http://" + probe + "/healthz"
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return usageError{fmt.Sprintf("--url %q: %v", target, err)}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("unhealthy: %w", err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<10))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("unhealthy: GET %s answered %s", target, resp.Status)
	}
	fmt.Fprintln(stdout, "healthy:", target)
	return nil
}

// probeAddr is where a server listening on addr is reached from the same
// host: addr itself, or the loopback address when addr listens on every
// interface.
func probeAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", usageError{fmt.Sprintf("--addr %q: want HOST:PORT: %v", addr, err)}
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}
