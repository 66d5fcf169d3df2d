package failovertest

import (
	"context"
	"fmt"
	"math"
	"os/exec"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// stored is one trajectory as the store holds it.
type stored struct {
	ended   bool
	outcome string
	turns   []int
	rewards []float64
}

// readStore reads every trajectory of schema through conn, steps in
// turn order.
func readStore(t *testing.T, conn *pgx.Conn, schema string) map[string]*stored {
	t.Helper()
	ctx := context.Background()
	eps := pgx.Identifier{schema, "sqlgym_episodes"}.Sanitize()
	steps := pgx.Identifier{schema, "sqlgym_steps"}.Sanitize()
	out := map[string]*stored{}
	rows, err := conn.Query(ctx, "SELECT episode_id, ended_at IS NOT NULL, coalesce(outcome, '') FROM "+eps)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		s := &stored{}
		if err := rows.Scan(&id, &s.ended, &s.outcome); err != nil {
			t.Fatal(err)
		}
		out[id] = s
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	rows, err = conn.Query(ctx, "SELECT episode_id, turn, reward FROM "+steps+" ORDER BY episode_id, turn")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var turn int
		var reward float64
		if err := rows.Scan(&id, &turn, &reward); err != nil {
			t.Fatal(err)
		}
		s := out[id]
		if s == nil {
			t.Fatalf("a step of %s, which the store has no episode row for", id)
		}
		s.turns, s.rewards = append(s.turns, turn), append(s.rewards, reward)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	return out
}

// allEnded reports whether every trajectory of schema has ended, asking
// through conn (one connection for every poll).
func allEnded(t *testing.T, conn *pgx.Conn, schema string) bool {
	var open int
	err := conn.QueryRow(context.Background(), "SELECT count(*) FROM "+
		pgx.Identifier{schema, "sqlgym_episodes"}.Sanitize()+" WHERE ended_at IS NULL OR outcome IS NULL").Scan(&open)
	if err != nil {
		t.Fatal(err)
	}
	return open == 0
}

// checkStore holds the store to what the driver was told: each
// episode's steps are exactly turns 1..N with the rewards acknowledged,
// and it ended as the client saw it end. A trajectory no client was told
// of (a reset whose reply was lost) must have ended abandoned; it
// returns how many there were.
func checkStore(t *testing.T, store map[string]*stored, l driverLog) (orphans int) {
	t.Helper()
	seen := map[string]bool{}
	for _, e := range l.Episodes {
		seen[e.EpisodeID] = true
		s := store[e.EpisodeID]
		if s == nil {
			t.Errorf("episode %d (%s) is not in the store", e.Index, e.EpisodeID)
			continue
		}
		if err := sameSteps(e, s); err != nil {
			t.Errorf("episode %d (%s): %v", e.Index, e.EpisodeID, err)
		}
	}
	for id, s := range store {
		if seen[id] {
			continue
		}
		orphans++
		if !s.ended || s.outcome != "abandoned" {
			t.Errorf("trajectory %s, which no client was told of, ended %v as %q, want abandoned", id, s.ended, s.outcome)
		}
	}
	return orphans
}

// sameSteps compares what the client was told of one episode with what
// the store holds of it.
func sameSteps(e episodeLog, s *stored) error {
	if !s.ended || s.outcome != e.outcome() {
		return fmt.Errorf("stored ended %v as %q; the client was told %q", s.ended, s.outcome, e.outcome())
	}
	if len(s.turns) != len(e.Steps) {
		return fmt.Errorf("the store holds turns %v; the client was acknowledged %d steps", s.turns, len(e.Steps))
	}
	for i, st := range e.Steps {
		if st.Turn != i+1 || s.turns[i] != i+1 {
			return fmt.Errorf("step %d: acknowledged as turn %d, stored as turn %d", i+1, st.Turn, s.turns[i])
		}
		if math.Abs(st.Reward-s.rewards[i]) > 1e-9 {
			return fmt.Errorf("turn %d: acknowledged reward %v, stored %v", i+1, st.Reward, s.rewards[i])
		}
	}
	return nil
}

// replayStore runs `sqlgym replay` on the store: every one of its n
// trajectories must reproduce, observations and rewards.
func replayStore(t *testing.T, bin, storeURL string, n int) {
	t.Helper()
	out, err := exec.Command(bin, "replay", "--trajectories", storeURL, "--data-dir", t.TempDir()).CombinedOutput()
	want := fmt.Sprintf("replay: %d episodes: %d reproduced, 0 diverged, 0 unverifiable", n, n)
	if err != nil || !strings.Contains(string(out), want) {
		t.Fatalf("sqlgym replay: %v, want %q\n%s", err, want, out)
	}
	t.Logf("%s", strings.TrimSpace(string(out)))
}

// sameRewards compares two runs of the same scripts episode by episode:
// the same steps with the same rewards, ending the same way.
func sameRewards(t *testing.T, got, want driverLog) {
	t.Helper()
	for i, g := range got.Episodes {
		w := want.Episodes[i]
		if g.TaskID != w.TaskID || g.outcome() != w.outcome() || len(g.Steps) != len(w.Steps) {
			t.Errorf("episode %d: %s ended %q after %d steps; on one server %s ended %q after %d",
				i, g.TaskID, g.outcome(), len(g.Steps), w.TaskID, w.outcome(), len(w.Steps))
			continue
		}
		for j := range g.Steps {
			if g.Steps[j].Reward != w.Steps[j].Reward {
				t.Errorf("episode %d turn %d: reward %v, on one server %v", i, j+1, g.Steps[j].Reward, w.Steps[j].Reward)
			}
		}
		if (g.Close == nil) != (w.Close == nil) || g.Close != nil && g.Close.TotalReward != w.Close.TotalReward {
			t.Errorf("episode %d: closed as %+v, on one server %+v", i, g.Close, w.Close)
		}
	}
}
