package judge

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/sqlitetest"
	"github.com/sqlgym/sqlgym/schemas"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const singers = `
CREATE TABLE singer(id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER, rating REAL);
INSERT INTO singer VALUES
  (1, 'Ann', 'France', 30, 4.5), (2, 'Bob', 'France', 41, NULL),
  (3, 'Cid', 'Spain', 30, 3.0), (4, 'Dee', 'Japan', 25, 5.0);`

// forever never ends on its own: a statement only a timeout stops.
const forever = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n`

// openDB builds a database from script in a temporary folder and opens it
// with the SQLite engine.
func openDB(t testing.TB, script string) env.DB {
	return sqlitetest.Open(t, script)
}

func spec(match string, edit ...func(*schemas.RewardSpec)) schemas.RewardSpec {
	s := schemas.DefaultRewardSpec()
	s.Match = match
	for _, e := range edit {
		e(&s)
	}
	return s
}

func keepDistinct(s *schemas.RewardSpec) { s.KeepDistinct = true }

func TestJudgeOutcomes(t *testing.T) {
	db := openDB(t, singers)
	bird, spider := schemas.MatchBird, schemas.MatchSpider
	tolerant := func(s *schemas.RewardSpec) { s.Match, s.FloatTolerance = schemas.MatchTolerant, 1e-3 }
	tests := []struct {
		name       string
		spec       schemas.RewardSpec
		gold, pred string
		want       string
	}{
		{"same rows, other spelling", spec(bird), "SELECT name FROM singer WHERE country = 'France'",
			"select name from singer where country='France' and id < 10", schemas.OutcomeCorrect},
		{"columns swapped: bird", spec(bird), "SELECT name, age FROM singer", "SELECT age, name FROM singer", schemas.OutcomeMismatch},
		{"columns swapped: spider", spec(spider), "SELECT name, age FROM singer", "SELECT age, name FROM singer", schemas.OutcomeCorrect},
		{"duplicates: bird collapses", spec(bird), "SELECT DISTINCT age FROM singer", "SELECT age FROM singer", schemas.OutcomeCorrect},
		{"duplicates: spider strips DISTINCT", spec(spider), "SELECT DISTINCT age FROM singer", "SELECT age FROM singer", schemas.OutcomeCorrect},
		{"duplicates: spider keep_distinct counts", spec(spider, keepDistinct), "SELECT DISTINCT age FROM singer", "SELECT age FROM singer", schemas.OutcomeMismatch},
		{"count(DISTINCT): bird", spec(bird), "SELECT count(DISTINCT age) FROM singer", "SELECT count(age) FROM singer", schemas.OutcomeMismatch},
		{"count(DISTINCT): spider strips it", spec(spider), "SELECT count(DISTINCT age) FROM singer", "SELECT count(age) FROM singer", schemas.OutcomeCorrect},
		{"count(DISTINCT): keep_distinct", spec(spider, keepDistinct), "SELECT count(DISTINCT age) FROM singer", "SELECT count(age) FROM singer", schemas.OutcomeMismatch},
		{"ORDER BY reversed: bird", spec(bird), "SELECT name FROM singer ORDER BY age DESC, name", "SELECT name FROM singer ORDER BY age, name", schemas.OutcomeCorrect},
		{"ORDER BY reversed: spider", spec(spider), "SELECT name FROM singer ORDER BY age DESC, name", "SELECT name FROM singer ORDER BY age, name", schemas.OutcomeMismatch},
		{"ORDER BY kept: spider", spec(spider), "SELECT name FROM singer ORDER BY age DESC, name", "SELECT name FROM singer ORDER BY 0 - age, name", schemas.OutcomeCorrect},
		{"NULL is not 0", spec(spider), "SELECT rating FROM singer", "SELECT ifnull(rating, 0) FROM singer", schemas.OutcomeMismatch},
		{"1 equals 1.0", spec(bird), "SELECT 30", "SELECT 30.0", schemas.OutcomeCorrect},
		{"'30' is not 30", spec(spider), "SELECT 30", "SELECT '30'", schemas.OutcomeMismatch},
		{"rounded average: spider", spec(spider), "SELECT avg(rating) FROM singer", "SELECT round(avg(rating), 4) FROM singer", schemas.OutcomeMismatch},
		{"rounded average: tolerant", spec(spider, tolerant), "SELECT avg(rating) FROM singer", "SELECT round(avg(rating), 4) FROM singer", schemas.OutcomeCorrect},
		{"both empty", spec(bird), "SELECT name FROM singer WHERE age > 100", "SELECT id FROM singer WHERE 0", schemas.OutcomeCorrect},
		{"bad SQL", spec(bird), "SELECT 1", "SELECT nope FROM singer", schemas.OutcomePredError},
		{"two statements", spec(bird), "SELECT 1", "SELECT 1; SELECT 2", schemas.OutcomePredError},
		{"a write", spec(bird), "SELECT 1", "DELETE FROM singer", schemas.OutcomePredError},
		{"broken gold", spec(bird), "SELECT nope FROM singer", "SELECT 1", schemas.OutcomeGoldError},
	}
	j := New(Config{})
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			task := &env.Task{ID: "t/1", GoldSQL: tt.gold}
			v, err := j.Judge(ctx, db, "test", task, tt.pred, tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			if v.Outcome != tt.want {
				t.Fatalf("outcome = %s, want %s (pred err %v, gold err %v)", v.Outcome, tt.want, v.PredErr, v.GoldErr)
			}
			checkVerdict(t, v)
		})
	}
}

// checkVerdict checks what every verdict of its outcome must hold.
func checkVerdict(t *testing.T, v Verdict) {
	t.Helper()
	switch v.Outcome {
	case schemas.OutcomeCorrect, schemas.OutcomeMismatch:
		if v.Pred == nil || v.PredErr != nil || v.GoldErr != nil || !v.Final().Executed {
			t.Errorf("%s verdict without a result, or with an error: %+v", v.Outcome, v)
		}
	case schemas.OutcomePredError, schemas.OutcomePredTimeout:
		if v.Pred != nil || v.PredErr == nil || v.Final().Executed {
			t.Errorf("%s verdict with a result or without its error: %+v", v.Outcome, v)
		}
	case schemas.OutcomeGoldError, schemas.OutcomeGoldTimeout:
		if v.Pred != nil || v.GoldErr == nil {
			t.Errorf("%s verdict with a result or without the gold's error: %+v", v.Outcome, v)
		}
	default:
		t.Errorf("unknown outcome %q", v.Outcome)
	}
	if v.Final().Outcome != v.Outcome {
		t.Errorf("Final().Outcome = %s, want %s", v.Final().Outcome, v.Outcome)
	}
}

func TestJudgeTimeouts(t *testing.T) {
	db := openDB(t, singers)
	j := New(Config{PredTimeout: 100 * time.Millisecond, GoldTimeout: 100 * time.Millisecond})
	ctx := context.Background()
	v, err := j.Judge(ctx, db, "test", &env.Task{GoldSQL: "SELECT 1"}, forever, spec(schemas.MatchBird))
	if err != nil || v.Outcome != schemas.OutcomePredTimeout || !errors.Is(v.PredErr, env.ErrTimeout) {
		t.Errorf("endless prediction: %s, %v, %v; want pred_timeout", v.Outcome, v.PredErr, err)
	}
	v, err = j.Judge(ctx, db, "test", &env.Task{GoldSQL: forever}, "SELECT 1", spec(schemas.MatchBird))
	if err != nil || v.Outcome != schemas.OutcomeGoldTimeout || !errors.Is(v.GoldErr, env.ErrTimeout) {
		t.Errorf("endless gold: %s, %v, %v; want gold_timeout", v.Outcome, v.GoldErr, err)
	}
	checkVerdict(t, v)
}

func TestJudgeTruncation(t *testing.T) {
	db := openDB(t, singers)
	ctx := context.Background()
	small := New(Config{MaxRows: 3})
	bird := spec(schemas.MatchBird)
	// The gold is over the limit: it cannot be compared whole.
	v, err := small.Judge(ctx, db, "test", &env.Task{GoldSQL: "SELECT name FROM singer"}, "SELECT name FROM singer", bird)
	if err != nil || v.Outcome != schemas.OutcomeGoldError || !errors.Is(v.GoldErr, ErrGoldTooLarge) {
		t.Errorf("gold over MaxRows: %s, %v, %v; want gold_error, ErrGoldTooLarge", v.Outcome, v.GoldErr, err)
	}
	// The prediction is over the limit, the gold is not: a mismatch, even
	// where its rows as a set (one 'x') would match under bird.
	v, err = small.Judge(ctx, db, "test", &env.Task{GoldSQL: "SELECT 'x'"}, "SELECT 'x' FROM singer", bird)
	if err != nil || v.Outcome != schemas.OutcomeMismatch || !v.Pred.Truncated {
		t.Errorf("prediction over MaxRows: %s, %v; want mismatch on a truncated result", v.Outcome, err)
	}
	v, err = New(Config{}).Judge(ctx, db, "test", &env.Task{GoldSQL: "SELECT 'x'"}, "SELECT 'x' FROM singer", bird)
	if err != nil || v.Outcome != schemas.OutcomeCorrect {
		t.Errorf("same prediction within MaxRows: %s, %v; want correct", v.Outcome, err)
	}
}

func TestJudgeGoldRows(t *testing.T) {
	db := openDB(t, singers)
	j := New(Config{})
	task := &env.Task{ID: "qa/1", GoldRows: [][]any{{int64(2)}}}
	tests := []struct{ pred, want string }{
		{"SELECT count(*) FROM singer WHERE country = 'France'", schemas.OutcomeCorrect},
		{"SELECT 2.0", schemas.OutcomeCorrect},
		{"SELECT count(*) FROM singer", schemas.OutcomeMismatch},
	}
	for _, tt := range tests {
		v, err := j.Judge(context.Background(), db, "test", task, tt.pred, spec(schemas.MatchSpider, func(s *schemas.RewardSpec) { s.Final.Efficiency = 1 }))
		if err != nil || v.Outcome != tt.want || v.ColumnJaccard != 0 || v.Efficiency != 0 {
			t.Errorf("%s: %s, jaccard %v, efficiency %v, %v; want %s, 0, 0", tt.pred, v.Outcome, v.ColumnJaccard, v.Efficiency, err, tt.want)
		}
	}
}

// A task carrying both golds is scored on its gold SQL while it runs, and
// on its answer rows when the engine cannot run it.
func TestJudgeGoldSQLFallsBackToRows(t *testing.T) {
	db := openDB(t, singers)
	j := New(Config{})
	bird := spec(schemas.MatchBird)
	tests := []struct {
		name, gold, pred, want string
	}{
		{"gold runs: its rows count", "SELECT count(*) FROM singer", "SELECT count(*) FROM singer", schemas.OutcomeCorrect},
		{"gold runs: the answer rows do not", "SELECT count(*) FROM singer", "SELECT 2", schemas.OutcomeMismatch},
		{"gold fails: the answer rows count", "SELECT count(*) FROM no_such_table", "SELECT 2", schemas.OutcomeCorrect},
		{"gold fails: a wrong answer", "SELECT count(*) FROM no_such_table", "SELECT 3", schemas.OutcomeMismatch},
	}
	for _, tt := range tests {
		task := &env.Task{ID: "pg/" + tt.name, GoldSQL: tt.gold, GoldRows: [][]any{{int64(2)}}}
		v, err := j.Judge(context.Background(), db, "test", task, tt.pred, bird)
		if err != nil || v.Outcome != tt.want || v.GoldErr != nil {
			t.Errorf("%s: %s (gold error %v), %v; want %s", tt.name, v.Outcome, v.GoldErr, err, tt.want)
		}
	}
}

func TestJudgeShaping(t *testing.T) {
	db := openDB(t, singers)
	j := New(Config{EfficiencyRuns: 2})
	ctx := context.Background()
	task := &env.Task{GoldSQL: "SELECT name FROM singer WHERE country = 'France'"}
	v, err := j.Judge(ctx, db, "test", task, "SELECT name FROM singer WHERE age > 35", spec(schemas.MatchBird))
	if err != nil || v.Outcome != schemas.OutcomeMismatch {
		t.Fatalf("%s, %v; want mismatch", v.Outcome, err)
	}
	// {singer.name, singer.age} against {singer.name, singer.country}.
	if math.Abs(v.ColumnJaccard-1.0/3) > 1e-12 || v.Efficiency != 0 {
		t.Errorf("jaccard %v, efficiency %v; want 1/3, 0", v.ColumnJaccard, v.Efficiency)
	}
	v, err = j.Judge(ctx, db, "test", task, "SELECT name FROM singer WHERE country = 'France'", spec(schemas.MatchBird))
	if err != nil || v.Outcome != schemas.OutcomeCorrect || v.ColumnJaccard != 1 || v.Efficiency != 0 {
		t.Errorf("%s, jaccard %v, efficiency %v, %v; want correct, 1, 0 (efficiency not paid)", v.Outcome, v.ColumnJaccard, v.Efficiency, err)
	}
	paid := spec(schemas.MatchBird, func(s *schemas.RewardSpec) { s.Final.Efficiency = 0.5 })
	v, err = j.Judge(ctx, db, "test", task, "SELECT name FROM singer WHERE country = 'France'", paid)
	buckets := map[float64]bool{0.25: true, 0.5: true, 0.75: true, 1: true, 1.25: true}
	if err != nil || v.Outcome != schemas.OutcomeCorrect || !buckets[v.Efficiency] {
		t.Errorf("%s, efficiency %v, %v; want correct with an R-VES bucket", v.Outcome, v.Efficiency, err)
	}
	empty := &env.Task{GoldSQL: "SELECT name FROM singer WHERE age > 100"}
	v, err = j.Judge(ctx, db, "test", empty, "SELECT name FROM singer WHERE 0", spec(schemas.MatchBird))
	if err != nil || v.Outcome != schemas.OutcomeCorrect || !v.GoldEmpty || !v.Final().GoldEmpty {
		t.Errorf("%s, gold empty %v, %v; want correct on an empty gold", v.Outcome, v.GoldEmpty, err)
	}
}

func TestJudgeCancelled(t *testing.T) {
	db := openDB(t, singers)
	j := New(Config{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, gold := range []string{"SELECT 1", "SELECT 2"} {
		if gold == "SELECT 2" { // cached gold: the prediction meets the cancelled context
			if _, err := j.Judge(context.Background(), db, "test", &env.Task{GoldSQL: gold}, "SELECT 2", spec(schemas.MatchBird)); err != nil {
				t.Fatal(err)
			}
		}
		v, err := j.Judge(ctx, db, "test", &env.Task{GoldSQL: gold}, "SELECT 1", spec(schemas.MatchBird))
		if err == nil || !errors.Is(err, context.Canceled) {
			t.Errorf("gold %s, cancelled context: %+v, %v; want a context.Canceled error", gold, v, err)
		}
	}
}
