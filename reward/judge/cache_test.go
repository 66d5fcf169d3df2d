package judge

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

// countingDB is a real database that counts the statements it runs.
type countingDB struct {
	env.DB
	mu   sync.Mutex
	runs map[string]int
}

func counting(db env.DB) *countingDB { return &countingDB{DB: db, runs: map[string]int{}} }

func (c *countingDB) Query(ctx context.Context, sql string, lim env.Limits) (*env.ResultSet, error) {
	c.mu.Lock()
	c.runs[sql]++
	c.mu.Unlock()
	return c.DB.Query(ctx, sql, lim)
}

func (c *countingDB) count(sql string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.runs[sql]
}

func TestGoldCache(t *testing.T) {
	db := counting(openDB(t, singers))
	j := New(Config{})
	ctx := context.Background()
	gold := "SELECT DISTINCT age FROM singer"
	stripped := "SELECT  age FROM singer"
	task := &env.Task{ID: "t/1", GoldSQL: gold}
	judge := func(dbKey string, s schemas.RewardSpec) {
		t.Helper()
		if v, err := j.Judge(ctx, db, dbKey, task, "SELECT age FROM singer", s); err != nil || v.Outcome != schemas.OutcomeCorrect {
			t.Fatalf("%s, %v; want correct", v.Outcome, err)
		}
	}
	judge("a", spec(schemas.MatchBird))
	judge("a", spec(schemas.MatchBird))
	if got := db.count(gold); got != 1 {
		t.Errorf("gold ran %d times for two calls, want 1", got)
	}
	judge("b", spec(schemas.MatchBird))
	if got := db.count(gold); got != 2 {
		t.Errorf("gold ran %d times after a second database key, want 2", got)
	}
	judge("a", spec(schemas.MatchSpider))
	judge("a", spec(schemas.MatchTolerant))
	if got := db.count(stripped); got != 1 {
		t.Errorf("stripped gold ran %d times for spider and tolerant, want 1 (cached by the SQL as run)", got)
	}
	if got := db.count(gold); got != 2 {
		t.Errorf("unstripped gold ran %d times, want still 2", got)
	}
}

func TestGoldErrorCached(t *testing.T) {
	db := counting(openDB(t, singers))
	j := New(Config{})
	task := &env.Task{GoldSQL: "SELECT nope FROM singer"}
	for range 3 {
		v, err := j.Judge(context.Background(), db, "a", task, "SELECT 1", spec(schemas.MatchBird))
		if err != nil || v.Outcome != schemas.OutcomeGoldError {
			t.Fatalf("%s, %v; want gold_error", v.Outcome, err)
		}
	}
	if got := db.count(task.GoldSQL); got != 1 {
		t.Errorf("broken gold ran %d times, want 1", got)
	}
}

// burst runs n Judge calls at once and returns their verdicts.
func burst(t *testing.T, n int, call func() (Verdict, error)) []Verdict {
	t.Helper()
	start := make(chan struct{})
	out := make([]Verdict, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			out[i], errs[i] = call()
		})
	}
	close(start)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func TestGoldBurstRunsOnce(t *testing.T) {
	db := counting(openDB(t, singers))
	j := New(Config{})
	// A gold slow enough for the burst to arrive while it runs.
	gold := "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000) SELECT count(*) FROM n"
	task := &env.Task{GoldSQL: gold}
	verdicts := burst(t, 16, func() (Verdict, error) {
		return j.Judge(context.Background(), db, "a", task, "SELECT 300000", spec(schemas.MatchBird))
	})
	for _, v := range verdicts {
		if v.Outcome != schemas.OutcomeCorrect {
			t.Fatalf("outcome %s, want correct", v.Outcome)
		}
	}
	if got := db.count(gold); got != 1 {
		t.Errorf("gold ran %d times for a burst of 16, want 1", got)
	}
}

func TestGoldTimeoutSharedNotCached(t *testing.T) {
	db := counting(openDB(t, singers))
	j := New(Config{GoldTimeout: 500 * time.Millisecond})
	task := &env.Task{GoldSQL: forever}
	call := func() (Verdict, error) {
		return j.Judge(context.Background(), db, "a", task, "SELECT 1", spec(schemas.MatchBird))
	}
	for _, v := range burst(t, 8, call) {
		if v.Outcome != schemas.OutcomeGoldTimeout {
			t.Fatalf("outcome %s, want gold_timeout", v.Outcome)
		}
	}
	if got := db.count(forever); got != 1 {
		t.Errorf("endless gold ran %d times for a burst of 8, want 1 (shared)", got)
	}
	if v, err := call(); err != nil || v.Outcome != schemas.OutcomeGoldTimeout {
		t.Fatalf("%s, %v; want gold_timeout", v.Outcome, err)
	}
	if got := db.count(forever); got != 2 {
		t.Errorf("endless gold ran %d times after the burst and one more call, want 2 (timeouts are not cached)", got)
	}
}

