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

// TestBenchProfiles runs an in-process bench with --cpuprofile and
// --memprofile: the files hold a pprof CPU profile and an allocations
// profile (gzip-compressed protocol buffers whose string tables name
// their sample types and units).
func TestBenchProfiles(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	var stdout, stderr strings.Builder
	args := []string{"bench", "--episodes", "300", "--sockets", "2", "--episodes-per-socket", "8",
		"--cpuprofile", cpu, "--memprofile", mem}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("bench: %v\nstderr:\n%s", err, stderr.String())
	}
	profileHolds(t, cpu, "cpu", "nanoseconds")
	profileHolds(t, mem, "alloc_space", "bytes")
}

// profileHolds checks that the pprof file at path names each of want in
// its string table.
func profileHolds(t *testing.T, path string, want ...string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: no gzip stream: %v", path, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, w := range want {
		if !bytes.Contains(raw, []byte(w)) {
			t.Errorf("%s holds no %q (%d bytes)", path, w, len(raw))
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
		args = append(args[:1], append([]string{"--memprofile", path}, args[3:]...)...)
		err = run(context.Background(), args, &out, &out)
		if err == nil || !strings.Contains(err.Error(), "--memprofile") {
			t.Errorf("%s %v: %v, want an error naming --memprofile", cmd, args[1:], err)
		}
	}
}
