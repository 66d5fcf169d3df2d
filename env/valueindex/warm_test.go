package valueindex

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// TestWarmReportsEachFailureOnce: with a directory that cannot be made
// (a path under a regular file) every build fails, and each database's
// failure is reported once, with its file, not again by Warm.
func TestWarmReportsEachFailureOnce(t *testing.T) {
	ds, cat := demoDataset(t)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var log progressLog
	s := newStore(t, filepath.Join(file, "index"), &log)
	s.Warm([]*env.Dataset{ds}, func(ctx context.Context, ds *env.Dataset, dbID string) (env.DB, error) {
		return cat.DB(ctx, ds, dbID)
	})
	ids := sortedIDs(ds)
	last := ids[len(ids)-1]
	// Warm goes through the databases in order: once the last one is
	// reported, a repeat of any earlier one would have been too.
	waitfor.Until(t, "the last database's report", func() bool {
		for _, p := range log.all() {
			if p.DBID == last {
				return true
			}
		}
		return false
	})
	count := map[string]int{}
	for _, p := range log.all() {
		count[p.DBID]++
		if p.Err == nil || p.Path == "" {
			t.Errorf("report %+v: want a failure naming its file", p)
		}
	}
	for _, id := range ids[:len(ids)-1] {
		if count[id] != 1 {
			t.Errorf("%s reported %d times, want once", id, count[id])
		}
	}
}
