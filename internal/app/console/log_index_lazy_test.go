package console_test

import (
	"context"
	"testing"

	"github.com/sqlgym/sqlgym/internal/app/console"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// TestLogIndexWaitsForItsFirstPage: an index built on first use reads
// nothing and keeps nothing of the episodes that end before a page asks
// for it; the first page starts its build, and from then on episodes
// that end come first in its pages.
func TestLogIndexWaitsForItsFirstPage(t *testing.T) {
	rec := startRecorded(t, "")
	ctx := context.Background()
	log := &countingReader{R: rec.Log}
	x := console.NewLogIndex(log, 0)
	failed := make(chan error, 1)
	x.BuildOnFirstUse(ctx, func(err error) { failed <- err })
	rec.Live.OnEnd(x.Ended)
	task := &rec.Dataset.Tasks[0]
	early := episode(t, rec.Client, task, `{"run":"early"}`, nil, task.GoldSQL)
	if n := log.reads.Load(); n != 0 {
		t.Fatalf("the log was read %d times before any page", n)
	}
	if _, err := x.List(ctx, console.Query{Limit: 1}); err != nil { // read from the log while the index builds
		t.Fatal(err)
	}
	waitfor.Until(t, "the index is built", func() bool {
		select {
		case err := <-failed:
			t.Fatalf("build: %v", err)
		default:
		}
		return x.Ready()
	})
	late := episode(t, rec.Client, task, `{"run":"late"}`, nil, task.GoldSQL)
	reads := log.reads.Load()
	p, err := x.List(ctx, console.Query{Limit: 2})
	if err != nil || len(p.Episodes) != 2 || p.Episodes[0].ID != late || p.Episodes[1].ID != early {
		t.Fatalf("pages after the build: %+v %v, want %s then %s", p, err, late, early)
	}
	if log.reads.Load() != reads {
		t.Fatal("a page of the built index read the log")
	}
}
