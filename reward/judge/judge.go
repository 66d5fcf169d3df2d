package judge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqltext"
	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/schemas"
)

// Defaults for the zero fields of Config.
const (
	DefaultTimeout        = 30 * time.Second
	DefaultMaxRows        = 1_000_000
	DefaultMaxResultBytes = 256 << 20
	DefaultEfficiencyRuns = 3
	DefaultGoldCacheBytes = 1 << 30
	DefaultSuiteWorkers   = 4
)

// ErrGoldTooLarge is the gold error of a gold whose result is over
// Config.MaxRows or Config.MaxResultBytes: it cannot be compared whole.
var ErrGoldTooLarge = errors.New("gold result too large")

// Config configures a Judge; every zero field takes its default.
type Config struct {
	// PredTimeout and GoldTimeout bound the prediction and the gold, each
	// on its own (a slow gold never sinks the prediction). Default 30s each.
	PredTimeout, GoldTimeout time.Duration
	// MaxRows and MaxResultBytes bound the rows read for scoring. Default
	// 1,000,000 rows and 256 MiB.
	MaxRows        int
	MaxResultBytes int
	// EfficiencyRuns is how many times the prediction and the gold are
	// timed for the R-VES bucket, when the spec pays for efficiency.
	// Default 3.
	EfficiencyRuns int
	// GoldCacheBytes bounds the memory of cached gold results (estimated
	// from their values); the least recently used go first. Default 1 GiB.
	GoldCacheBytes int64
	// Suites gives each task's test suite: a submission correct on the
	// task's database is correct only if it is on every database of its
	// suite too. Nil judges on the task's database alone.
	Suites Suites
	// SuiteWorkers bounds the suite databases one submission is judged on
	// at once (each a statement, within the engine's own bound on
	// statements running). Default 4.
	SuiteWorkers int
	// Ties is how golds with ties are judged; "" is TiesOfficial.
	Ties Ties
	// TieRows is how many rows past a gold's LIMIT are read, under
	// TiesAny, to find those tied with the last row kept. Default 1,000;
	// a tie group that runs on past them counts only the rows read.
	TieRows int
}

func (c Config) withDefaults() Config {
	if c.PredTimeout <= 0 {
		c.PredTimeout = DefaultTimeout
	}
	if c.GoldTimeout <= 0 {
		c.GoldTimeout = DefaultTimeout
	}
	if c.MaxRows <= 0 {
		c.MaxRows = DefaultMaxRows
	}
	if c.MaxResultBytes <= 0 {
		c.MaxResultBytes = DefaultMaxResultBytes
	}
	if c.EfficiencyRuns <= 0 {
		c.EfficiencyRuns = DefaultEfficiencyRuns
	}
	if c.GoldCacheBytes <= 0 {
		c.GoldCacheBytes = DefaultGoldCacheBytes
	}
	if c.Ties == "" {
		c.Ties = TiesOfficial
	}
	if c.SuiteWorkers <= 0 {
		c.SuiteWorkers = DefaultSuiteWorkers
	}
	if c.TieRows <= 0 {
		c.TieRows = DefaultTieRows
	}
	return c
}

// Judge scores submissions. It is safe for concurrent use.
type Judge struct {
	cfg Config // set by New, read-only after

	mu   sync.Mutex           // guards gold and lru
	gold map[goldKey]*goldRun // cached and in-flight gold runs
	lru  *goldLRU             // the cached ones, by recent use
}

// New returns a Judge configured by cfg.
func New(cfg Config) *Judge {
	return &Judge{cfg: cfg.withDefaults(), gold: map[goldKey]*goldRun{}, lru: newGoldLRU()}
}

// Verdict is how a submission scored.
type Verdict struct {
	// Outcome is correct, mismatch, pred_error, pred_timeout, gold_error
	// or gold_timeout (schemas.Outcome*).
	Outcome string
	// Pred is the prediction's result; nil when it failed or was not run
	// (a broken gold is found first, and the prediction is then not run).
	Pred *env.ResultSet
	// PredErr is why the prediction failed.
	PredErr *env.QueryError
	// GoldErr is why the gold failed: a *env.QueryError, or
	// ErrGoldTooLarge.
	GoldErr error
	// GoldEmpty is set when the gold result has no rows.
	GoldEmpty bool
	// ColumnJaccard is the overlap of the columns the prediction read with
	// those the gold read (0 for tasks given as rows); Efficiency is the
	// R-VES bucket, measured on correct answers when the spec pays for it,
	// else 0.
	ColumnJaccard, Efficiency float64
	// TableJaccard is the overlap of the tables the prediction read with
	// those the gold read (0 for tasks given as rows).
	TableJaccard float64
	// NoTableRead is set when the prediction ran and read no table of the
	// database while the gold read one (a task given as rows counts as
	// reading one): SELECT 4 when the answer is 4.
	NoTableRead bool
	// PredElapsed and GoldElapsed are the statements' run times (the
	// gold's from the run that filled the cache).
	PredElapsed, GoldElapsed time.Duration
	// ExecOutcome is the outcome on the task's database alone: the
	// single-database verdict, which Outcome is unless a database of the
	// task's suite told the prediction apart.
	ExecOutcome string
	// Suite says what the task's test suite found; zero when the suite
	// was not consulted.
	Suite SuiteVerdict
	// Ties is how the judge judged ties (Config.Ties); GoldTies is set
	// when the gold had more than one right answer on the task's
	// database.
	Ties     Ties
	GoldTies bool
}

