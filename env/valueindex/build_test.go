package valueindex

import (
	"context"
	"path/filepath"
	"testing"
)

// TestFailedBuildLeavesNothing: a build that fails (here its context has
// ended) leaves neither the index nor its temporary file in the folder,
// and a build that succeeds leaves only the index.
func TestFailedBuildLeavesNothing(t *testing.T) {
	ds, cat := demoDataset(t)
	s := newStore(t, t.TempDir(), nil)
	id, path, err := identify(ds, "library", s.cfg)
	if err != nil {
		t.Fatal(err)
	}
	db, err := cat.DB(context.Background(), ds, "library")
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if err := build(cancelled, db, ds.Dialect, id, path, s.cfg); err == nil {
		t.Fatal("a build under an ended context succeeded")
	}
	if names := dirFiles(t, filepath.Dir(path)); len(names) != 0 {
		t.Fatalf("a failed build left %v", names)
	}
	if err := build(context.Background(), db, ds.Dialect, id, path, s.cfg); err != nil {
		t.Fatal(err)
	}
	if names := dirFiles(t, filepath.Dir(path)); len(names) != 1 || names[0] != path {
		t.Fatalf("a build left %v, want only %s", names, path)
	}
}
