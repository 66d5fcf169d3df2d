package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchCPUProfile runs an in-process bench with --cpuprofile: the
// file holds a pprof CPU profile (gzip-compressed protocol buffers whose
// sample type is cpu, in nanoseconds).
func TestBenchCPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	var stdout, stderr strings.Builder
	args := []string{"bench", "--episodes", "300", "--sockets", "2", "--episodes-per-socket", "8", "--cpuprofile", path}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("bench: %v\nstderr:\n%s", err, stderr.String())
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("--cpuprofile wrote no gzip stream: %v", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("--cpuprofile: %v", err)
	}
	// The string table holds the sample type's name and unit.
	for _, want := range []string{"cpu", "nanoseconds"} {
		if !bytes.Contains(raw, []byte(want)) {
			t.Errorf("profile holds no %q (%d bytes)", want, len(raw))
		}
	}
}

// TestCPUProfileBadPath fails before serving when the profile cannot be
// created, naming the flag.
func TestCPUProfileBadPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "cpu.pprof")
	for _, cmd := range []string{"bench", "serve"} {
		var out strings.Builder
		args := []string{cmd, "--cpuprofile", path, "--data-dir", t.TempDir(), "--episodes", "1"}
		if cmd == "serve" {
			args = []string{cmd, "--cpuprofile", path, "--data-dir", t.TempDir(), "--addr", "127.0.0.1:0"}
		}
		err := run(context.Background(), args, &out, &out)
		if err == nil || !strings.Contains(err.Error(), "--cpuprofile") {
			t.Errorf("%s with --cpuprofile in a missing folder: %v, want an error naming --cpuprofile", cmd, err)
		}
	}
}
