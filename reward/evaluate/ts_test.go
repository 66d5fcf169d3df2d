package evaluate

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
)

// shopSuite gives every task one suite database: the shop with other
// prices, on which `price > 1.5` and `price >= 2` differ.
type shopSuite struct{ db judge.SuiteDB }

func (s shopSuite) Suite(context.Context, *env.Task) ([]judge.SuiteDB, error) {
	return []judge.SuiteDB{s.db}, nil
}

func newShopSuite(t *testing.T) shopSuite {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ts-0001.sqlite")
	err := sqlite.Build(context.Background(), path, `
CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL);
INSERT INTO item VALUES (1, 'pen', 1.75), (2, 'ink', 3.0);`)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.New(sqlite.Config{}).Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return shopSuite{judge.SuiteDB{Name: "shop/ts-0001", Key: "shop~suite/shop/ts-0001", DB: db}}
}

// TestEvaluateTS: with a suite judge, each record carries both verdicts,
// and the summary both figures and what the suites told apart.
func TestEvaluateTS(t *testing.T) {
	ds := buildDataset(t,
		testTask{ID: "1", DBID: "shop", Difficulty: "easy", GoldSQL: "SELECT name FROM item WHERE price > 1.5"},
		testTask{ID: "2", DBID: "shop", Difficulty: "easy", GoldSQL: "SELECT name FROM item WHERE price > 1.5"},
		testTask{ID: "3", DBID: "shop", Difficulty: "hard", GoldSQL: "SELECT count(*) FROM item"})
	items, err := Align(ds, []Prediction{
		{SQL: "SELECT name FROM item WHERE price >= 2"},  // right by chance on the shop
		{SQL: "SELECT name FROM item WHERE 1.5 < price"}, // right
		{SQL: "SELECT count(*) + 1 FROM item"}})          // wrong everywhere
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Catalog: newCatalog(t), Spec: schemas.DefaultRewardSpec(), Workers: 2,
		Judge: judge.New(judge.Config{}),
		Suite: judge.New(judge.Config{Suites: newShopSuite(t), Ties: judge.TiesAny})}
	recs, err := Evaluate(context.Background(), ds, items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	wantEX, wantTS := []bool{true, true, false}, []bool{false, true, false}
	for i, r := range recs {
		if r.TS == nil || r.Correct != wantEX[i] || r.TS.Correct != wantTS[i] {
			t.Fatalf("record %d: EX %v, TS %+v; want %v, %v", i, r.Correct, r.TS, wantEX[i], wantTS[i])
		}
	}
	if r := recs[0].TS; r.ToldApartBy != "shop/ts-0001" || r.SuiteDatabases != 1 || r.Reason != judge.ReasonOtherRows {
		t.Errorf("told apart: %+v", r)
	}
	s := Summarize(recs)
	if s.Overall.TSCorrect != 1 || s.Overall.TSTotal != 3 || s.ToldApart != 1 {
		t.Errorf("summary: %+v, told apart %d", s.Overall, s.ToldApart)
	}
	var b bytes.Buffer
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"EX 0.667 (2/3)\nTS 0.333 (1/3)\n", "difficulty  EX     TS     correct  TS correct  total\neasy        1.000  0.500  2        1           2\n",
		"correct under EX, told apart by a test suite  1\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary text lacks %q:\n%s", want, b.String())
		}
	}
}