// Info is the verdict as a step's info and record tell the trainer how
// the submission was judged.
func (v Verdict) Info() *schemas.JudgeInfo {
	info := &schemas.JudgeInfo{Mode: schemas.JudgeExec, Ties: string(v.Ties), ExecOutcome: v.ExecOutcome, GoldTies: v.GoldTies}
	if s := v.Suite; s.Databases > 0 {
		info.Mode, info.SuiteDatabases, info.SuiteJudged = schemas.JudgeSuite, s.Databases, s.Judged
		info.ToldApartBy, info.Reason, info.GoldFailed = s.ToldApartBy, s.Reason, s.GoldFailed
	}
	return info
}

// Final is what the reward ledger needs to pay the verdict.
func (v Verdict) Final() reward.Final {
	return reward.Final{
		Outcome:       v.Outcome,
		Executed:      v.Pred != nil,
		ColumnJaccard: v.ColumnJaccard,
		Efficiency:    v.Efficiency,
		GoldEmpty:     v.GoldEmpty,
		TableJaccard:  v.TableJaccard,
		NonEmpty:      v.Pred != nil && len(v.Pred.Rows) > 0,
		NoTableRead:   v.NoTableRead,
	}
}

// Judge runs predSQL on db and compares it with the task's gold (GoldSQL,
// or GoldRows when GoldSQL is empty, or when GoldSQL fails on db and the
// task has both) under spec. dbKey names the database
// for the gold cache (e.g. "spider-dev/concert_singer"). In the spider and
// tolerant modes without keep_distinct, every DISTINCT is removed from
// both queries before they run, as the Spider evaluator does; row order
// counts when the gold SQL (as written) says ORDER BY. A prediction
// correct on db is then judged on every database of the task's suite,
// when Config.Suites gives one.
func (j *Judge) Judge(ctx context.Context, db env.DB, dbKey string, task *env.Task, predSQL string, spec schemas.RewardSpec) (Verdict, error) {
	q := newQuery(task, predSQL, spec)
	q.plan = j.planPred(q.pred, q.ordered)
	v, err := j.onTaskDB(ctx, db, dbKey, task, q, spec)
	v.ExecOutcome, v.Ties = v.Outcome, j.cfg.Ties
	if err != nil || v.Outcome != schemas.OutcomeCorrect {
		return v, err
	}
	if err := j.onSuite(ctx, task, q, spec, &v); err != nil {
		return v, err
	}
	if v.Outcome == schemas.OutcomeCorrect && spec.Final.Efficiency != 0 && task.GoldSQL != "" {
		if v.Efficiency, err = j.efficiency(ctx, db, q.pred, q.gold); err != nil {
			return v, err
		}
	}
	return v, nil
}

// query is a submission and its gold as they run: DISTINCT removed where
// the spec says, whether row order counts, and how the prediction runs.
type query struct {
	pred, gold string
	ordered    bool
	plan       predPlan
}

func newQuery(task *env.Task, predSQL string, spec schemas.RewardSpec) query {
	q := query{pred: predSQL, gold: task.GoldSQL, ordered: task.GoldSQL != "" && sqltext.HasOrderBy(task.GoldSQL)}
	if spec.Match != schemas.MatchBird && !spec.KeepDistinct {
		q.pred, q.gold = stripDistinct(q.pred), stripDistinct(q.gold)
	}
	return q
}

