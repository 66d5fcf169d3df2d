package filelog

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestSlimEndWhoseBeginIsLost harms the begin line of an episode whose
// slim end is in the next segment, each way damage comes: the episode is
// an orphan, never handed over (it has no header to read), and the
// damage names it; the episode beside it reads whole.
func TestSlimEndWhoseBeginIsLost(t *testing.T) {
	harms := map[string]func(t *testing.T, path string, begin lineAt){
		"bytes flipped": func(t *testing.T, path string, begin lineAt) {
			overwrite(t, path, (begin.start+begin.end)/2, []byte{0xff, 0xfe, 0xfd})
		},
		"NULs over it": func(t *testing.T, path string, begin lineAt) {
			overwrite(t, path, begin.start, make([]byte, begin.end-begin.start-1))
		},
		"cut through it": func(t *testing.T, path string, begin lineAt) {
			if err := os.Truncate(path, (begin.start+begin.end)/2); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, harm := range harms {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			a, b := beginLastOfSegment(t, dir, 0)
			path := segmentPath(dir, 1)
			harm(t, path, lineOf(t, path, evBegin, b.EpisodeID))

			r := mustOpen(t, dir, Options{ReadOnly: true})
			got, _, st := readAll(t, r, trajlog.Filter{Incomplete: true})
			if len(got) != 1 || st.Orphans != 1 || st.Complete != 1 {
				t.Errorf("read %d episodes (stats %+v), want %s alone and 1 orphan", len(got), st, a.EpisodeID)
			}
			sameJSON(t, a.EpisodeID, got[a.EpisodeID], &trajlog.Record{Trajectory: *a, Complete: true})
			checkLost(t, "scan", st.Damage, b.EpisodeID)
			rep, err := r.Verify(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			checkLost(t, "verify", rep.Damage(), b.EpisodeID)
		})
	}
}

// checkLost checks that segment 1 alone is damaged, and that the damage
// names ep (its only episode touched).
func checkLost(t *testing.T, what string, ds []SegmentDamage, ep string) {
	t.Helper()
	if len(ds) != 1 || ds[0].Segment != segmentName(1) || !slices.Equal(ds[0].Episodes, []string{ep}) ||
		ds[0].Unidentified != 0 {
		t.Errorf("%s: damage %+v, want segment 1 naming %s", what, ds, ep)
	}
}

// TestSlimOrphanInAFilteredRead: a read that skips segments by their
// index cannot tell a slim end's dataset; it tells a begin that was
// skipped (the episode lived through the skipped segment, which its index
// lists) from one lost to damage.
func TestSlimOrphanInAFilteredRead(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir, Options{NoSync: true})
	e := begun(t, l, 2) // demo: segment 1 holds nothing of spider-dev, and is skipped
	stepped(t, l, e, 1)
	rotate(t, l)
	f := begun(t, l, 1) // spider-dev: its begin will be lost
	h := begun(t, l, 3) // spider-dev
	rotate(t, l)
	for _, tr := range []*schemas.Trajectory{e, f, h} {
		ended(t, l, tr)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	path := segmentPath(dir, 2)
	begin := lineOf(t, path, evBegin, f.EpisodeID)
	overwrite(t, path, begin.start, make([]byte, begin.end-begin.start-1)) // no id left to read

	r := mustOpen(t, dir, Options{ReadOnly: true})
	for _, filter := range []trajlog.Filter{{Dataset: "spider-dev"}, {}} {
		got, _, st := readAll(t, r, filter)
		if filter.Dataset != "" && st.Skipped != 1 || filter.Dataset == "" && (st.Skipped != 0 || got[e.EpisodeID] == nil) {
			t.Fatalf("filter %+v: skipped %d segments, read %v", filter, st.Skipped, got)
		}
		sameJSON(t, h.EpisodeID, got[h.EpisodeID], &trajlog.Record{Trajectory: *h, Complete: true})
		if ds := st.Damage; len(ds) != 1 || ds[0].Segment != segmentName(2) ||
			!slices.Equal(ds[0].Episodes, []string{f.EpisodeID}) || ds[0].Unidentified != 0 || got[f.EpisodeID] != nil {
			t.Errorf("filter %+v: damage %+v, want segment 2 naming %s only", filter, ds, f.EpisodeID)
		}
	}
}

// TestRecoveryCountsASlimOrphan: recovery indexes a crashed segment in
// which a slim end's begin is damaged; the episode counts as one of the
// segment's with no dataset or start, and a filtered read still reads
// the rest.
func TestRecoveryCountsASlimOrphan(t *testing.T) {
	dir := t.TempDir()
	l := mustOpen(t, dir, Options{NoSync: true})
	a := begun(t, l, 1)
	b := begun(t, l, 2)
	ended(t, l, b)
	ended(t, l, a)
	crash(t, l)
	path := segmentPath(dir, 1)
	begin := lineOf(t, path, evBegin, b.EpisodeID)
	overwrite(t, path, begin.start, make([]byte, begin.end-begin.start-1))
	mustOpen(t, dir, Options{NoSync: true}).Close()
	x, ok := readIndex(dir, 1)
	if !ok || x.Episodes != 2 || x.Ends != 2 || x.Begins != 1 || x.Damaged != 1 ||
		!slices.Equal(x.Datasets, []string{"spider-dev"}) || !x.StartedMin.Equal(a.StartedAt) {
		t.Fatalf("recovered index %+v, want 2 episodes and 2 ends, spider-dev's start only", x)
	}
	got, _, _ := readAll(t, mustOpen(t, dir, Options{ReadOnly: true}), trajlog.Filter{Dataset: "spider-dev"})
	if len(got) != 1 || got[a.EpisodeID] == nil {
		t.Errorf("read %v, want %s alone", got, a.EpisodeID)
	}
}
