package judge

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

// fixedSuites gives every task the same suite.
type fixedSuites []SuiteDB

func (s fixedSuites) Suite(context.Context, *env.Task) ([]SuiteDB, error) { return s, nil }

const (
	// suiteTask: the real data, where two ages coincide with the gold.
	suiteTask = `CREATE TABLE singer(id INTEGER PRIMARY KEY, name TEXT, age INTEGER, n INTEGER);
INSERT INTO singer VALUES (1, 'Ann', 30, 1), (2, 'Bob', 41, 2), (3, 'Cid', 31, 3);`
	// suiteAgrees: other rows on which `age > 30` and `age >= 31` still agree.
	suiteAgrees = `CREATE TABLE singer(id INTEGER PRIMARY KEY, name TEXT, age INTEGER, n INTEGER);
INSERT INTO singer VALUES (1, 'Dee', 29, 1), (2, 'Eve', 50, 2);`
	// suiteTells: an age between 30 and 31, and a value abs() cannot take.
	suiteTells = `CREATE TABLE singer(id INTEGER PRIMARY KEY, name TEXT, age INTEGER, n INTEGER);
INSERT INTO singer VALUES (1, 'Fay', 30.5, -9223372036854775808), (2, 'Gus', 35, 50000000);`
)

func suiteOf(t *testing.T, scripts ...string) fixedSuites {
	var s fixedSuites
	for i, sc := range scripts {
		name := fmt.Sprintf("singers/ts-%04d", i)
		s = append(s, SuiteDB{Name: name, Key: "test~suite/" + name, DB: openDB(t, sc)})
	}
	return s
}

func TestJudgeOnSuite(t *testing.T) {
	db := openDB(t, suiteTask)
	suite := suiteOf(t, suiteAgrees, suiteTells)
	gold := "SELECT name FROM singer WHERE age > 30"
	tests := []struct {
		name, pred   string
		want, exec   string
		judged       int
		toldApartBy  string
		reasonPrefix string
	}{
		{"right everywhere", "SELECT name FROM singer WHERE 30 < age", schemas.OutcomeCorrect, schemas.OutcomeCorrect, 2, "", ""},
		{"agrees by chance on the task's data", "SELECT name FROM singer WHERE age >= 31", schemas.OutcomeMismatch, schemas.OutcomeCorrect, 2, "singers/ts-0001", ReasonOtherRows},
		{"fails on a suite database", "SELECT name FROM singer WHERE age > 30 AND abs(n) > 0", schemas.OutcomeMismatch, schemas.OutcomeCorrect, 2, "singers/ts-0001", ReasonPredError},
		{"wrong on the task's data: suite not consulted", "SELECT name FROM singer", schemas.OutcomeMismatch, schemas.OutcomeMismatch, 0, "", ""},
		{"an error on the task's data", "SELECT nope FROM singer", schemas.OutcomePredError, schemas.OutcomePredError, 0, "", ""},
	}
	j := New(Config{Suites: suite})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			task := &env.Task{ID: "t/1", GoldSQL: gold}
			v, err := j.Judge(context.Background(), db, "test/singers", task, tt.pred, spec(schemas.MatchBird))
			if err != nil {
				t.Fatal(err)
			}
			if v.Outcome != tt.want || v.ExecOutcome != tt.exec {
				t.Fatalf("outcome %s, exec %s; want %s, %s (%+v)", v.Outcome, v.ExecOutcome, tt.want, tt.exec, v.Suite)
			}
			if v.Suite.Judged != tt.judged || v.Suite.ToldApartBy != tt.toldApartBy || !hasPrefix(v.Suite.Reason, tt.reasonPrefix) {
				t.Fatalf("suite %+v; want judged %d, told apart by %q, reason %q...", v.Suite, tt.judged, tt.toldApartBy, tt.reasonPrefix)
			}
			if tt.judged > 0 && v.Suite.Databases != 2 {
				t.Fatalf("suite databases %d, want 2", v.Suite.Databases)
			}
		})
	}
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// TestJudgeSuiteGoldFails: a suite database on which the gold fails is
// passed over, never blamed on the model.
func TestJudgeSuiteGoldFails(t *testing.T) {
	db := openDB(t, suiteTask)
	// abs() of the smallest integer fails: the gold reads it on this one.
	suite := suiteOf(t, `CREATE TABLE singer(id INTEGER PRIMARY KEY, name TEXT, age INTEGER, n INTEGER);
INSERT INTO singer VALUES (1, 'Fay', 30, -9223372036854775808);`, suiteAgrees)
	j := New(Config{Suites: suite})
	task := &env.Task{ID: "t/1", GoldSQL: "SELECT name FROM singer WHERE abs(n) > 1"}
	v, err := j.Judge(context.Background(), db, "test/singers", task, "SELECT name FROM singer WHERE n > 1", spec(schemas.MatchBird))
	if err != nil {
		t.Fatal(err)
	}
	if v.Outcome != schemas.OutcomeCorrect || v.Suite.GoldFailed != 1 || v.Suite.Judged != 2 {
		t.Fatalf("outcome %s, suite %+v; want correct, the gold's failure passed over", v.Outcome, v.Suite)
	}
}