// onTaskDB judges the submission on the task's own database.
func (j *Judge) onTaskDB(ctx context.Context, db env.DB, dbKey string, task *env.Task, q query, spec schemas.RewardSpec) (Verdict, error) {
	gold, match, v, err := j.goldResult(ctx, db, dbKey, task, q.gold)
	if err != nil || v.Outcome != "" {
		return v, err
	}
	v.GoldEmpty = len(gold.Rows) == 0
	v.GoldElapsed = gold.Elapsed
	v.GoldTies = match.answer != nil
	pred, err := j.runPred(ctx, db, q.pred, q.plan, j.limits(j.cfg.PredTimeout))
	if err != nil {
		return j.predFailed(ctx, v, err)
	}
	v.Pred, v.PredElapsed = pred, pred.Elapsed
	v.NoTableRead = len(pred.ReadTables) == 0 && (task.GoldSQL == "" || len(gold.ReadTables) > 0)
	if task.GoldSQL != "" {
		v.ColumnJaccard = reward.ColumnJaccard(pred.ReadColumns, gold.ReadColumns)
		v.TableJaccard = reward.TableJaccard(pred.ReadTables, gold.ReadTables)
	}
	// A cut prediction cannot be compared as if whole; the gold was not cut.
	if pred.Truncated || !match.matches(spec, pred.Rows, q.ordered) {
		v.Outcome = schemas.OutcomeMismatch
		return v, nil
	}
	v.Outcome = schemas.OutcomeCorrect
	return v, nil
}

// goldResult returns the gold's result and its rows prepared for
// matching (shared by the judgements of a cached gold), or a verdict
// already decided by a broken gold.
func (j *Judge) goldResult(ctx context.Context, db env.DB, dbKey string, task *env.Task, goldSQL string) (*env.ResultSet, *goldMatch, Verdict, error) {
	if task.GoldSQL == "" {
		return &env.ResultSet{Rows: task.GoldRows}, j.rowsMatch(task), Verdict{}, nil
	}
	run, err := j.runGold(ctx, db, goldKey{db: dbKey, sql: goldSQL})
	var qe *env.QueryError
	switch {
	case err == nil:
		return run.rs, run.match, Verdict{}, nil
	case task.GoldRows != nil && ctx.Err() == nil && (errors.Is(err, ErrGoldTooLarge) || errors.As(err, &qe)):
		// The answer rows stand in for a gold SQL the engine cannot run.
		return &env.ResultSet{Rows: task.GoldRows}, j.rowsMatch(task), Verdict{}, nil
	case errors.Is(err, ErrGoldTooLarge):
		return nil, nil, Verdict{Outcome: schemas.OutcomeGoldError, GoldErr: err}, nil
	case errors.As(err, &qe) && ctx.Err() == nil:
		outcome := schemas.OutcomeGoldError
		if errors.Is(qe, env.ErrTimeout) {
			outcome = schemas.OutcomeGoldTimeout
		}
		return nil, nil, Verdict{Outcome: outcome, GoldErr: qe}, nil
	}
	return nil, nil, Verdict{}, fmt.Errorf("judge: run gold of %s: %w", task.ID, err)
}

// predFailed turns the prediction's failure into the verdict, or into a
// server error when it was not the prediction's fault.
func (j *Judge) predFailed(ctx context.Context, v Verdict, err error) (Verdict, error) {
	var qe *env.QueryError
	if !errors.As(err, &qe) || ctx.Err() != nil {
		return v, fmt.Errorf("judge: run prediction: %w", err)
	}
	v.PredErr = qe
	v.Outcome = schemas.OutcomePredError
	if errors.Is(qe, env.ErrTimeout) {
		v.Outcome = schemas.OutcomePredTimeout
	}
	return v, nil
}

// SubmitLimits are the limits the judge runs a submission under: its
// PredTimeout, its bounds on rows and bytes, the tables and columns read
// noted. A caller that runs statements as the judge runs a submission
// (bench's baseline) takes them from here.
func (j *Judge) SubmitLimits() env.Limits { return j.limits(j.cfg.PredTimeout) }

// limits are the scoring limits: no cell is cut, rows and bytes are
// bounded so that a cut result shows as Truncated.
func (j *Judge) limits(timeout time.Duration) env.Limits {
	return env.Limits{Timeout: timeout, MaxRows: j.cfg.MaxRows, MaxResultBytes: j.cfg.MaxResultBytes,
		Reads: true} // the tables and columns read: column_jaccard, table_jaccard, requires_table_read
}

// stripDistinct is sqltext.StripDistinct, skipping the lexer when the
// word cannot be there.
func stripDistinct(sql string) string {
	for i := 0; i+len("distinct") <= len(sql); i++ {
		if strings.EqualFold(sql[i:i+len("distinct")], "distinct") {
			return sqltext.StripDistinct(sql)
		}
	}
	return sql
}
