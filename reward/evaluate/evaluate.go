package evaluate

import (
	"context"
	"errors"
	"fmt"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
)

// Config configures Evaluate.
type Config struct {
	// Catalog opens the dataset's databases. Required.
	Catalog *env.Catalog
	// Judge scores each prediction; its gold cache carries over between
	// calls. Required. Its verdict is the record's Outcome: the execution
	// accuracy (EX) figure.
	Judge *judge.Judge
	// Suite, when set, judges each prediction again (with its own suites
	// and tie rule): the record's TS, the test-suite accuracy figure.
	Suite *judge.Judge
	// Spec gives the match mode and the final reward of each record.
	Spec schemas.RewardSpec
	// Workers is how many predictions are judged at once; GOMAXPROCS when
	// zero or less.
	Workers int
	// Progress, when not nil, is told after each prediction how many are
	// done, one call at a time.
	Progress func(done, total int)
}

// Record is the verdict on one prediction, a line of the --out file.
type Record struct {
	Index      int    `json:"index"` // the task's position in the dataset, from 0
	TaskID     string `json:"task_id"`
	DBID       string `json:"db_id"`
	Difficulty string `json:"difficulty,omitempty"`
	// Pos is where the prediction is in its file: "line 12" or
	// `key "11"`.
	Pos string `json:"pos,omitempty"`
	// Outcome is correct, mismatch, pred_error, pred_timeout, gold_error
	// or gold_timeout; Correct is Outcome == "correct".
	Outcome string `json:"outcome"`
	Correct bool   `json:"correct"`
	// Reward is the final reward the spec pays for the outcome.
	Reward float64 `json:"reward"`
	// PredMS and GoldMS are the statements' run times in milliseconds,
	// 0 for one that did not run; the gold's is from the run that filled
	// the judge's cache.
	PredMS float64 `json:"pred_ms"`
	GoldMS float64 `json:"gold_ms"`
	// GoldEmpty is set when the gold result had no rows.
	GoldEmpty bool `json:"gold_empty,omitempty"`
	// NoTableRead is set when the prediction read no table of the
	// database while the gold did (SELECT 4 when the answer is 4); a
	// correct one stays correct, as the official EX counts it.
	NoTableRead bool `json:"no_table_read,omitempty"`
	// Error is the failing statement's message: the prediction's, or the
	// gold's prefixed "gold: ".
	Error string `json:"error,omitempty"`
	// TS is the test-suite verdict, when the evaluation judged one
	// (Config.Suite).
	TS *TSVerdict `json:"ts,omitempty"`
}

// TSVerdict is a prediction's verdict under test-suite judging: on the
// task's database and on every database of its suite.
type TSVerdict struct {
	Outcome string `json:"outcome"`
	Correct bool   `json:"correct"`
	// SuiteDatabases is the size of the task's suite; 0 when the task has
	// none (it was judged on its own database alone).
	SuiteDatabases int `json:"suite_databases"`
	// ToldApartBy names the suite database that told the prediction
	// apart, and Reason how.
	ToldApartBy string `json:"told_apart_by,omitempty"`
	Reason      string `json:"reason,omitempty"`
	// GoldTies is set when the gold has more than one right answer on the
	// task's database.
	GoldTies bool `json:"gold_ties,omitempty"`
}

// Evaluate judges every item and returns the records in item order. A
// model's failure is a record; an error is returned only for a fault of
// the run itself (a database that cannot be opened, a cancelled context),
// naming the task.
func Evaluate(ctx context.Context, ds *env.Dataset, items []Item, cfg Config) ([]Record, error) {
	if cfg.Catalog == nil || cfg.Judge == nil {
		return nil, errors.New("evaluate: Config.Catalog and Config.Judge are required")
	}
	recs := make([]Record, len(items))
	err := forEach(ctx, len(items), cfg.Workers, cfg.Progress, func(ctx context.Context, i int) error {
		t := items[i].Task
		db, err := cfg.Catalog.DB(ctx, ds, t.DBID)
		if err != nil {
			return fmt.Errorf("evaluate %s: %w", t.ID, err)
		}
		v, err := cfg.Judge.Judge(ctx, db, ds.DBKey(t.DBID), t, items[i].Prediction.SQL, cfg.Spec)
		if err != nil {
			return fmt.Errorf("evaluate %s: %w", t.ID, err)
		}
		recs[i] = newRecord(items[i], v, cfg.Spec)
		if cfg.Suite != nil {
			ts, err := cfg.Suite.Judge(ctx, db, ds.DBKey(t.DBID), t, items[i].Prediction.SQL, cfg.Spec)
			if err != nil {
				return fmt.Errorf("evaluate %s: %w", t.ID, err)
			}
			recs[i].TS = tsVerdict(ts)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// newRecord turns the verdict on an item into a record.
func newRecord(it Item, v judge.Verdict, spec schemas.RewardSpec) Record {
	t := it.Task
	r := Record{
		Index: it.Index, TaskID: t.ID, DBID: t.DBID, Difficulty: t.Difficulty, Pos: it.Prediction.Pos,
		Outcome: v.Outcome, Correct: v.Outcome == schemas.OutcomeCorrect,
		PredMS: schemas.Milliseconds(v.PredElapsed), GoldMS: schemas.Milliseconds(v.GoldElapsed), GoldEmpty: v.GoldEmpty,
		NoTableRead: v.NoTableRead,
	}
	switch {
	case v.PredErr != nil:
		r.Error = v.PredErr.Message
	case v.GoldErr != nil:
		r.Error = "gold: " + v.GoldErr.Error()
	}
	final := v.Final()
	_, r.Reward = reward.NewLedger(spec).Step(reward.TurnNone, &final)
	return r
}

// tsVerdict is the record's view of a test-suite verdict.
func tsVerdict(v judge.Verdict) *TSVerdict {
	return &TSVerdict{Outcome: v.Outcome, Correct: v.Outcome == schemas.OutcomeCorrect,
		SuiteDatabases: v.Suite.Databases, ToldApartBy: v.Suite.ToldApartBy, Reason: v.Suite.Reason, GoldTies: v.GoldTies}
}
