package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// RescoreConfig configures a Rescorer. Datasets, Catalog and Judge are
// needed only for submissions that must be judged again; without them
// such an episode cannot be rescored.
type RescoreConfig struct {
	Spec     schemas.RewardSpec // the spec to pay under
	Datasets []*env.Dataset
	Catalog  *env.Catalog
	Judge    *judge.Judge
	// Rejudge judges every submission again, with Judge's suites and tie
	// rule, and not only those whose facts the record cannot tell under
	// Spec: a log recorded before test suites is judged by them so.
	Rejudge bool
}

// Rescorer pays recorded episodes under another spec. It is safe for
// concurrent use.
type Rescorer struct {
	cfg      RescoreConfig
	datasets map[string]*env.Dataset // by name; read-only after NewRescorer
}

// NewRescorer returns a Rescorer for cfg.
func NewRescorer(cfg RescoreConfig) *Rescorer {
	r := &Rescorer{cfg: cfg, datasets: map[string]*env.Dataset{}}
	for _, ds := range cfg.Datasets {
		r.datasets[ds.Name] = ds
	}
	return r
}

// Rescored is one episode paid again.
type Rescored struct {
	Record   *trajlog.Record // the episode under the new spec
	Rejudged bool            // its submission was judged again
}

// Episode pays rec again under the new spec: each step's turn component
// by the kind of turn it was, the final components from the recorded
// facts or from judging the submission again. Observations are kept as
// recorded: they are what the model saw.
func (r *Rescorer) Episode(ctx context.Context, rec *trajlog.Record) (*Rescored, error) {
	out := *rec
	out.Steps = make([]schemas.StepRecord, len(rec.Steps))
	copy(out.Steps, rec.Steps)
	out.RewardSpec, out.RewardSpecHash = r.cfg.Spec, reward.Hash(r.cfg.Spec)
	ledger := reward.NewLedger(r.cfg.Spec)
	res := &Rescored{Record: &out}
	tokens := 0 // completion tokens reported so far
	for i := range out.Steps {
		st := &out.Steps[i]
		tokens = reward.AddTokens(tokens, st.Usage)
		var fin *reward.Final
		if st.Outcome != "" {
			f, judged, err := r.final(ctx, rec, st)
			if err != nil {
				return nil, fmt.Errorf("rescore %s: %w", rec.EpisodeID, err)
			}
			f.CompletionTokens = tokens
			fin, res.Rejudged = &f, res.Rejudged || judged
			st.Outcome = f.Outcome
		}
		if err := payStep(ledger, st, fin); err != nil {
			return nil, fmt.Errorf("rescore %s: %w", rec.EpisodeID, err)
		}
		if fin != nil {
			out.Outcome = fin.Outcome
		}
	}
	if rec.CloseComponents != nil {
		out.CloseComponents, _ = ledger.Step(reward.TurnNone, &reward.Final{Outcome: rec.Outcome, CompletionTokens: tokens})
	}
	out.TotalReward, out.FinalReward = ledger.Total(), ledger.Final()
	return res, nil
}

// payStep pays a step again as the server paid it: a step that recorded
// its calls pays each call that ran its own turn component, in order, and
// the final components (fin) with the last of them; any other step pays
// one turn component and fin.
func payStep(ledger *reward.Ledger, st *schemas.StepRecord, fin *reward.Final) error {
	if len(st.Calls) == 0 {
		kind, err := turnKind(st)
		if err != nil {
			return err
		}
		st.RewardComponents, st.Reward = ledger.Step(kind, fin)
		return nil
	}
	calls := slices.Clone(st.Calls)
	last := -1
	for i := range calls {
		if ran(&calls[i]) {
			last = i
		}
	}
	comps, sum := map[string]float64{}, 0.0
	for i := range calls {
		c := &calls[i]
		if !ran(c) {
			continue
		}
		kind, err := turnKind(&schemas.StepRecord{Turn: st.Turn, RewardComponents: c.RewardComponents})
		if err != nil {
			return fmt.Errorf("%w (call %s)", err, c.ID)
		}
		var f *reward.Final
		if i == last {
			f = fin
		}
		var r float64
		c.RewardComponents, r = ledger.Step(kind, f)
		for k, v := range c.RewardComponents {
			comps[k] += v
		}
		sum += r
	}
	if len(calls) == 1 {
		comps = calls[0].RewardComponents // the server's one map, as it sent it
	}
	st.Calls, st.RewardComponents, st.Reward = calls, comps, sum
	return nil
}