// TestGoldLeaderCancelled: the caller running the gold gives up; a caller
// that joined its run runs the gold itself and gets a verdict.
func TestGoldLeaderCancelled(t *testing.T) {
	db := counting(openDB(t, singers))
	j := New(Config{GoldTimeout: 400 * time.Millisecond})
	task := &env.Task{GoldSQL: forever}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	leaderErr := make(chan error, 1)
	go func() {
		_, err := j.Judge(ctx, db, "a", task, "SELECT 1", spec(schemas.MatchBird))
		leaderErr <- err
	}()
	waitfor.Until(t, "the leader to run the gold", func() bool { return db.count(forever) > 0 })
	type result struct {
		v   Verdict
		err error
	}
	joiner := make(chan result, 1)
	go func() {
		v, err := j.Judge(context.Background(), db, "a", task, "SELECT 1", spec(schemas.MatchBird))
		joiner <- result{v, err}
	}()
	waitfor.Until(t, "a second caller to join the leader's run", func() bool {
		j.mu.Lock()
		defer j.mu.Unlock()
		run := j.gold[goldKey{db: "a", sql: forever}]
		return run != nil && run.joined > 0
	})
	cancel()
	if r := <-joiner; r.err != nil || r.v.Outcome != schemas.OutcomeGoldTimeout {
		t.Errorf("joined caller: %s, %v; want gold_timeout from its own run", r.v.Outcome, r.err)
	}
	if err := <-leaderErr; err == nil {
		t.Error("cancelled leader: no error, want its context's")
	}
	if got := db.count(forever); got != 2 {
		t.Errorf("gold ran %d times, want 2 (the leader's, cancelled, and the joined caller's)", got)
	}
}

func TestGoldCacheStaysWithinItsBudget(t *testing.T) {
	db := counting(openDB(t, singers))
	one, err := db.DB.Query(context.Background(), "SELECT name FROM singer", env.Limits{}) // uncounted
	if err != nil {
		t.Fatal(err)
	}
	// Room for about one result of this size: each new gold evicts the
	// least recently used one.
	j := New(Config{GoldCacheBytes: resultSize(one) + resultSize(one)/2})
	ctx := context.Background()
	judge := func(gold string) {
		t.Helper()
		task := &env.Task{ID: "t/" + gold, GoldSQL: gold}
		if _, err := j.Judge(ctx, db, "a", task, "SELECT 1", spec(schemas.MatchBird)); err != nil {
			t.Fatal(err)
		}
	}
	a, b := "SELECT name FROM singer", "SELECT name FROM singer ORDER BY name"
	judge(a)
	judge(a)
	judge(b) // evicts a
	judge(a) // runs a again, evicts b
	judge(a)
	if got := db.count(a); got != 2 {
		t.Errorf("gold a ran %d times, want 2 (once evicted)", got)
	}
	if got := db.count(b); got != 1 {
		t.Errorf("gold b ran %d times, want 1", got)
	}
	j.mu.Lock()
	n, bytes := len(j.gold), j.lru.bytes
	j.mu.Unlock()
	if n != 1 || bytes > j.cfg.GoldCacheBytes {
		t.Errorf("cache holds %d golds, %d bytes; want 1 within %d", n, bytes, j.cfg.GoldCacheBytes)
	}
}

// TestGoldMatchShared checks that the judgements of a cached gold share
// its prepared rows, so the gold's row set is built once, and that they
// still tell a right answer from a wrong one.
func TestGoldMatchShared(t *testing.T) {
	db := openDB(t, singers)
	j := New(Config{})
	ctx := context.Background()
	task := &env.Task{ID: "t/1", GoldSQL: "SELECT name FROM singer WHERE age > 35"}
	var golds []*goldRun
	for _, pred := range []string{task.GoldSQL, "SELECT name FROM singer", task.GoldSQL} {
		if _, err := j.Judge(ctx, db, "a", task, pred, spec(schemas.MatchBird)); err != nil {
			t.Fatal(err)
		}
		run, err := j.runGold(ctx, db, goldKey{db: "a", sql: task.GoldSQL})
		if err != nil || run.match == nil {
			t.Fatalf("cached gold: %v, prepared rows %v", err, run)
		}
		golds = append(golds, run)
	}
	if golds[0].match != golds[1].match || golds[1].match != golds[2].match {
		t.Error("the judgements of one cached gold prepared its rows more than once")
	}
	for pred, want := range map[string]string{task.GoldSQL: schemas.OutcomeCorrect, "SELECT name FROM singer": schemas.OutcomeMismatch} {
		if v, err := j.Judge(ctx, db, "a", task, pred, spec(schemas.MatchBird)); err != nil || v.Outcome != want {
			t.Errorf("%s: %s, %v; want %s", pred, v.Outcome, err, want)
		}
	}
}
