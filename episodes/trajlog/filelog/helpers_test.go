package filelog

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// episode i of the test corpus: dataset, task, tags, start time and
// outcome all vary with i.
func episode(i int) *schemas.Trajectory {
	ds := []string{"demo", "spider-dev"}[i%2]
	return &schemas.Trajectory{
		EpisodeID:  fmt.Sprintf("ep_%05d", i),
		Task:       schemas.TaskView{TaskID: fmt.Sprintf("%s/%d", ds, i%5), Dataset: ds, DBID: "shop", Question: "How many?\nCount them.", Dialect: "sqlite"},
		Tags:       json.RawMessage(fmt.Sprintf(`{"policy":"step-%d","group":%d}`, i%3, i%4)),
		RewardSpec: schemas.DefaultRewardSpec(), RewardSpecHash: "h", ActionFormat: "hermes", MaxTurns: 8,
		Messages:      []schemas.Message{{Role: "system", Content: "You answer with SQL.\n\u2028 \"quoted\""}, {Role: "user", Content: "How many?"}},
		StartedAt:     t0.Add(time.Duration(i) * time.Minute),
		Steps:         []schemas.StepRecord{},
		ServerVersion: "test",
	}
}

// stepOf is step k (from 1) of an episode.
func stepOf(k int) schemas.StepRecord {
	sql := fmt.Sprintf("SELECT %d\n-- a comment with a newline", k)
	args, _ := json.Marshal(map[string]string{"sql": sql})
	return schemas.StepRecord{
		Turn: k, Action: schemas.Action{Tool: "execute_sql", Arguments: args}, Tool: "execute_sql", Arguments: args,
		Observation: fmt.Sprintf("%d\n(1 row)\n\x00\x1f tab\t", k), Reward: 0.01 * float64(k),
		RewardComponents: map[string]float64{"turn.ok": 0.01 * float64(k)}, ElapsedMS: 0.25, At: t0.Add(time.Duration(k) * time.Second),
	}
}

// play writes episode i with n steps through w, ending it unless open,
// and returns the trajectory as it should read back.
func play(t testing.TB, w trajlog.Writer, i, n int, open bool) *schemas.Trajectory {
	t.Helper()
	tr, err := playE(w, i, n, open)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// playE is play for goroutines other than the test's.
func playE(w trajlog.Writer, i, n int, open bool) (*schemas.Trajectory, error) {
	ctx := context.Background()
	tr := episode(i)
	if err := w.Begin(ctx, tr); err != nil {
		return nil, fmt.Errorf("begin %d: %w", i, err)
	}
	for k := 1; k <= n; k++ {
		s := stepOf(k)
		if err := w.Step(ctx, tr.EpisodeID, &s); err != nil {
			return nil, fmt.Errorf("step %d/%d: %w", i, k, err)
		}
		tr.Steps = append(tr.Steps, s)
		tr.TotalReward += s.Reward
	}
	if open {
		return tr, nil
	}
	end := tr.StartedAt.Add(time.Duration(n+1) * time.Second)
	tr.EndedAt = &end
	tr.Outcome = []string{"correct", "mismatch", "no_submit"}[i%3]
	if tr.Outcome == "correct" {
		tr.FinalReward = 1
		tr.TotalReward += 1
	}
	if err := w.End(ctx, tr); err != nil {
		return nil, fmt.Errorf("end %d: %w", i, err)
	}
	return tr, nil
}

// readAll reads every record passing f, keyed by episode id.
func readAll(t testing.TB, r *Log, f trajlog.Filter) (map[string]*trajlog.Record, []string, ReadStats) {
	t.Helper()
	got := map[string]*trajlog.Record{}
	var order []string
	st, err := r.Scan(context.Background(), f, func(rec *trajlog.Record) error {
		if _, dup := got[rec.EpisodeID]; dup {
			t.Errorf("episode %s read twice", rec.EpisodeID)
		}
		got[rec.EpisodeID] = rec
		order = append(order, rec.EpisodeID)
		return nil
	})
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	return got, order, st
}

// sameJSON fails the test unless got and want encode alike.
func sameJSON(t testing.TB, what string, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("%s:\n got %s\nwant %s", what, g, w)
	}
}

// crash stops a writing log the way kill -9 would: no seal, no index,
// the lock released by closing its file.
func crash(t testing.TB, l *Log) {
	t.Helper()
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	close(l.stop)
	<-l.flushDone
	<-l.verifyDone
	l.seg.f.Close()
	l.lockFile.Close()
}

// appendBytes appends b to a file.
func appendBytes(t testing.TB, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

// overwrite replaces bytes of a file from off with b.
func overwrite(t *testing.T, path string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

func segmentFiles(t testing.TB, dir, glob string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, glob))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustOpen(t testing.TB, dir string, o Options) *Log {
	t.Helper()
	l, err := Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// rotate seals the segment being written and starts the next one, as a
// full segment would.
func rotate(t *testing.T, l *Log) {
	t.Helper()
	l.mu.Lock()
	err := l.rotateLocked()
	l.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
}

// begun begins episode i through l and returns its trajectory.
func begun(t *testing.T, l *Log, i int) *schemas.Trajectory {
	t.Helper()
	tr := episode(i)
	if err := l.Begin(context.Background(), tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

// stepped logs step k of tr.
func stepped(t *testing.T, l *Log, tr *schemas.Trajectory, k int) {
	t.Helper()
	s := stepOf(k)
	if err := l.Step(context.Background(), tr.EpisodeID, &s); err != nil {
		t.Fatal(err)
	}
	tr.Steps = append(tr.Steps, s)
	tr.TotalReward += s.Reward
}

// ended ends tr through l, with a slim end line.
func ended(t *testing.T, l *Log, tr *schemas.Trajectory) {
	t.Helper()
	tr.Outcome = "mismatch"
	if err := l.End(context.Background(), tr); err != nil {
		t.Fatal(err)
	}
}

// lineOf finds the line of kind ev of episode ep in a segment.
func lineOf(t *testing.T, path, ev, ep string) lineAt {
	t.Helper()
	lines := linesOf(t, path)
	i := slices.IndexFunc(lines, func(l lineAt) bool { return l.ev == ev && l.ep == ep })
	if i < 0 {
		t.Fatalf("no %s line of %s in %s", ev, ep, path)
	}
	return lines[i]
}

// beginLastOfSegment writes two episodes to a log in dir: a, with one
// step, and b, whose begin is the last line of segment 1; b's steps (as
// many as steps) and both ends are in segment 2.
func beginLastOfSegment(t *testing.T, dir string, steps int) (a, b *schemas.Trajectory) {
	t.Helper()
	l := mustOpen(t, dir, Options{NoSync: true})
	a = begun(t, l, 1)
	stepped(t, l, a, 1)
	b = begun(t, l, 2)
	rotate(t, l)
	for k := 1; k <= steps; k++ {
		stepped(t, l, b, k)
	}
	ended(t, l, a)
	ended(t, l, b)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return a, b
}