// ran reports whether a recorded call ran: every call but those answered
// as not run (after a submit, or past the server's bound).
func ran(c *schemas.CallRecord) bool { return c.Error == nil || c.Error.Code != schemas.ErrCodeNotRun }

// final is the final facts of a step that ended the episode: read from
// the record, or from judging the submission again when the new spec
// needs what the record cannot tell.
func (r *Rescorer) final(ctx context.Context, rec *trajlog.Record, st *schemas.StepRecord) (reward.Final, bool, error) {
	f := recordedFacts(rec.RewardSpec, st, st.Outcome)
	if !submitOutcome(st.Outcome) || !r.cfg.Rejudge && !needsJudge(rec.RewardSpec, r.cfg.Spec, f) {
		return f.Final, false, nil
	}
	v, err := r.judge(ctx, rec.Task.TaskID, st)
	if err != nil {
		return reward.Final{}, false, err
	}
	st.Judge = v.Info()
	return v.Final(), true, nil
}

// MissingDatasetError is why an episode cannot be rescored when its
// submissions must be judged again on a dataset that is not loaded. Run
// stops at the first one.
type MissingDatasetError struct {
	Dataset string
}

func (e *MissingDatasetError) Error() string {
	return fmt.Sprintf("dataset %q is not loaded (pass it with --dataset)", e.Dataset)
}

// judge runs the step's submission against its task's gold under the new
// spec.
func (r *Rescorer) judge(ctx context.Context, taskID string, st *schemas.StepRecord) (judge.Verdict, error) {
	name, _, _ := strings.Cut(taskID, "/")
	ds, ok := r.datasets[name]
	if !ok || r.cfg.Judge == nil || r.cfg.Catalog == nil {
		return judge.Verdict{}, fmt.Errorf("judge step %d again: %w", st.Turn, &MissingDatasetError{Dataset: name})
	}
	task, ok := ds.Task(taskID)
	if !ok {
		return judge.Verdict{}, fmt.Errorf("judge step %d again: no task %q in dataset %q", st.Turn, taskID, name)
	}
	var args tools.SubmitArgs
	if err := json.Unmarshal(st.Arguments, &args); err != nil || st.Tool != schemas.ToolSubmit {
		return judge.Verdict{}, fmt.Errorf("judge step %d again: it holds no submitted SQL", st.Turn)
	}
	db, err := r.cfg.Catalog.DB(ctx, ds, task.DBID)
	if err != nil {
		return judge.Verdict{}, fmt.Errorf("judge step %d again: %w", st.Turn, err)
	}
	v, err := r.cfg.Judge.Judge(ctx, db, ds.DBKey(task.DBID), task, args.SQL, r.cfg.Spec)
	if err != nil {
		return judge.Verdict{}, fmt.Errorf("judge step %d again: %w", st.Turn, err)
	}
	return v, nil
}

// Run rescores every episode of rd that passes f and calls fn with each
// rescored one. An episode that cannot be rescored is counted in the
// report with why, and skipped, except for a *MissingDatasetError, which
// ends the run with that error.
func (r *Rescorer) Run(ctx context.Context, rd trajlog.Reader, f trajlog.Filter, fn func(*Rescored) error) (*RescoreReport, error) {
	rep := newRescoreReport()
	err := rd.Episodes(ctx, f, func(rec *trajlog.Record) error {
		after, err := r.Episode(ctx, rec)
		if err != nil {
			var missing *MissingDatasetError
			if ctx.Err() != nil {
				return ctx.Err()
			} else if errors.As(err, &missing) {
				return err // every episode of that dataset would fail alike: one error, not one line each
			}
			rep.Unscorable = append(rep.Unscorable, err.Error())
			return nil
		}
		rep.add(&Rescored{Record: rec}, after)
		return fn(after)
	})
	return rep, err
}
