package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/internal/app/rollout"
	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
)

// compareFile is report.json under --compare.
type compareFile struct {
	Compare *report.Comparison `json:"compare"`
}

// compareRuns is the two run names of --compare A,B; nil without it.
func (f *reportFlags) compareRuns() ([]string, error) {
	if f.compare == "" {
		return nil, nil
	}
	runs := strings.Split(f.compare, ",")
	switch {
	case len(runs) != 2 || runs[0] == "" || runs[1] == "":
		return nil, fmt.Errorf("--compare %q: want two run names, A,B", f.compare)
	case runs[0] == runs[1]:
		return nil, fmt.Errorf("--compare %q: the two runs are the same", f.compare)
	case f.filter.run != "" || f.by != "":
		return nil, fmt.Errorf("--compare takes the runs it names: leave out --run and --by")
	}
	return runs, nil
}

// writeComparison reads the two runs' episodes (by their run tag, among
// the selected ones) in one pass, each into a Builder of its own, and
// prints their comparison, writing it into out's report.json.
func writeComparison(ctx context.Context, rd trajlog.Reader, flt trajlog.Filter, o report.Options, runs []string, out string, stdout io.Writer) error {
	builders, _, err := report.ByTag(ctx, rd, flt, o, rollout.TagRun, func(k string) bool { return k == runs[0] || k == runs[1] })
	if err != nil {
		return err
	}
	for _, r := range runs {
		if builders[r] == nil {
			return fmt.Errorf("--compare: no recorded episode of run %q matches", r)
		}
	}
	c := report.Compare(builders[runs[0]], builders[runs[1]], runs[0], runs[1])
	if c.PairedTasks == 0 {
		return fmt.Errorf("--compare: runs %q and %q share no task with a counted episode", runs[0], runs[1])
	}
	if out != "" {
		path := filepath.Join(out, report.File)
		err := writeFile(path, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(compareFile{Compare: c})
		})
		if err != nil {
			return err
		}
		defer fmt.Fprintf(stdout, "\nreport: %s\n", path)
	}
	return c.WriteText(stdout)
}
