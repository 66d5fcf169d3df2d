package valueindex

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// indexPath is where s keeps the index of database dbID of ds.
func indexPath(t *testing.T, s *Store, ds *env.Dataset, dbID string) string {
	t.Helper()
	_, path, err := identify(ds, dbID, s.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// searchAsync runs one search in the background and returns where its
// error arrives.
func searchAsync(s *Store, ds *env.Dataset, cat *env.Catalog, dbID string) <-chan error {
	done := make(chan error, 1)
	go func() {
		ctx := context.Background()
		db, err := cat.DB(ctx, ds, dbID)
		if err == nil {
			_, err = s.SearchValues(ctx, ds, dbID, db, env.ValueQuery{Query: "Leeds", Limit: 5})
		}
		done <- err
	}()
	return done
}

// closeAsync closes s in the background and returns where its error
// arrives.
func closeAsync(s *Store) <-chan error {
	done := make(chan error, 1)
	go func() { done <- s.Close() }()
	return done
}

// received waits for a value on ch (failing the test when none comes)
// and returns it.
func received[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	var v T
	got := false
	waitfor.Until(t, what, func() bool {
		select {
		case v = <-ch:
			got = true
		default:
		}
		return got
	})
	return v
}

// TestIndexPathHoldingAFIFO: a named pipe planted where a database's index
// file goes is not opened (opening it would block until a writer came):
// the search answers at once with an error naming the path and what it
// is, nothing replaces the pipe, and Close returns.
func TestIndexPathHoldingAFIFO(t *testing.T) {
	ds, cat := demoDataset(t)
	var log progressLog
	// Closed by the test itself, not at its cleanup: a Close that hangs
	// fails the test instead of holding it.
	s, err := New(Config{Dir: t.TempDir(), Progress: log.add})
	if err != nil {
		t.Fatal(err)
	}
	path := indexPath(t, s, ds, "library")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	err = received(t, "the search of a database whose index path is a FIFO", searchAsync(s, ds, cat, "library"))
	if err == nil || !strings.Contains(err.Error(), path+" is a named pipe (FIFO), not a regular file") {
		t.Errorf("search error = %v, want one naming %s as a named pipe", err, path)
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi, err)
	}
	if p := log.all(); len(p) != 1 || p[0].Err == nil || p[0].Path != path {
		t.Errorf("progress %+v, want one failure naming the file", p)
	}
	if err := received(t, "Close", closeAsync(s)); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// TestIndexPathHoldingADirectory: a directory where an index file goes is
// refused the same way, and nothing is written into it.
func TestIndexPathHoldingADirectory(t *testing.T) {
	ds, cat := demoDataset(t)
	s := newStore(t, t.TempDir(), nil)
	path := indexPath(t, s, ds, "library")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	err := received(t, "the search", searchAsync(s, ds, cat, "library"))
	if err == nil || !strings.Contains(err.Error(), path+" is a directory, not a regular file") {
		t.Errorf("search error = %v, want one naming %s as a directory", err, path)
	}
	if entries, err := os.ReadDir(path); err != nil || len(entries) != 0 {
		t.Errorf("the directory holds %v (%v), want nothing", entries, err)
	}
}

// TestCloseIsBoundedWhileABuildIsStuck: a build that never ends (here
// blocked opening a FIFO no one writes, as an index build did when a
// pipe stood at its path) does not hold Close past CloseTimeout, on a
// clock moved by hand; Close names the build still running.
func TestCloseIsBoundedWhileABuildIsStuck(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "stuck.fts4.sqlite")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	const closeTimeout = time.Minute
	clock := clockwork.NewFakeClock()
	s, err := New(Config{Dir: dir, CloseTimeout: closeTimeout, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	f := &flight{done: make(chan struct{}), start: time.Now()}
	s.dbs[fifo] = f
	s.bg.Add(1)
	go func() { // the stuck build
		defer s.bg.Done()
		defer close(f.done)
		if r, err := os.Open(fifo); err == nil {
			r.Close()
		}
	}()
	closed := closeAsync(s)
	ctx, cancel := context.WithTimeout(context.Background(), waitfor.Timeout)
	defer cancel()
	if err := clock.BlockUntilContext(ctx, 1); err != nil { // Close's timer
		t.Fatalf("waiting for Close to set its timer: %v", err)
	}
	select {
	case err := <-closed:
		t.Fatalf("Close = %v before its timeout passed, with a build stuck", err)
	default:
	}
	clock.Advance(closeTimeout)
	err = received(t, "Close", closed)
	if err == nil || !strings.Contains(err.Error(), "builds still running") || !strings.Contains(err.Error(), fifo) {
		t.Errorf("Close = %v, want an error naming the build still running", err)
	}
	// Let the stuck open return, so no goroutine outlives the test.
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	received(t, "the stuck build to end", f.done)
}
