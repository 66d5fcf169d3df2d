package dbimport

import (
	"context"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqltext"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
)

// tieRuns is how many times a tie check judges one submission.
const tieRuns = 10

// checkTieVerdicts judges, under TiesAny, the submissions whose verdict
// could hang on the order in which the server breaks ties, tieRuns times
// each, and wants the same verdict every time (issue 30's acceptance):
//   - on each task with answer rows only whose SQLite gold has ties
//     (gold_segments), the statement the import tried and did not keep;
//     where it returned SQLite's rows in another order it is correct;
//   - on each task whose gold has ties on the server, the gold with its
//     ties settled by its own columns (sqltext.TieBreak), which returns
//     one right answer the server need not: correct every time.
func checkTieVerdicts(t *testing.T, ctx context.Context, ds *env.Dataset, imp *Imported, dbs map[string]env.DB) {
	t.Helper()
	j := judge.New(judge.Config{Ties: judge.TiesAny})
	segs, golds := 0, 0
	for i := range ds.Tasks {
		task := &ds.Tasks[i]
		db := dbs[task.DBID]
		if len(task.GoldSegments) > 0 {
			segs++
			g := goldOf(t, ds, imp, task)
			same(t, ctx, j, db, ds, task, g.Tried, g.Reason == ReasonTieOrder)
			continue
		}
		if task.GoldSQL == "" {
			continue
		}
		ans, err := judge.GoldAnswer(ctx, db, task.GoldSQL, env.Limits{MaxRows: DefaultMaxAnswerRows})
		if err != nil {
			t.Fatalf("%s: %v", task.ID, err)
		}
		cols, ok := sqltext.OutputCount(task.GoldSQL)
		if ans.Unique() || !ok {
			continue
		}
		settled, ok := sqltext.TieBreak(task.GoldSQL, cols)
		if !ok {
			continue
		}
		golds++
		same(t, ctx, j, db, ds, task, settled, true)
	}
	t.Logf("ties: %d tasks with answer rows only and gold_segments, %d golds with ties on the server, each judged %d times", segs, golds, tieRuns)
	if segs == 0 || golds == 0 {
		t.Errorf("%d tasks with gold_segments, %d golds with ties: the check checked nothing", segs, golds)
	}
}

// same judges sql on task tieRuns times and wants one verdict every
// time, correct when wantCorrect.
func same(t *testing.T, ctx context.Context, j *judge.Judge, db env.DB, ds *env.Dataset, task *env.Task, sql string, wantCorrect bool) {
	t.Helper()
	var first string
	for run := range tieRuns {
		v, err := j.Judge(ctx, db, ds.DBKey(task.DBID), task, sql, schemas.DefaultRewardSpec())
		if err != nil {
			t.Fatalf("%s: %v", task.ID, err)
		}
		switch {
		case run == 0:
			first = v.Outcome
			if wantCorrect && first != schemas.OutcomeCorrect {
				t.Errorf("%s: %q judged %s; want correct", task.ID, sql, first)
			}
		case v.Outcome != first:
			t.Errorf("%s: %q judged %s, then %s in run %d", task.ID, sql, first, v.Outcome, run+1)
			return
		}
	}
}

// goldOf is what imp made of the gold of task, a task of the dataset
// imp wrote.
func goldOf(t *testing.T, ds *env.Dataset, imp *Imported, task *env.Task) *Gold {
	t.Helper()
	key := task.ID[len(ds.Name)+1:]
	for i, tg := range imp.Report.Tasks {
		if tg.TaskID == key {
			return imp.Golds[i]
		}
	}
	t.Fatalf("%s: not in the import's report", task.ID)
	return nil
}
