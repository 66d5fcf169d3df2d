package replay_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/replay"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
)

// shopSuite gives every task one suite database: the shop with an item
// over 1000, where `price > 5000` and `price > 1000` differ.
type shopSuite []judge.SuiteDB

func (s shopSuite) Suite(context.Context, *env.Task) ([]judge.SuiteDB, error) { return s, nil }

// TestRescoreRejudgesWithASuite: a log recorded on one database is judged
// again on a suite with Rejudge, although the spec needs no new fact;
// what one database happened to pay becomes a mismatch, and the record
// says which suite database told it apart.
func TestRescoreRejudgesWithASuite(t *testing.T) {
	st := newStack(t, shop(t))
	store := newMemStore()
	c := st.serve(t, store, 4)
	ctx := context.Background()
	r, err := c.Reset(ctx, schemas.ResetParams{TaskID: "shop/empty"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Step(ctx, r.EpisodeID, client.ToolCall("submit", map[string]any{"sql": "SELECT name FROM items WHERE price > 5000"})); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ts-0001.sqlite")
	if err := sqlite.Build(ctx, path, "CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL);\nINSERT INTO items VALUES (1,'safe',2500.0);"); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.New(sqlite.Config{}).Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	suite := judge.New(judge.Config{Suites: shopSuite{{Name: "shop/ts-0001", Key: "shop~suite/shop/ts-0001", DB: db}}})
	for _, rejudge := range []bool{false, true} {
		rs := replay.NewRescorer(replay.RescoreConfig{Spec: schemas.DefaultRewardSpec(), Datasets: st.datasets, Catalog: st.catalog, Judge: suite, Rejudge: rejudge})
		got, rep := rescoreAll(t, rs, store)
		rec := got[r.EpisodeID]
		last := rec.Steps[len(rec.Steps)-1]
		switch {
		case !rejudge && (rep.Rejudged != 0 || rec.Outcome != schemas.OutcomeCorrect || last.Judge == nil || last.Judge.Mode != schemas.JudgeExec):
			t.Errorf("without Rejudge: %d judged again, outcome %s, judge %+v; want the record's facts: correct, judged on one database", rep.Rejudged, rec.Outcome, last.Judge)
		case rejudge && (rep.Rejudged != 1 || rec.Outcome != schemas.OutcomeMismatch || last.Judge == nil ||
			last.Judge.ToldApartBy != "shop/ts-0001" || last.Judge.ExecOutcome != schemas.OutcomeCorrect):
			t.Errorf("with Rejudge: %d judged again, outcome %s, judge %+v; want a mismatch told apart by shop/ts-0001", rep.Rejudged, rec.Outcome, last.Judge)
		}
	}
}
