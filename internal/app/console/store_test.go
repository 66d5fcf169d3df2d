package console_test

import (
	"context"
	"testing"

	"github.com/sqlgym/sqlgym/internal/app/console"
)

// TestPagesCoverEveryEpisodeOnceNewestFirst pages through the list two
// at a time and finds each episode once, newest first, with the total.
func TestPagesCoverEveryEpisodeOnceNewestFirst(t *testing.T) {
	rec := startRecorded(t, "")
	s := console.ReaderStore{R: rec.Log}
	ctx := context.Background()
	all, err := s.List(ctx, console.Query{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if all.Total != 6 || len(all.Episodes) != 6 || all.Episodes[0].ID != rec.Hostile || all.Episodes[5].ID != rec.Correct {
		t.Fatalf("whole list: total %d, %d rows, first %s last %s; want 6, the hostile episode first and the first played last",
			all.Total, len(all.Episodes), all.Episodes[0].ID, all.Episodes[len(all.Episodes)-1].ID)
	}
	for off := 0; off < 6; off += 2 {
		p, err := s.List(ctx, console.Query{Offset: off, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != 6 || len(p.Episodes) != 2 || p.Episodes[0].ID != all.Episodes[off].ID || p.Episodes[1].ID != all.Episodes[off+1].ID {
			t.Fatalf("page at %d: %+v, want rows %d and %d of the whole list", off, p.Episodes, off, off+1)
		}
	}
	if p, _ := s.List(ctx, console.Query{Offset: 6, Limit: 2}); len(p.Episodes) != 0 || p.Total != 6 {
		t.Fatalf("past the end: %d rows, total %d", len(p.Episodes), p.Total)
	}
	got, err := s.Episode(ctx, rec.Failed)
	if err != nil || got.EpisodeID != rec.Failed {
		t.Fatalf("episode %s: %v", rec.Failed, err)
	}
	if _, err := s.Episode(ctx, "ep_missing"); err != console.ErrNotFound {
		t.Fatalf("a missing episode: %v, want ErrNotFound", err)
	}
}
