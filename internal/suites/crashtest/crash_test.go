package crashtest

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Each round drives 300 concurrent episodes over 6 sockets and kills the
// server after its delay (jittered); the third round also tears the last
// line of the log, as a crash in the middle of a write would.
const (
	sockets   = 6
	workers   = 300
	tornRound = 2
)

var delays = []time.Duration{150 * time.Millisecond, 500 * time.Millisecond, 1100 * time.Millisecond, 2 * time.Second}

func TestKill9KeepsEveryAnsweredEpisode(t *testing.T) {
	killRounds(t, binserver.Build(t))
}

// killRounds runs the rounds against bin serving with args, restarts it
// once more and checks the log against what the clients were told.
func killRounds(t *testing.T, bin string, args ...string) {
	dataDir := t.TempDir()
	logDir := filelog.LogDir(dataDir)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	book := newLedger()
	for round, base := range delays {
		srv := startServer(t, bin, dataDir, args...)
		delay := base + time.Duration(rng.Int64N(int64(base/2)))
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		driven := make(chan error, 1)
		go func() { driven <- drive(ctx, srv.URL, sockets, workers, rng.Uint64(), book) }()
		time.Sleep(delay)
		srv.Kill()
		err := <-driven
		cancel()
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		t.Logf("round %d: killed after %v, %d episodes answered so far", round, delay, len(book.episodes))
		if round == tornRound {
			seg := tearLastSegment(t, logDir)
			checkTornTailIsSkipped(t, logDir, seg)
		}
	}
	srv := startServer(t, bin, dataDir, args...)
	if !srv.WaitLog("trajectory log recovered") {
		t.Errorf("restart after kill -9 logged no recovery:\n%s", srv.Stderr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, srv.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := play(ctx, c, rng, book); err != nil {
		t.Errorf("an episode after recovery: %v", err)
	}
	c.Close()
	srv.Stop(t)
	verify(t, logDir, book)
}

// checkTornTailIsSkipped reads the log beside the dead server: the torn
// line is reported and skipped, never a failure.
func checkTornTailIsSkipped(t *testing.T, logDir, seg string) {
	t.Helper()
	var damage []filelog.Damage
	r, err := filelog.Open(logDir, filelog.Options{ReadOnly: true, OnDamage: func(d filelog.Damage) { damage = append(damage, d) }})
	if err != nil {
		t.Fatal(err)
	}
	st, err := r.Scan(context.Background(), trajlog.Filter{Incomplete: true}, func(*trajlog.Record) error { return nil })
	if err != nil {
		t.Fatalf("reading a log with a torn tail: %v", err)
	}
	if st.Damaged != 1 || len(damage) != 1 || damage[0].Segment != seg {
		t.Errorf("torn tail: stats %+v, damage %+v; want the one torn line of %s", st, damage, seg)
	}
}

// verify reads the log back and holds it to what the clients were told.
func verify(t *testing.T, logDir string, book *ledger) {
	t.Helper()
	r, err := filelog.Open(logDir, filelog.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*trajlog.Record{}
	st, err := r.Scan(context.Background(), trajlog.Filter{Incomplete: true}, func(rec *trajlog.Record) error {
		got[rec.EpisodeID] = rec
		return nil
	})
	if err != nil {
		t.Fatalf("read the log: %v", err)
	}
	if st.Damaged != 0 || st.Orphans != 0 {
		t.Errorf("after recovery the log still has damage: %+v", st)
	}
	finals, cut := 0, 0
	for id, told := range book.episodes {
		rec := got[id]
		if rec == nil {
			t.Errorf("episode %s: its reset was answered, but it is not on disk", id)
			continue
		}
		checkSteps(t, rec, told)
		switch {
		case told.final:
			finals++
			checkFinal(t, rec, told)
		case !rec.Complete:
			cut++
		}
	}
	t.Logf("%d episodes answered: %d ended as the client saw, %d cut off by a kill; read stats %+v",
		len(book.episodes), finals, cut, st)
	if finals < workers || cut == 0 {
		t.Errorf("the kills hit %d ended and %d cut-off episodes: too few to test anything", finals, cut)
	}
}

// checkSteps: every step whose reply arrived is on disk as it was
// answered, and at most one more (answered, but the reply was lost).
func checkSteps(t *testing.T, rec *trajlog.Record, told *told) {
	t.Helper()
	if n, m := len(rec.Steps), len(told.replies); n < m || n > m+1 {
		t.Errorf("episode %s: %d steps on disk, %d answered", rec.EpisodeID, n, m)
		return
	}
	for k, reply := range told.replies {
		s := rec.Steps[k]
		if s.Turn != reply.Info.Turn || s.Tool != reply.Info.Tool || s.Observation != reply.Observation.Content ||
			s.Reward != reply.Reward || s.Outcome != reply.Info.Outcome {
			t.Errorf("episode %s step %d on disk: turn %d %s reward %v outcome %q %q; answered: turn %d %s reward %v outcome %q %q",
				rec.EpisodeID, k+1, s.Turn, s.Tool, s.Reward, s.Outcome, s.Observation,
				reply.Info.Turn, reply.Info.Tool, reply.Reward, reply.Info.Outcome, reply.Observation.Content)
		}
	}
}

// checkFinal: an episode whose last reply arrived is complete on disk,
// with the outcome and reward the client was paid.
func checkFinal(t *testing.T, rec *trajlog.Record, told *told) {
	t.Helper()
	last := told.replies[len(told.replies)-1]
	sum := 0.0
	for _, r := range told.replies {
		sum += r.Reward
	}
	if !rec.Complete || len(rec.Steps) != len(told.replies) || rec.Outcome != last.Info.Outcome ||
		math.Abs(rec.TotalReward-sum) > 1e-9 {
		t.Errorf("episode %s ended for the client (%d steps, %q, reward %v) but on disk: complete %v, %d steps, %q, reward %v",
			rec.EpisodeID, len(told.replies), last.Info.Outcome, sum, rec.Complete, len(rec.Steps), rec.Outcome, rec.TotalReward)
	}
}
