package suitegen

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
)

// BenchmarkJudgeSuite measures what judging on test suites costs a
// submit, on all of Spider-dev with its suites built as `sqlgym testsuite
// build` builds them (seed 1, defaults). Each op submits the gold of the
// next task that has a suite, respelled so that its text is not the
// gold's, and judges it twice, one right after the other: on the task's
// database alone, then on the database and the task's suite. The golds
// are cached first, on every database, as in a server that has judged
// each task once. It reports each way's median and 99th percentile per
// submit and their ratios (suite over database alone), with the SQLite
// engine keeping its default number of databases open (256: fewer than
// Spider-dev's 19 and its suites' 251) and keeping them all open.
func BenchmarkJudgeSuite(b *testing.B) {
	ds := spider(b)
	root := b.TempDir()
	rep, err := Build(context.Background(), ds, root, Config{Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	all := len(ds.DBs) + rep.Totals.Files
	for _, open := range []int{sqlite.DefaultMaxOpenDBs, all} {
		b.Run(fmt.Sprintf("open=%d", open), func(b *testing.B) {
			benchSubmits(b, newSuiteJudgingWith(b, root, ds, sqlite.Config{MaxOpenDBs: open}))
		})
	}
}

// benchSubmits times the submits of BenchmarkJudgeSuite through s: on the
// task's database alone, then on its suite too.
func benchSubmits(b *testing.B, s *suiteJudging) {
	exec := &suiteJudging{ds: s.ds, cat: s.cat, judge: judge.New(judge.Config{Ties: judge.TiesAny})}
	tasks := suiteTasks(b, s)
	for _, task := range tasks {
		timeSubmit(b, exec, task, 0)
		timeSubmit(b, s, task, 1)
	}
	var onDB, onSuite []time.Duration
	for i := 0; b.Loop(); i++ {
		task := tasks[i%len(tasks)]
		onDB = append(onDB, timeSubmit(b, exec, task, 0))
		onSuite = append(onSuite, timeSubmit(b, s, task, 1))
	}
	reportPercentiles(b, onDB, onSuite)
}

// suiteTasks are the tasks of s whose gold has a suite.
func suiteTasks(b *testing.B, s *suiteJudging) []*env.Task {
	var out []*env.Task
	for i := range s.ds.Tasks {
		t := &s.ds.Tasks[i]
		dbs, err := s.store.Suite(context.Background(), t)
		if err != nil {
			b.Fatal(err)
		}
		if len(dbs) > 0 {
			out = append(out, t)
		}
	}
	return out
}

// timeSubmit judges task's gold, respelled, as a submit under bird and
// returns how long the judge took; it fails unless the submit is correct
// and judged on want suite databases or more.
func timeSubmit(b *testing.B, s *suiteJudging, task *env.Task, want int) time.Duration {
	start := time.Now()
	v, err := s.verdict(context.Background(), task, "\n"+task.GoldSQL, schemas.RewardSpec{Match: schemas.MatchBird})
	d := time.Since(start)
	if err != nil || v.Outcome != schemas.OutcomeCorrect || v.Suite.Judged < want {
		b.Fatalf("%s: %s, suite %+v, %v", task.ID, v.Outcome, v.Suite, err)
	}
	return d
}

// reportPercentiles reports the median and 99th percentile of each way
// and their ratios.
func reportPercentiles(b *testing.B, onDB, onSuite []time.Duration) {
	p := func(ds []time.Duration, q int) float64 {
		s := slices.Sorted(slices.Values(ds))
		return float64(s[min(len(s)-1, len(s)*q/100)].Nanoseconds()) / 1e3
	}
	b.ReportMetric(p(onDB, 50), "db-p50-µs")
	b.ReportMetric(p(onDB, 99), "db-p99-µs")
	b.ReportMetric(p(onSuite, 50), "suite-p50-µs")
	b.ReportMetric(p(onSuite, 99), "suite-p99-µs")
	b.ReportMetric(p(onSuite, 50)/p(onDB, 50), "p50-ratio")
	b.ReportMetric(p(onSuite, 99)/p(onDB, 99), "p99-ratio")
}
