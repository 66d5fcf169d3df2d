package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym/base/progress"
	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/examples/rewards"
	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/reward/evaluate"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
)

// evalFlags are the flags of sqlgym eval; those it shares with serve have
// serve's names and meanings.
type evalFlags struct {
	dataset       string
	predictions   string
	match         string
	workers       int
	out           string
	rewardFile    string
	goldTimeout   time.Duration
	submitTimeout time.Duration
	maxLineBytes  int
	tasks         string
	limit         int
	engine        engineFlags
	judging       judgeFlags
	dataDir       string
}

func (f *evalFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.dataset, "dataset", "", "dataset the predictions answer, `[NAME=]FORMAT:PATH` with FORMAT spider, bird or jsonl (required)")
	fs.StringVar(&f.predictions, "predictions", "", "predictions `FILE`: one SQL per line (optionally SQL<TAB>db_id), or BIRD JSON {\"0\": \"SQL\\t----- bird -----\\tdb_id\"} (required)")
	fs.StringVar(&f.match, "match", "", "match mode: bird, spider or tolerant (default: a --reward spec file's match, else the dataset's benchmark: spider for a spider dataset, bird for a bird one; a jsonl dataset: the reward spec's, bird)")
	fs.StringVar(&f.tasks, "tasks", "", "score only these tasks, `ID,ID,...` as tasks.list names them (the predictions file: one per task of the dataset, or one per task scored, in dataset order)")
	fs.IntVar(&f.limit, "limit", 0, "score only the first N tasks (of --tasks, if given; 0: all)")
	fs.IntVar(&f.workers, "workers", runtime.GOMAXPROCS(0), "predictions judged at once")
	fs.StringVar(&f.out, "out", "", "write one verdict per prediction to this JSONL `file`")
	fs.StringVar(&f.rewardFile, "reward", "", "reward spec: a preset `name` (default, binary, retoolsql, arctic-text2sql-r1) or a spec file (JSON, merged over the defaults): the match mode and the reward of each verdict")
	fs.DurationVar(&f.goldTimeout, "gold-timeout", judge.DefaultTimeout, "time limit of a gold query, timed apart from the prediction")
	fs.DurationVar(&f.submitTimeout, "submit-timeout", judge.DefaultTimeout, "time limit of a predicted query")
	bytesVar(fs, &f.maxLineBytes, "max-line-bytes", evaluate.DefaultMaxLineBytes, "longest line of a predictions file (a BIRD file: longest key or value); a longer one is refused where it is met")
	f.engine.register(fs)
	f.judging.register(fs, judge.TiesAny)
	fs.StringVar(&f.dataDir, "data-dir", defaultDataDir, "the data folder serve uses, where the test suites are (DATA-DIR/testsuites)")
}

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval", stderr)
	var f evalFlags
	f.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case f.dataset == "" || f.predictions == "":
		return usageError{"eval: --dataset and --predictions are required"}
	case f.goldTimeout <= 0 || f.submitTimeout <= 0:
		return usageError{"eval: --gold-timeout and --submit-timeout must be positive"}
	case f.workers < 1:
		return usageError{"eval: --workers must be at least 1"}
	case f.maxLineBytes < 1:
		return usageError{"eval: --max-line-bytes must be at least 1"}
	case f.limit < 0:
		return usageError{"eval: --limit must be 0 (all tasks) or more"}
	}
	if err := f.engine.parse(); err != nil {
		return err
	}
	if err := f.judging.parse(); err != nil {
		return err
	}
	spec, err := f.spec()
	if err != nil {
		return err
	}
	ds, err := loadDataset(f.dataset, &f.engine, datasets.Load)
	if err != nil {
		return err
	}
	rule, err := f.matchRule(&spec)
	if err != nil {
		return err
	}
	preds, format, err := readPredictions(&f, ds)
	if err != nil {
		return err
	}
	items, err := evaluate.AlignSelected(ds, preds, f.selection())
	if err != nil {
		return fmt.Errorf("%s (%s format): %w%s", f.predictions, format, err, f.alignHint(ds, preds))
	}
	return evalItems(ctx, &f, ds, items, spec, rule, stdout, stderr)
}

