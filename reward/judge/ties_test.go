package judge

import (
	"context"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

// tieSingers holds ties on purpose: two youngest (22), two oldest (50),
// France and Spain both most frequent, names distinct.
const tieSingers = `
CREATE TABLE singer(id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, country TEXT NOT NULL);
INSERT INTO singer VALUES
  (1, 'Ann', 22, 'France'), (2, 'Bob', 50, 'Spain'), (3, 'Cid', 22, 'Spain'), (4, 'Dee', 35, 'France'),
  (5, 'Eve', 50, 'Japan'), (6, 'Fay', 41, 'France'), (7, 'Gus', 35, 'Spain');`

// tieCase is a submission against a gold, and its verdict with ties
// judged as any right answer, and whether the gold has more than one.
type tieCase struct {
	name, match, gold, pred string
	want                    string
	goldTies                bool
}

var tieCases = []tieCase{
	{"the gold itself", schemas.MatchSpider, "SELECT name FROM singer ORDER BY age LIMIT 1", "SELECT name FROM singer ORDER BY age LIMIT 1", schemas.OutcomeCorrect, true},
	{"the other youngest", schemas.MatchSpider, "SELECT name FROM singer ORDER BY age LIMIT 1", "SELECT name FROM singer ORDER BY age, name DESC LIMIT 1", schemas.OutcomeCorrect, true},
	{"the other youngest: bird", schemas.MatchBird, "SELECT name FROM singer ORDER BY age LIMIT 1", "SELECT name FROM singer ORDER BY age, name DESC LIMIT 1", schemas.OutcomeCorrect, true},
	{"the oldest", schemas.MatchSpider, "SELECT name FROM singer ORDER BY age LIMIT 1", "SELECT name FROM singer ORDER BY age DESC LIMIT 1", schemas.OutcomeMismatch, true},
	{"a youngest by a subquery, LIMIT without ORDER BY", schemas.MatchSpider, "SELECT name FROM singer ORDER BY age LIMIT 1",
		"SELECT name FROM singer WHERE age = (SELECT min(age) FROM singer) LIMIT 1", schemas.OutcomeCorrect, true},
	{"the two youngest, in either order", schemas.MatchSpider, "SELECT name FROM singer ORDER BY age LIMIT 2", "SELECT name FROM singer WHERE age = 22", schemas.OutcomeCorrect, true},
	{"tied rows in another order", schemas.MatchSpider, "SELECT name, age FROM singer ORDER BY age", "SELECT age, name FROM singer ORDER BY age, name DESC", schemas.OutcomeCorrect, true},
	{"reversed order", schemas.MatchSpider, "SELECT name, age FROM singer ORDER BY age", "SELECT name, age FROM singer ORDER BY age DESC", schemas.OutcomeMismatch, true},
	{"the most frequent country, either", schemas.MatchSpider, "SELECT country FROM singer GROUP BY country ORDER BY count(*) DESC LIMIT 1",
		"SELECT country FROM singer GROUP BY country ORDER BY count(*) DESC, country DESC LIMIT 1", schemas.OutcomeCorrect, true},
	{"the least frequent country", schemas.MatchSpider, "SELECT country FROM singer GROUP BY country ORDER BY count(*) DESC LIMIT 1",
		"SELECT country FROM singer GROUP BY country ORDER BY count(*) LIMIT 1", schemas.OutcomeMismatch, true},
	{"any two rows", schemas.MatchBird, "SELECT id FROM singer LIMIT 2", "SELECT id FROM singer ORDER BY id DESC LIMIT 2", schemas.OutcomeCorrect, true},
	{"a tie the gold settles, the prediction settles alike", schemas.MatchSpider, "SELECT name FROM singer ORDER BY age, name LIMIT 1",
		"SELECT name FROM singer ORDER BY age LIMIT 1", schemas.OutcomeCorrect, false},
	{"a tie the gold settles, the prediction settles otherwise", schemas.MatchSpider, "SELECT name FROM singer ORDER BY age, name DESC LIMIT 1",
		"SELECT name FROM singer ORDER BY age LIMIT 1", schemas.OutcomeMismatch, false},
	{"no ties", schemas.MatchSpider, "SELECT name FROM singer ORDER BY id LIMIT 3", "SELECT name FROM singer ORDER BY id LIMIT 3", schemas.OutcomeCorrect, false},
}

// checkTies judges every tie case runs times on db, each time with a new
// judge (so the gold runs again), and fails on a verdict that differs
// from the case's or from run to run.
func checkTies(t *testing.T, db env.DB, runs int) {
	t.Helper()
	ctx := context.Background()
	for _, tc := range tieCases {
		task := &env.Task{ID: "ties/" + tc.name, GoldSQL: tc.gold}
		for run := range runs {
			v, err := New(Config{Ties: TiesAny}).Judge(ctx, db, "ties/singers", task, tc.pred, spec(tc.match))
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if v.Outcome != tc.want || v.GoldTies != tc.goldTies {
				t.Errorf("%s, run %d: %s (gold ties %v), want %s (gold ties %v)", tc.name, run+1, v.Outcome, v.GoldTies, tc.want, tc.goldTies)
				break
			}
		}
	}
}

func TestJudgeTiesSQLite(t *testing.T) { checkTies(t, openDB(t, tieSingers), 10) }

// TestJudgeTiesOfficial: with TiesOfficial, the rows the engine returned
// are compared, ties and all, as the official evaluators compare them.
func TestJudgeTiesOfficial(t *testing.T) {
	db := openDB(t, tieSingers)
	task := &env.Task{ID: "ties/order", GoldSQL: "SELECT name, age FROM singer ORDER BY age"}
	v, err := New(Config{}).Judge(context.Background(), db, "ties/singers", task, "SELECT name, age FROM singer ORDER BY age, name DESC", spec(schemas.MatchSpider))
	if err != nil {
		t.Fatal(err)
	}
	if v.Outcome != schemas.OutcomeMismatch || v.GoldTies || v.Ties != TiesOfficial {
		t.Errorf("official: %s (gold ties %v, ties %s), want a mismatch: tied rows in another order", v.Outcome, v.GoldTies, v.Ties)
	}
}

// TestJudgeTiesGivenAsRows: a task given as rows with every right answer
// (GoldSegments, as sqlgym import writes them from GoldAnswer) accepts
// the other youngest under TiesAny; GoldRows alone accept only theirs.
func TestJudgeTiesGivenAsRows(t *testing.T) {
	db := openDB(t, tieSingers)
	ctx := context.Background()
	ans, err := GoldAnswer(ctx, db, "SELECT name FROM singer ORDER BY age LIMIT 1", env.Limits{MaxRows: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Unique() || ans.Len() != 1 {
		t.Fatalf("answer %+v: want one row chosen among the two youngest", ans)
	}
	task := &env.Task{ID: "ties/rows", GoldRows: [][]any{{"Ann"}}}
	for _, s := range ans.Segments {
		task.GoldSegments = append(task.GoldSegments, env.Segment{Rows: s.Rows, Take: s.Take})
	}
	for _, tt := range []struct {
		ties Ties
		pred string
		want string
	}{
		{TiesAny, "SELECT 'Cid'", schemas.OutcomeCorrect},
		{TiesAny, "SELECT 'Ann'", schemas.OutcomeCorrect},
		{TiesAny, "SELECT 'Bob'", schemas.OutcomeMismatch},
		{TiesOfficial, "SELECT 'Cid'", schemas.OutcomeMismatch},
	} {
		v, err := New(Config{Ties: tt.ties}).Judge(ctx, db, "ties/singers", task, tt.pred, spec(schemas.MatchBird))
		if err != nil {
			t.Fatal(err)
		}
		if v.Outcome != tt.want || v.GoldTies != (tt.ties == TiesAny) {
			t.Errorf("%s, %s: %s (gold ties %v), want %s", tt.ties, tt.pred, v.Outcome, v.GoldTies, tt.want)
		}
	}
	exact, err := GoldAnswer(ctx, db, "SELECT name FROM singer WHERE age > 40", env.Limits{MaxRows: 1000})
	if err != nil || !exact.Unique() || exact.Len() != 3 {
		t.Errorf("a gold without ties: %+v, %v; want its three rows, one answer", exact, err)
	}
}
