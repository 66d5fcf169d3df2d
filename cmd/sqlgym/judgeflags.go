package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/reward/testsuite"
)

// How --judge chooses what a submission is judged on.
const (
	judgeAuto  = "auto"  // the test suites where a dataset has them, else the task's database
	judgeSuite = "suite" // the test suites, required for every dataset
	judgeExec  = "exec"  // the task's database alone
)

// judgeFlags are the flags that say how submissions are judged: on test
// suites or on one database, and how ties are judged.
type judgeFlags struct {
	mode string
	ties string
	dir  string
}

// register registers --judge, --ties (defaulting to ties) and
// --testsuite-dir.
func (j *judgeFlags) register(fs *flag.FlagSet, ties judge.Ties) {
	fs.StringVar(&j.mode, "judge", judgeAuto, "what a submission is judged on: auto (a dataset's test suites where `sqlgym testsuite build` made them, else the task's database), suite (the test suites, required), exec (the task's database alone)")
	fs.StringVar(&j.ties, "ties", string(ties), "how a gold whose ORDER BY leaves ties is judged: any (every result it could rightly return is right, whatever order the engine breaks ties in) or official (the rows the engine returned, as the official evaluators compare them)")
	fs.StringVar(&j.dir, "testsuite-dir", "", "where test suites are kept (empty: DATA-DIR/testsuites)")
}

// parse checks the flags' values.
func (j *judgeFlags) parse() error {
	switch j.mode {
	case judgeAuto, judgeSuite, judgeExec:
	default:
		return usageError{fmt.Sprintf("--judge %q: want auto, suite or exec", j.mode)}
	}
	switch judge.Ties(j.ties) {
	case judge.TiesAny, judge.TiesOfficial:
	default:
		return usageError{fmt.Sprintf("--ties %q: want any or official", j.ties)}
	}
	return nil
}

// root is the folder of the test suites under dataDir.
func (j *judgeFlags) root(dataDir string) string {
	if j.dir != "" {
		return j.dir
	}
	return filepath.Join(dataDir, "testsuites")
}

// suites opens the test suites of datasets as --judge asks: nil under
// exec, or when auto finds none. It also returns what it found, in words
// for the startup banner and the log.
func (j *judgeFlags) suites(ctx context.Context, dataDir string, dss []*env.Dataset, catalog *env.Catalog, datasetArgs []string) (judge.Suites, string, error) {
	if j.mode == judgeExec {
		return nil, "on each task's database alone (--judge exec)", nil
	}
	root := j.root(dataDir)
	if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) && j.mode == judgeAuto {
		return nil, "on each task's database alone: no test suites in " + root + " (" + buildHint(datasetArgs, j.dir, dataDir) + ")", nil
	}
	store, err := testsuite.Open(ctx, root, dss, catalog)
	if err != nil {
		return nil, "", fmt.Errorf("test suites: %w", err)
	}
	said, covered, missing := testsuite.Describe(store.Status())
	switch {
	case missing != "" && j.mode == judgeSuite:
		return nil, "", usageError{fmt.Sprintf("--judge suite: %s in %s: %s", missing, root, buildHint(datasetArgs, j.dir, dataDir))}
	case covered == 0:
		return nil, "on each task's database alone: " + said + " (" + buildHint(datasetArgs, j.dir, dataDir) + ")", nil
	}
	return store, "on test suites: " + said, nil
}

// buildHint is the command that builds the suites of the --dataset
// values given, where this command looks for them.
func buildHint(datasetArgs []string, dir, dataDir string) string {
	cmd := "sqlgym testsuite build"
	if len(datasetArgs) == 0 {
		cmd += " --dataset NAME=FORMAT:PATH"
	}
	for _, v := range datasetArgs {
		cmd += " --dataset " + v
	}
	switch {
	case dir != "":
		cmd += " --testsuite-dir " + dir
	case dataDir != defaultDataDir:
		cmd += " --data-dir " + dataDir
	}
	return cmd + " makes them"
}
