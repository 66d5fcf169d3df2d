package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
)

// clearAuthEnv keeps the process environment out of serve's auth flags.
func clearAuthEnv(t *testing.T) {
	t.Setenv("SQLGYM_TOKEN", "")
	t.Setenv("SQLGYM_INSECURE", "false")
}

// TestServeRefusesAPublicAddressWithoutAToken runs serve on addresses
// that are not loopback ones, without a token: each is refused before
// anything is built or bound, with a message saying what to do.
func TestServeRefusesAPublicAddressWithoutAToken(t *testing.T) {
	clearAuthEnv(t)
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:8765", "example.org:8765"} {
		dataDir := filepath.Join(t.TempDir(), "data")
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), []string{"serve", "--addr", addr, "--data-dir", dataDir}, &stdout, &stderr)
		if err == nil {
			t.Fatalf("serve --addr %s without a token: started", addr)
		}
		for _, want := range []string{"refusing to serve on " + addr + " without a token", "--token", "SQLGYM_TOKEN", "--insecure", "127.0.0.1"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("serve --addr %s: %q does not say %q", addr, err, want)
			}
		}
		if code := exitCode(err); code != 2 {
			t.Errorf("serve --addr %s: exit code %d, want 2", addr, code)
		}
		if _, err := os.Stat(dataDir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("serve --addr %s: the data dir was made before the refusal (%v)", addr, err)
		}
	}
}

// TestServeTakesAPublicAddressWithATokenOrInsecure gets past the address
// check with --token or --insecure, and stops on a missing dataset after
// it, so that no public address is bound: --insecure logs a warning and
// --token does not.
func TestServeTakesAPublicAddressWithATokenOrInsecure(t *testing.T) {
	clearAuthEnv(t)
	missing := "spider:" + filepath.Join(t.TempDir(), "none")
	for _, tt := range []struct {
		flags    []string
		wantWarn bool
	}{
		{[]string{"--insecure"}, true},
		{[]string{"--token", "s3cret"}, false},
		{[]string{"--token", "s3cret", "--insecure"}, false},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"serve", "--addr", "0.0.0.0:0", "--dataset", missing, "--data-dir", t.TempDir()}, tt.flags...)
		err := run(context.Background(), args, &stdout, &stderr)
		if err == nil || strings.Contains(err.Error(), "refusing") || !strings.Contains(err.Error(), "none") {
			t.Fatalf("serve %v: %v, want past the address check, stopped on the missing dataset", tt.flags, err)
		}
		warned := strings.Contains(stderr.String(), "serving without authentication on a non-loopback address")
		if warned != tt.wantWarn {
			t.Errorf("serve %v: warning logged %v, want %v; log:\n%s", tt.flags, warned, tt.wantWarn, stderr.String())
		}
	}
}

// TestCheckExposure is the address check case by case: loopback
// addresses need neither a token nor --insecure.
func TestCheckExposure(t *testing.T) {
	tests := []struct {
		addr, token string
		insecure    bool
		wantErr     bool
		wantWarn    bool
	}{
		{"127.0.0.1:8765", "", false, false, false},
		{"127.8.9.10:0", "", false, false, false},
		{"[::1]:0", "", false, false, false},
		{"localhost:8765", "", false, false, false},
		{"LocalHost:8765", "", false, false, false},
		{"[::ffff:127.0.0.1]:0", "", false, false, false},
		{"0.0.0.0:8765", "", false, true, false},
		{":8765", "", false, true, false},
		{"[::]:8765", "", false, true, false},
		{"10.1.2.3:8765", "", false, true, false},
		{"myhost:8765", "", false, true, false},
		{"not an address", "", false, true, false},
		{"0.0.0.0:8765", "", true, false, true},
		{":8765", "", true, false, true},
		{"0.0.0.0:8765", "t", false, false, false},
		{"[::]:8765", "t", true, false, false},
	}
	for _, tt := range tests {
		core, logs := observer.New(zapcore.WarnLevel)
		err := checkExposure(tt.addr, tt.token, tt.insecure, zap.New(core))
		if (err != nil) != tt.wantErr {
			t.Errorf("checkExposure(%q, token %q, insecure %v) = %v, want error %v", tt.addr, tt.token, tt.insecure, err, tt.wantErr)
		}
		warns := logs.FilterMessageSnippet("without authentication").All()
		if (len(warns) == 1) != tt.wantWarn {
			t.Errorf("checkExposure(%q, token %q, insecure %v): %d warnings, want %v", tt.addr, tt.token, tt.insecure, len(warns), tt.wantWarn)
		}
		if tt.wantWarn && (len(warns) != 1 || warns[0].ContextMap()["addr"] != tt.addr) {
			t.Errorf("warning %+v does not name addr %q", warns, tt.addr)
		}
	}
}

// TestServeOnLoopbackNeedsNoToken starts serve on loopback addresses
// without a token or --insecure, waits for it to say it is serving, and
// stops it.
func TestServeOnLoopbackNeedsNoToken(t *testing.T) {
	clearAuthEnv(t)
	for _, addr := range []string{"127.0.0.1:0", "localhost:0"} {
		ctx, cancel := context.WithCancel(context.Background())
		out := &signalWriter{ready: make(chan struct{}), want: "serving"}
		var stderr binserver.LockedBuffer
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, []string{"serve", "--addr", addr, "--data-dir", t.TempDir(), "--shutdown-grace", "5s"}, out, &stderr)
		}()
		select {
		case <-out.ready:
		case err := <-done:
			cancel()
			t.Fatalf("serve --addr %s without a token: %v", addr, err)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve --addr %s: %v", addr, err)
		}
		if strings.Contains(stderr.String(), "without authentication") {
			t.Errorf("serve --addr %s warned about a loopback address:\n%s", addr, stderr.String())
		}
	}
}

// signalWriter closes ready once what was written holds want.
type signalWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	want  string
	ready chan struct{}
	done  bool
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.done && strings.Contains(w.buf.String(), w.want) {
		w.done = true
		close(w.ready)
	}
	return len(p), nil
}

// TestServeReplyDelayBounds: a --reply-delay that is negative or longer
// than a second is refused before anything starts, saying what it takes.
func TestServeReplyDelayBounds(t *testing.T) {
	for _, d := range []string{"-1ms", "2s"} {
		err := run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--reply-delay", d},
			io.Discard, io.Discard)
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--reply-delay must be between 0 and 1s") {
			t.Errorf("--reply-delay %s gave %v, want a usage error naming its range", d, err)
		}
	}
}
