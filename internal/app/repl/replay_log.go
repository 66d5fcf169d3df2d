package repl

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/schemas"
)

// logReplayIDs is the most episode ids .replay names per damaged segment.
const logReplayIDs = 20

// logDir is the trajectory log a .replay path names: a server's data dir
// (its trajectories/ subdirectory) or the log directory itself.
func logDir(path string) string {
	if st, err := os.Stat(filepath.Join(path, "trajectories")); err == nil && st.IsDir() {
		return filepath.Join(path, "trajectories")
	}
	return path
}

// findInLog reads the trajectory log in dir, read-only (a server may be
// writing it), for the record whose episode_id is pick, or the pick-th
// (from 1), or the first when pick is empty, incomplete ones included,
// in the log's order. It reads the whole log, so as to report all the
// damage in it, and returns the record, its number and the damage.
func findInLog(ctx context.Context, dir, pick string) (*trajlog.Record, int, []filelog.SegmentDamage, error) {
	want, byNumber := 1, pick == ""
	if v, err := strconv.Atoi(pick); err == nil {
		if v < 1 {
			return nil, 0, nil, fmt.Errorf("record numbers start at 1, got %d", v)
		}
		want, byNumber = v, true
	}
	l, err := filelog.Open(dir, filelog.Options{ReadOnly: true})
	if err != nil {
		return nil, 0, nil, err
	}
	defer l.Close()
	var found *trajlog.Record
	n, at := 0, 0
	st, err := l.Scan(ctx, trajlog.Filter{Incomplete: true}, func(r *trajlog.Record) error {
		n++
		if found == nil && (byNumber && n == want || !byNumber && r.EpisodeID == pick) {
			found, at = r, n
		}
		return nil
	})
	switch {
	case err != nil:
		return nil, 0, st.Damage, err
	case found != nil:
		return found, at, st.Damage, nil
	case byNumber:
		return nil, 0, st.Damage, fmt.Errorf("the log in %s holds fewer than %d episodes", dir, want)
	}
	return nil, 0, st.Damage, fmt.Errorf("the log in %s holds no episode %s", dir, pick)
}

// logRecord finds a record in a trajectory log for .replay, warning of
// the damage read on the way; nil when it could not.
func (s *session) logRecord(ctx context.Context, path, pick string) (*schemas.Trajectory, int) {
	dir := logDir(path)
	rec, n, damage, err := findInLog(ctx, dir, pick)
	if len(damage) > 0 {
		for _, line := range strings.Split(strings.TrimSpace(filelog.DamageReport(damage, logReplayIDs)), "\n") {
			s.out.styledf(styleYellow, "%s", line)
		}
		s.out.styledf(styleYellow, "(the damaged lines were skipped; `sqlgym log verify` checks the whole log)")
	}
	if err != nil {
		s.out.errorf(".replay: %v", err)
		return nil, 0
	}
	if !rec.Complete {
		s.out.styledf(styleYellow, "%s is incomplete: its end, or a step, was never recorded or was lost to damage", rec.EpisodeID)
	}
	return &rec.Trajectory, n
}
