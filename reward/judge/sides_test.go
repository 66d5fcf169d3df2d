package judge

import (
	"context"
	"errors"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestSidesRunAsTheJudgeDoes checks that the comparison a person reads
// runs what the judge runs: DISTINCT stripped outside the bird mode, the
// answer rows standing in for a gold that fails, the prediction's error
// kept, order reported only where the mode heeds it, and the judge's own
// row bound applied.
func TestSidesRunAsTheJudgeDoes(t *testing.T) {
	db := openDB(t, singers)
	ctx := context.Background()
	j := New(Config{})
	task := &env.Task{ID: "t", GoldSQL: "SELECT DISTINCT age FROM singer ORDER BY age"}
	s, err := j.Sides(ctx, db, task, "SELECT DISTINCT age FROM singer", spec(schemas.MatchSpider))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Gold.Result.Rows) != 4 || len(s.Pred.Result.Rows) != 4 || !s.Ordered || s.Distinct {
		t.Errorf("spider: gold %d rows, pred %d rows, ordered %v, distinct %v; want DISTINCT stripped (4, 4), ordered, not distinct",
			len(s.Gold.Result.Rows), len(s.Pred.Result.Rows), s.Ordered, s.Distinct)
	}
	s, err = j.Sides(ctx, db, task, "SELECT DISTINCT age FROM singer", spec(schemas.MatchBird))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Gold.Result.Rows) != 3 || s.Ordered || !s.Distinct {
		t.Errorf("bird: gold %d rows, ordered %v, distinct %v; want DISTINCT kept (3), unordered, distinct", len(s.Gold.Result.Rows), s.Ordered, s.Distinct)
	}

	broken := &env.Task{ID: "b", GoldSQL: "SELECT nope FROM singer", GoldRows: [][]any{{int64(7)}}}
	s, err = j.Sides(ctx, db, broken, "SELECT nothing FROM singer", spec(schemas.MatchBird))
	if err != nil {
		t.Fatal(err)
	}
	var qe *env.QueryError
	if s.Gold.Err != nil || len(s.Gold.Result.Rows) != 1 || s.Gold.Result.Columns != nil || !errors.As(s.Pred.Err, &qe) {
		t.Errorf("failing gold with answer rows: gold %+v, pred error %v; want the answer rows and the prediction's query error", s.Gold, s.Pred.Err)
	}
	s, err = j.Sides(ctx, db, task, "  ", spec(schemas.MatchBird))
	if err != nil || s.Pred.Result != nil || s.Pred.Err != nil {
		t.Errorf("no submission: pred %+v, err %v; want a zero side", s.Pred, err)
	}

	small := New(Config{MaxRows: 2})
	s, err = small.Sides(ctx, db, task, "SELECT name FROM singer", spec(schemas.MatchBird))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Pred.Result.Truncated || len(s.Pred.Result.Rows) != 2 {
		t.Errorf("MaxRows 2: pred %d rows, truncated %v; want the judge's bound: 2 rows, truncated", len(s.Pred.Result.Rows), s.Pred.Result.Truncated)
	}
}
