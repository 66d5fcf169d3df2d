package judge

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

// SuiteVerdict is what a task's test suite found of a submission that was
// correct on the task's database.
type SuiteVerdict struct {
	// Databases is how many databases the task's suite holds (0: none).
	Databases int
	// Judged is how many of them were judged: all of them when the
	// prediction agreed on every one, else up to the one that told it
	// apart.
	Judged int
	// ToldApartBy names the suite database on which the prediction did
	// not agree with the gold; "" when none did.
	ToldApartBy string
	// Reason says how it differed there: other rows, or what the
	// prediction did wrong there (an error, the time limit).
	Reason string
	// GoldFailed counts the suite databases passed over because the gold
	// itself failed on them; a suite built by sqlgym has none.
	GoldFailed int
}

// Reasons of SuiteVerdict.Reason.
const (
	ReasonOtherRows = "other rows"
	ReasonPredError = "the prediction fails there"
	ReasonPredTime  = "the prediction runs past its time limit on the suite"
)

// onSuite judges a submission correct on the task's database on every
// database of the task's suite and turns v into a mismatch at the first,
// in suite order, that tells it apart. Up to Config.SuiteWorkers suite
// databases are judged at once; the verdict is the one judging them one
// by one gives. The prediction has one PredTimeout for the whole suite:
// a suite can never hold a submission longer than the task's database
// can.
func (j *Judge) onSuite(ctx context.Context, task *env.Task, q query, spec schemas.RewardSpec, v *Verdict) error {
	if j.cfg.Suites == nil || task.GoldSQL == "" {
		return nil
	}
	dbs, err := j.cfg.Suites.Suite(ctx, task)
	if err != nil {
		return fmt.Errorf("judge: suite of %s: %w", task.ID, err)
	}
	v.Suite.Databases = len(dbs)
	res := j.judgeSuite(ctx, dbs, q, spec, time.Now().Add(j.cfg.PredTimeout))
	for i, r := range res {
		v.Suite.Judged++
		switch {
		case errors.Is(r.err, errGoldFailed):
			v.Suite.GoldFailed++
		case r.err != nil:
			return r.err
		case r.reason != "":
			v.Outcome, v.Suite.ToldApartBy, v.Suite.Reason = schemas.OutcomeMismatch, dbs[i].Name, r.reason
			return nil
		}
	}
	return nil
}

// suiteResult is what one suite database found: why it told the
// prediction apart ("" when it did not), or an error.
type suiteResult struct {
	reason string
	err    error
}

// judgeSuite judges the submission on dbs, up to SuiteWorkers at once.
// Once a database tells the prediction apart, those after it in suite
// order no longer matter: they are stopped, or not started. Every result
// up to the first that tells it apart is whole.
func (j *Judge) judgeSuite(ctx context.Context, dbs []SuiteDB, q query, spec schemas.RewardSpec, deadline time.Time) []suiteResult {
	res := make([]suiteResult, len(dbs))
	ctxs, cancels := make([]context.Context, len(dbs)), make([]context.CancelFunc, len(dbs))
	for i := range dbs {
		ctxs[i], cancels[i] = context.WithCancel(ctx)
		defer cancels[i]()
	}
	var first atomic.Int64 // the first database known to tell the prediction apart
	first.Store(int64(len(dbs)))
	sem := make(chan struct{}, j.cfg.SuiteWorkers)
	var wg sync.WaitGroup
	for i := range dbs {
		sem <- struct{}{}
		if first.Load() < int64(i) {
			<-sem
			break // every later result is moot
		}
		wg.Go(func() {
			defer func() { <-sem }()
			reason, err := j.onSuiteDB(ctxs[i], dbs[i], q, spec, time.Until(deadline))
			res[i] = suiteResult{reason: reason, err: err}
			if reason != "" && lower(&first, int64(i)) {
				for _, cancel := range cancels[i+1:] {
					cancel()
				}
			}
		})
	}
	wg.Wait()
	return res
}

// lower sets a to v when v is less, and reports whether it did.
func lower(a *atomic.Int64, v int64) bool {
	for {
		cur := a.Load()
		if v >= cur {
			return false
		}
		if a.CompareAndSwap(cur, v) {
			return true
		}
	}
}

// errGoldFailed is onSuiteDB's report of a gold that fails on a suite
// database: the database is passed over, never blamed on the model.
var errGoldFailed = errors.New("gold fails on a suite database")

// onSuiteDB judges the submission on one suite database and returns why
// it told the prediction apart, "" when it agreed, within budget.
func (j *Judge) onSuiteDB(ctx context.Context, sdb SuiteDB, q query, spec schemas.RewardSpec, budget time.Duration) (string, error) {
	run, err := j.runGold(ctx, sdb.DB, goldKey{db: sdb.Key, sql: q.gold, bare: true})
	var qe *env.QueryError
	switch {
	case err == nil:
	case ctx.Err() == nil && (errors.As(err, &qe) || errors.Is(err, ErrGoldTooLarge)):
		return "", errGoldFailed
	default:
		return "", fmt.Errorf("judge: gold on %s: %w", sdb.Name, err)
	}
	if budget <= 0 {
		return ReasonPredTime, nil
	}
	lim := j.limits(budget)
	lim.Reads = false
	pred, err := j.runPred(ctx, sdb.DB, q.pred, q.plan, lim)
	switch {
	case errors.As(err, &qe) && ctx.Err() == nil && errors.Is(qe, env.ErrTimeout):
		return ReasonPredTime, nil
	case errors.As(err, &qe) && ctx.Err() == nil:
		return ReasonPredError + ": " + qe.Message, nil
	case err != nil:
		return "", fmt.Errorf("judge: prediction on %s: %w", sdb.Name, err)
	case pred.Truncated || !run.match.matches(spec, pred.Rows, q.ordered):
		return ReasonOtherRows, nil
	}
	return "", nil
}
