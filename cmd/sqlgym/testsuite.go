package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/internal/app/suitegen"
	"github.com/sqlgym/sqlgym/reward/testsuite"
)

// testsuiteVerbs are the verbs of sqlgym testsuite.
const testsuiteVerbs = `usage: sqlgym testsuite VERB [flags]

verbs:
  build     make the test suites of each --dataset (SQLite): for every gold, the
            generated databases that tell it apart from its neighbour queries;
            databases whose suites are current are kept as they are
  status    say which databases of each --dataset have a current test suite
`

// runTestsuite runs a verb on the test suites.
func runTestsuite(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, testsuiteVerbs)
		return usageError{"testsuite: no verb given: want build or status"}
	}
	switch args[0] {
	case "build":
		return runTestsuiteBuild(ctx, args[1:], stdout, stderr)
	case "status":
		return runTestsuiteStatus(ctx, args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stderr, testsuiteVerbs)
		return flag.ErrHelp
	}
	fmt.Fprint(stderr, testsuiteVerbs)
	return usageError{fmt.Sprintf("unknown testsuite verb %q: want build or status", args[0])}
}

// suiteFlags are the flags of sqlgym testsuite build and status.
type suiteFlags struct {
	datasets listFlag
	dataDir  string
	dir      string
	engine   engineFlags
	build    suitegen.Config
	timeout  time.Duration
	report   string
}

func (f *suiteFlags) register(fs *flag.FlagSet, build bool) {
	fs.Var(&f.datasets, "dataset", "dataset whose suites to make, `[NAME=]FORMAT:PATH` as for serve (repeatable; required)")
	fs.StringVar(&f.dataDir, "data-dir", defaultDataDir, "the data folder serve uses; the suites go under DATA-DIR/testsuites")
	fs.StringVar(&f.dir, "testsuite-dir", "", "where test suites are kept (empty: DATA-DIR/testsuites)")
	f.engine.register(fs)
	if !build {
		return
	}
	fs.Uint64Var(&f.build.Seed, "seed", 1, "where every random draw starts: the same seed and inputs make the same suites")
	fs.IntVar(&f.build.Candidates, "candidates", suitegen.DefaultCandidates, "databases generated per database to choose each gold's suite from")
	fs.IntVar(&f.build.HeldOut, "held-out", 0, "databases generated apart from the candidates to measure the suites by (0: none; the build report then has no coverage figure)")
	fs.IntVar(&f.build.MaxNeighbours, "max-neighbours", suitegen.DefaultMaxNeighbours, "neighbour queries kept per gold")
	fs.DurationVar(&f.timeout, "query-timeout", suitegen.DefaultTimeout, "time limit of each query of the build; one that runs over tells nothing apart")
	fs.IntVar(&f.build.Workers, "workers", runtime.GOMAXPROCS(0), "databases built at once")
	fs.StringVar(&f.report, "report", "", "write the build report (per database and per task) to this JSON `file`")
}

// load checks the flags and loads the datasets.
func (f *suiteFlags) load(verb string) ([]*env.Dataset, error) {
	if len(f.datasets.values) == 0 {
		return nil, usageError{"testsuite " + verb + ": --dataset is required"}
	}
	if f.build.Candidates < 1 || f.build.MaxNeighbours < 1 || f.build.Workers < 1 || f.build.HeldOut < 0 || f.timeout <= 0 {
		return nil, usageError{"testsuite " + verb + ": --candidates, --max-neighbours and --workers must be at least 1, --held-out not negative, --query-timeout positive"}
	}
	if err := f.engine.parse(); err != nil {
		return nil, err
	}
	var out []*env.Dataset
	for _, v := range f.datasets.values {
		ds, err := loadDataset(v, &f.engine, datasets.Load)
		if err != nil {
			return nil, err
		}
		out = append(out, ds)
	}
	return out, nil
}

// root is the suites' folder.
func (f *suiteFlags) root() string {
	j := judgeFlags{dir: f.dir}
	return j.root(f.dataDir)
}

func runTestsuiteBuild(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("testsuite build", stderr)
	f := suiteFlags{}
	f.register(fs, true)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	dss, err := f.load("build")
	if err != nil {
		return err
	}
	f.build.Timeout = f.timeout
	var reports []*suitegen.Report
	for _, ds := range dss {
		rep, err := f.buildOne(ctx, ds, stderr)
		if err != nil {
			return err
		}
		rep.WriteSummary(stdout, f.root())
		reports = append(reports, rep)
	}
	if f.report != "" {
		return writeFile(f.report, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(reports)
		})
	}
	return nil
}

// buildOne builds ds's suites, telling stderr of each database as it is
// done.
func (f *suiteFlags) buildOne(ctx context.Context, ds *env.Dataset, stderr io.Writer) (*suitegen.Report, error) {
	cfg := f.build
	dbs, done := len(testsuite.Golds(ds)), 0
	cfg.Progress = func(dataset string, r suitegen.DBReport) {
		done++
		fmt.Fprintf(stderr, "testsuite build: %s %d/%d %s: %d golds, %s\n", dataset, done, dbs, r.DBID, r.Golds, r.Done())
	}
	rep, err := suitegen.Build(ctx, ds, f.root(), cfg)
	if err != nil {
		return nil, fmt.Errorf("testsuite build: %w", err)
	}
	return rep, nil
}

func runTestsuiteStatus(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("testsuite status", stderr)
	f := suiteFlags{}
	f.register(fs, false)
	f.build = suitegen.Config{Candidates: 1, MaxNeighbours: 1, Workers: 1}
	f.timeout = time.Second
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	dss, err := f.load("status")
	if err != nil {
		return err
	}
	catalog := f.engine.catalog(0)
	defer catalog.Close()
	store, err := testsuite.Open(ctx, f.root(), dss, catalog)
	if err != nil {
		return fmt.Errorf("testsuite status: %w", err)
	}
	testsuite.WriteStatus(stdout, store.Status())
	return nil
}
