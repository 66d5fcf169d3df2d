package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/internal/app/console"
	"github.com/sqlgym/sqlgym/internal/app/rollout"
	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
	"github.com/sqlgym/sqlgym/reward/judge"
)

// reportFlags are the flags of sqlgym report.
type reportFlags struct {
	stack   stackFlags  // --dataset (for result-set votes), --data-dir, --trajectories
	filter  filterFlags // --run among them
	damage  damageFlags
	by      string
	usage   string
	out     string
	compare string
	html    string
}

// makeOut makes the --out folder where one is given, and reads the token
// usage from it when --usage names no other file.
func (f *reportFlags) makeOut() error {
	if f.out == "" {
		return nil
	}
	if f.usage == "" {
		f.usage = filepath.Join(f.out, rollout.UsageFile)
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// runReport prints the report of the selected episodes (one per value of
// --by, or two runs side by side with --compare), writes it under --out
// and as web pages under --html, and reports the damage found in the log.
func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("report", stderr)
	var f reportFlags
	f.stack.registerLogReader(fs, "the self-consistency vote then compares result sets, run again here (without: the submitted SQL text)")
	f.filter.register(fs)
	f.damage.register(fs)
	fs.StringVar(&f.by, "by", "", "one report per value of this `TAG` (an RL run's policy version, say)")
	fs.StringVar(&f.usage, "usage", "", "token usage file, as sqlgym rollout writes it (default: usage.jsonl in --out, when there)")
	fs.StringVar(&f.out, "out", "", "also write report.json into this `folder` (with --by: report-VALUE.json for each value)")
	fs.StringVar(&f.compare, "compare", "", "compare two runs, `A,B` by run name: each metric of B beside A over the tasks both ran, "+
		"its delta with a 95% bootstrap interval, and the tasks that flipped")
	fs.StringVar(&f.html, "html", "", "also write the report as web pages with charts into this `folder` (index.html), as the console shows it")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if f.html != "" && f.by != "" {
		return usageError{"--html writes one report: leave out --by"}
	}
	flt, err := f.filter.filter()
	if err != nil {
		return err
	}
	runs, err := f.compareRuns()
	if err != nil {
		return err
	}
	if err := f.makeOut(); err != nil {
		return err
	}
	rd, closer, err := openTrajectoryReader(ctx, f.stack.trajectories, f.stack.dataDir)
	if err != nil {
		return err
	}
	defer closer.Close()
	rd = f.filter.reader(rd)
	opts, done, err := f.reportOptions(ctx)
	if err != nil {
		return err
	}
	defer done()
	if runs != nil {
		err = writeComparison(ctx, rd, flt, opts, runs, f.out, stdout)
	} else {
		err = writeReports(ctx, rd, flt, opts, f.by, f.out, stdout)
	}
	if err != nil {
		return err
	}
	if f.html != "" {
		path, err := console.WriteReportHTML(ctx, f.html, rd, flt, runs, opts)
		if err != nil {
			return fmt.Errorf("--html: %w", err)
		}
		fmt.Fprintf(stdout, "\nweb report: %s\n", path)
	}
	return f.damage.report(stderr, "report", rd)
}

// reportOptions loads what the report reads besides the episodes: the
// datasets for result-set votes, the token usage.
func (f *reportFlags) reportOptions(ctx context.Context) (report.Options, func(), error) {
	var o report.Options
	var err error
	if f.usage != "" {
		if o.Usage, err = rollout.ReadUsage(f.usage); err != nil {
			return o, nil, err
		}
	}
	if len(f.stack.datasets.values) == 0 {
		return o, func() {}, nil
	}
	if err := f.stack.engine.parse(); err != nil {
		return o, nil, err
	}
	dss, err := f.stack.loadDatasets(ctx)
	if err != nil {
		return o, nil, err
	}
	cat, _, jdg := f.stack.engines(nil)
	o.Voter = &rollout.Voter{Catalog: cat, Datasets: dss}
	tr := &judge.Again{Catalog: cat, Datasets: dss, Judge: jdg}
	o.Tables, o.Golds = tr, tr
	return o, func() { cat.Close() }, nil
}

// writeReports reads the selected episodes and prints their report (one
// per value of the by tag, when given), writing report.json into out.
func writeReports(ctx context.Context, rd trajlog.Reader, flt trajlog.Filter, o report.Options, by, out string, stdout io.Writer) error {
	builders, order, err := report.ByTag(ctx, rd, flt, o, by, nil)
	if err != nil {
		return err
	}
	if len(order) == 0 {
		return fmt.Errorf("no recorded episode matches")
	}
	for i, k := range order {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if by != "" {
			fmt.Fprintf(stdout, "%s = %s\n", by, report.Label(k))
		}
		if err := writeOneReport(builders[k].Report(), out, report.FileName(by, k), stdout); err != nil {
			return err
		}
	}
	return nil
}

func writeOneReport(rep *report.Report, out, name string, stdout io.Writer) error {
	if out != "" {
		path := filepath.Join(out, name)
		err := writeFile(path, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(rep)
		})
		if err != nil {
			return err
		}
		defer fmt.Fprintf(stdout, "\nreport: %s\n", path)
	}
	return rep.WriteText(stdout)
}

// report writes the run's report: every episode of the run, old and new.
func (rs *rolloutSetup) report(ctx context.Context, f *rolloutFlags, stdout io.Writer) error {
	ctx = context.WithoutCancel(ctx) // after a Ctrl-C, report what was recorded
	usage, err := rollout.ReadUsage(f.usagePath())
	if err != nil {
		return err
	}
	tr := &judge.Again{Catalog: rs.catalog, Datasets: rs.datasets, Judge: rs.judge}
	o := report.Options{Voter: &rollout.Voter{Catalog: rs.catalog, Datasets: rs.datasets}, Tables: tr, Golds: tr, Usage: usage}
	flt := trajlog.Filter{Tags: map[string]string{rollout.TagRun: f.run}}
	if err := writeReports(ctx, rs.reader, flt, o, "", f.out, stdout); err != nil {
		return err
	}
	return nil
}