// spec is the reward spec of --reward with --match laid over it.
func (f *evalFlags) spec() (schemas.RewardSpec, error) {
	spec := schemas.DefaultRewardSpec()
	if f.rewardFile != "" {
		var err error
		if spec, err = rewards.Load(f.rewardFile); err != nil {
			return spec, fmt.Errorf("--reward: %w", err)
		}
	}
	if f.match != "" {
		spec.Match = strings.ToLower(f.match)
		if err := reward.Validate(spec); err != nil {
			return spec, usageError{fmt.Sprintf("--match: %v", err)}
		}
	}
	return spec, nil
}

// readPredictions reads --predictions within --max-line-bytes, and no
// more predictions than the dataset has tasks.
func readPredictions(f *evalFlags, ds *env.Dataset) ([]evaluate.Prediction, string, error) {
	preds, format, err := evaluate.ReadPredictions(f.predictions,
		evaluate.ReadLimits{MaxLineBytes: f.maxLineBytes, MaxPredictions: len(ds.Tasks)})
	var tl *evaluate.LineTooLongError
	switch {
	case errors.As(err, &tl):
		return nil, format, fmt.Errorf("%w (--max-line-bytes): one prediction is one line; is this a predictions file?", err)
	case errors.Is(err, evaluate.ErrTooManyPredictions):
		return nil, format, fmt.Errorf("%w, but %s has %d tasks: want one prediction per task, in dataset order", err, ds.Name, len(ds.Tasks))
	}
	return preds, format, err
}

// loadDataset loads the one dataset of a --dataset flag with load, or
// on the server --engine names for it.
func loadDataset(v string, e *engineFlags, load func(datasets.Source) (*env.Dataset, error)) (*env.Dataset, error) {
	src, err := datasets.ParseSource(v)
	if err != nil {
		return nil, usageError{fmt.Sprintf("--dataset %q: %v", v, err)}
	}
	ds, err := e.load(src, load)
	if err != nil {
		return nil, fmt.Errorf("--dataset %q: %w", v, err)
	}
	return ds, e.checkUsed([]*env.Dataset{ds})
}

// evalItems judges the items, writes --out and prints the summary.
func evalItems(ctx context.Context, f *evalFlags, ds *env.Dataset, items []evaluate.Item, spec schemas.RewardSpec, rule string, stdout, stderr io.Writer) error {
	catalog := f.engine.catalog(0)
	defer catalog.Close()
	suite, said, err := f.suiteJudge(ctx, ds, catalog)
	if err != nil {
		return err
	}
	bar := progress.NewBar(stderr, isTerminal(stderr), "eval")
	start := time.Now()
	recs, err := evaluate.Evaluate(ctx, ds, items, evaluate.Config{
		Catalog: catalog, Spec: spec, Workers: f.workers, Progress: bar.Update,
		Judge: judge.New(judge.Config{PredTimeout: f.submitTimeout, GoldTimeout: f.goldTimeout}), Suite: suite,
	})
	bar.Finish()
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	if f.out != "" {
		if err := evaluate.WriteRecordsFile(f.out, recs); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "%s: %d predictions%s, match %s (%s), %d workers, %s\n",
		ds.Name, len(recs), f.subsetNote(ds), spec.Match, rule, f.workers, elapsed.Round(time.Millisecond))
	fmt.Fprintf(stdout, "EX: on each task's database, as the official evaluators judge; TS: %s\n", said)
	if f.out != "" {
		fmt.Fprintf(stdout, "verdicts: %s\n", f.out)
	}
	fmt.Fprintln(stdout)
	return evaluate.Summarize(recs).WriteText(stdout)
}

// suiteJudge is the judge of the TS figure, nil under --judge exec or
// when there are no suites, and what TS is judged on, in words.
func (f *evalFlags) suiteJudge(ctx context.Context, ds *env.Dataset, catalog *env.Catalog) (*judge.Judge, string, error) {
	suites, said, err := f.judging.suites(ctx, f.dataDir, []*env.Dataset{ds}, catalog, []string{f.dataset})
	if err != nil || suites == nil {
		return nil, "none (" + said + ")", err
	}
	return judge.New(judge.Config{PredTimeout: f.submitTimeout, GoldTimeout: f.goldTimeout,
		Suites: suites, Ties: judge.Ties(f.judging.ties)}), said + "; ties: " + f.judging.ties, nil
}
