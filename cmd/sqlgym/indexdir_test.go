package main

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

// tree lists every path under dir.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		out = append(out, path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestServeRefusesValueIndexDirInsideDataset: a --value-index-dir inside
// a served dataset's folder, given directly, not made yet, or through a
// symbolic link, stops serve at startup with a usage error naming both
// paths, and nothing is written into the dataset. (The --addr cannot be
// listened on, so a server that got that far fails otherwise.)
func TestServeRefusesValueIndexDirInsideDataset(t *testing.T) {
	dataset := checkSpiderDir(t, "SELECT 1")
	dir := strings.TrimPrefix(dataset, "shop=spider:")
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(filepath.Join(dir, "database"), link); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	for _, index := range []string{
		filepath.Join(dir, "database", "shop"),
		filepath.Join(dir, "database", "new", "index"),
		filepath.Join(link, "shop"),
		filepath.Join(link, "new"),
	} {
		_, _, err := sqlgym(t, "serve", "--dataset", dataset, "--tools", "execute_sql,search_values", "--value-index-dir", index,
			"--data-dir", t.TempDir(), "--addr", "256.0.0.1:0", "--token", "x")
		if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "--value-index-dir "+index) ||
			!strings.Contains(err.Error(), "inside "+dir) {
			t.Errorf("--value-index-dir %s: err = %v (%T), want a usage error naming it and %s", index, err, err, dir)
		}
	}
	if after := tree(t, dir); !slices.Equal(before, after) {
		t.Errorf("the dataset changed:\nbefore %q\nafter  %q", before, after)
	}
	if _, _, err := sqlgym(t, "serve", "--search-concurrency", "0", "--data-dir", t.TempDir(), "--addr", "256.0.0.1:0", "--token", "x"); !errors.As(err, new(usageError)) ||
		!strings.Contains(err.Error(), "--search-concurrency must be at least 1") {
		t.Errorf("--search-concurrency 0: err = %v, want a usage error", err)
	}
}

// serveInProcess runs serve with args until the test cancels it, and
// returns its WebSocket URL, its log, the cancel and where its error
// arrives.
func serveInProcess(t *testing.T, args ...string) (string, *binserver.LockedBuffer, context.CancelFunc, <-chan error) {
	t.Helper()
	return runInProcess(t, append([]string{"serve", "--addr", "127.0.0.1:0", "--log-format", "json"}, args...))
}

// runInProcess is serveInProcess with the whole command line given.
func runInProcess(t *testing.T, args []string) (string, *binserver.LockedBuffer, context.CancelFunc, <-chan error) {
	t.Helper()
	clearAuthEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	out := &signalWriter{ready: make(chan struct{}), want: "/v1/ws\n"}
	var stderr binserver.LockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, args, out, &stderr)
	}()
	select {
	case <-out.ready:
	case err := <-done:
		cancel()
		t.Fatalf("serve: %v\n%s", err, stderr.String())
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	return regexp.MustCompile(`ws://\S+/v1/ws`).FindString(out.buf.String()), &stderr, cancel, done
}

// stopped cancels a serve run and waits for it to return (or fails).
func stopped(t *testing.T, cancel context.CancelFunc, done <-chan error) error {
	t.Helper()
	cancel()
	var err error
	returned := false
	waitfor.Until(t, "serve to return after it was stopped", func() bool {
		select {
		case err = <-done:
			returned = true
		default:
		}
		return returned
	})
	return err
}

// TestServeWithAFIFOAsValueIndex: a named pipe where a database's index
// file goes does not hang serve: its startup build is logged as failed
// naming the file, search_values on that database answers unavailable
// saying what the path is, and serve stops when asked, within
// --shutdown-grace.
func TestServeWithAFIFOAsValueIndex(t *testing.T) {
	dataset := checkSpiderDir(t, "SELECT 1")
	index, data := t.TempDir(), t.TempDir()
	args := []string{"--dataset", dataset, "--tools", "execute_sql,search_values,submit", "--value-index-dir", index,
		"--data-dir", data, "--shutdown-grace", "2s"}
	_, log, cancel, done := serveInProcess(t, args...)
	if !waitfor.Within(waitfor.Timeout, func() bool { return strings.Contains(log.String(), "value index ready") }) {
		t.Fatalf("no index was built:\n%s", log)
	}
	if err := stopped(t, cancel, done); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(index, "shop-*.fts4.sqlite"))
	if err != nil || len(files) != 1 {
		t.Fatalf("index files %v (%v), want the shop database's", files, err)
	}
	if err := os.Remove(files[0]); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(files[0], 0o644); err != nil {
		t.Fatal(err)
	}
	url, log, cancel, done := serveInProcess(t, args...)
	defer cancel()
	if !waitfor.Within(waitfor.Timeout, func() bool { return strings.Contains(log.String(), "value index failed") }) {
		t.Errorf("the failed index is not logged:\n%s", log)
	}
	c, err := client.Dial(context.Background(), url, "")
	if err != nil {
		t.Fatal(err)
	}
	ep, err := c.Reset(context.Background(), schemas.ResetParams{TaskID: "shop/0"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Step(context.Background(), ep.EpisodeID, schemas.Action{Tool: schemas.ToolSearchValues, Arguments: json.RawMessage(`{"query":"pen"}`)})
	c.Close()
	if err != nil || !strings.Contains(res.Observation.Content, files[0]+" is a named pipe (FIFO), not a regular file") {
		t.Errorf("search_values = %+v, %v; want an error naming %s as a named pipe", res, err, files[0])
	}
	if err := stopped(t, cancel, done); err != nil {
		t.Errorf("serve: %v", err)
	}
}
