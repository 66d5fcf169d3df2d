package main

import (
	"context"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/transport"
)

// The servers of these helpers are built as sqlgym serve builds them
// (runServer over the stack its args give), on a loopback port, through
// serveLoopback, the path bench takes for its own server; the tests of
// the whole command (its output, its refusals) run `serve` through run
// instead (startServe, serveInProcess).

// loopbackOpts are the server's bounds in these tests: its defaults,
// with an idle timeout no test reaches.
var loopbackOpts = serverOpts{maxEpisodes: 256, idleTimeout: time.Hour, frameBytes: transport.DefaultMaxFrameBytes, grace: 5 * time.Second}

// withServer serves the stack that serve's args build on a loopback port
// while use runs, then stops it, which records the episodes it had.
func withServer(t *testing.T, args []string, use func(url string)) {
	t.Helper()
	err := serveLoopback(context.Background(), parseStack(t, args...), loopbackOpts, zap.NewNop(), func(url string, _ *serveStack) error {
		use(url)
		return nil
	})
	if err != nil {
		t.Fatalf("server: %v", err)
	}
}

// serveAndDrive is withServer with a client: drive plays episodes
// through it, and the server stops once drive returns.
func serveAndDrive(t *testing.T, args []string, drive func(c *client.Client)) {
	t.Helper()
	withServer(t, args, func(url string) {
		c, err := client.Dial(context.Background(), url, "")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		drive(c)
	})
}

// serveBackground serves the stack that serve's args build on a loopback
// port, logging to log, until the test ends, and returns its URL.
func serveBackground(t *testing.T, args []string, log *zap.Logger) string {
	t.Helper()
	s := parseStack(t, args...)
	urls, release, done := make(chan string, 1), make(chan struct{}), make(chan error, 1)
	go func() {
		done <- serveLoopback(context.Background(), s, loopbackOpts, log, func(url string, _ *serveStack) error {
			urls <- url
			<-release
			return nil
		})
	}()
	t.Cleanup(func() {
		close(release)
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	select {
	case err := <-done:
		done <- err // for the cleanup
		t.Fatalf("server did not start: %v", err)
	case url := <-urls:
		return url
	}
	return ""
}

// startServe runs sqlgym serve with args on a free loopback port until
// the test ends, and returns its WebSocket URL; serve must end cleanly.
func startServe(t *testing.T, args ...string) string {
	t.Helper()
	url, stderr, cancel, done := serveInProcess(t, append([]string{"--shutdown-grace", "0s"}, args...)...) // live episodes end at once
	t.Cleanup(func() {
		if err := stopped(t, cancel, done); err != nil {
			t.Errorf("serve: %v\n%s", err, stderr.String())
		}
	})
	return url
}