// TestJudgeSuiteBudget: the prediction has one time limit for the whole
// suite. On the task's database it ends at once; on the suite's it would
// count to 2^62.
func TestJudgeSuiteBudget(t *testing.T) {
	db := openDB(t, suiteTask)
	suite := suiteOf(t, fmt.Sprintf(`CREATE TABLE singer(id INTEGER PRIMARY KEY, name TEXT, age INTEGER, n INTEGER);
INSERT INTO singer VALUES (1, 'Ann', 30, %d);`, int64(math.MaxInt64/2)))
	j := New(Config{Suites: suite, PredTimeout: 300 * time.Millisecond})
	task := &env.Task{ID: "t/1", GoldSQL: "SELECT 3"}
	pred := "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < (SELECT max(n) FROM singer)) SELECT count(*) FROM c"
	v, err := j.Judge(context.Background(), db, "test/singers", task, pred, spec(schemas.MatchBird))
	if err != nil {
		t.Fatal(err)
	}
	if v.ExecOutcome != schemas.OutcomeCorrect || v.Outcome != schemas.OutcomeMismatch || v.Suite.Reason != ReasonPredTime {
		t.Fatalf("exec %s, outcome %s, suite %+v; want correct, then mismatch past the time limit", v.ExecOutcome, v.Outcome, v.Suite)
	}
}

// TestJudgeSuiteFirstInOrder: judged at once, a suite still reports the
// first database in its order that tells the prediction apart, and how
// many were judged up to it, as judging them one by one does.
func TestJudgeSuiteFirstInOrder(t *testing.T) {
	db := openDB(t, suiteTask)
	suite := suiteOf(t, suiteAgrees, suiteTells, suiteAgrees, suiteTells, suiteAgrees)
	task := &env.Task{ID: "t/1", GoldSQL: "SELECT name FROM singer WHERE age > 30"}
	for run := range 20 {
		j := New(Config{Suites: suite, SuiteWorkers: 1 + run%5})
		v, err := j.Judge(context.Background(), db, "test/singers", task, "SELECT name FROM singer WHERE age >= 31", spec(schemas.MatchBird))
		if err != nil {
			t.Fatal(err)
		}
		if v.Outcome != schemas.OutcomeMismatch || v.Suite.ToldApartBy != "singers/ts-0001" || v.Suite.Judged != 2 || v.Suite.Databases != 5 {
			t.Fatalf("run %d, %d workers: %s, %+v; want told apart by singers/ts-0001, 2 of 5 judged", run, 1+run%5, v.Outcome, v.Suite)
		}
	}
}
