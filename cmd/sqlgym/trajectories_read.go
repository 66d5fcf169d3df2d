package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym/episodes/export"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/pgstore"
	"github.com/sqlgym/sqlgym/internal/app/rollout"
)

// registerLogReader registers the flags of a command that reads the
// recorded episodes beside their datasets (report, console): --dataset,
// whose help ends with what the datasets give it (then), --data-dir,
// --trajectories and the databases' connection bounds.
func (s *stackFlags) registerLogReader(fs *flag.FlagSet, then string) {
	fs.Var(&s.datasets, "dataset", "the datasets the episodes played, `[NAME=]FORMAT:PATH` as for serve (repeatable): "+then)
	fs.StringVar(&s.dataDir, "data-dir", defaultDataDir, "where the trajectory log is")
	fs.StringVar(&s.trajectories, "trajectories", "", "read episodes from a postgres:// URL or a file of trajectory records instead of --data-dir")
	s.registerDBPool(fs)
}

// openTrajectoryReader opens where episodes were recorded, for reading:
// the PostgreSQL store for a postgres:// URL, a file of trajectory
// records (a raw export, a rescored file) for any other value, else the
// log under dataDir, read-only beside a server that may be writing it,
// which keeps the damage its reads find (damageFlags.report). The closer
// releases what was opened.
func openTrajectoryReader(ctx context.Context, trajectories, dataDir string) (trajlog.Reader, io.Closer, error) {
	switch {
	case isPostgresURL(trajectories):
		s, err := pgstore.Open(ctx, trajectories)
		if err != nil {
			return nil, nil, fmt.Errorf("--trajectories: %w", err)
		}
		return s, s, nil
	case trajectories != "":
		if _, err := os.Stat(trajectories); err != nil {
			return nil, nil, fmt.Errorf("--trajectories: %w", err)
		}
		return export.RawFile{Path: trajectories}, nopCloser{}, nil
	}
	dir := filelog.LogDir(dataDir)
	if _, err := os.Stat(dir); err != nil {
		return nil, nil, fmt.Errorf("--data-dir: no trajectory log at %s (serve records there): %w", dir, err)
	}
	l, err := filelog.Open(dir, filelog.Options{ReadOnly: true})
	if err != nil {
		return nil, nil, fmt.Errorf("--data-dir: %w", err)
	}
	return &filelog.DamageKeeper{Log: l}, l, nil
}

// nopCloser closes nothing: a file reader opens its file per read.
type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// filterFlags select the episodes a command reads.
type filterFlags struct {
	dataset, tasks, outcome string
	run                     string
	minReward, maxReward    optFloat
	tags, excludeTags       listFlag
	since, until            string
	incomplete              bool
}

func (f *filterFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.dataset, "filter-dataset", "", "only episodes of this dataset `name`")
	fs.StringVar(&f.tasks, "tasks", "", "only episodes of these tasks, `ID,ID,...` (task_id)")
	deprecatedAlias(fs, "task", "tasks")
	fs.StringVar(&f.run, "run", "", "only the episodes of this run `NAME` (the run tag sqlgym rollout sets; the same as --tag run=NAME)")
	fs.StringVar(&f.outcome, "outcome", "", "only episodes with this outcome (correct, mismatch, pred_error, ...)")
	fs.Var(&f.minReward, "min-reward", "only episodes with total_reward >= `X`")
	fs.Var(&f.maxReward, "max-reward", "only episodes with total_reward <= `X`")
	fs.Var(&f.tags, "tag", "only episodes whose tag KEY has this value, `KEY=VALUE` (repeatable; strings unquoted, others as JSON)")
	fs.Var(&f.excludeTags, "exclude-tag", "leave out episodes whose tag KEY has this value, `KEY=VALUE`, compared as for --tag (repeatable; "+
		"--exclude-tag bench=true leaves out sqlgym bench's episodes)")
	fs.StringVar(&f.since, "since", "", "only episodes started at or after this `time` (RFC 3339, or a date 2006-01-02)")
	fs.StringVar(&f.until, "until", "", "only episodes started before this `time` (RFC 3339, or a date)")
	fs.BoolVar(&f.incomplete, "incomplete", false, "also episodes whose end was never recorded (the server was killed)")
}

// filter is the trajlog.Filter the flags describe.
func (f *filterFlags) filter() (trajlog.Filter, error) {
	flt := trajlog.Filter{Dataset: f.dataset, Outcome: f.outcome, Incomplete: f.incomplete,
		MinReward: f.minReward.ptr(), MaxReward: f.maxReward.ptr()}
	if ids := f.taskIDs(); len(ids) == 1 {
		flt.TaskID = ids[0]
	}
	if f.run != "" {
		flt.Tags = map[string]string{rollout.TagRun: f.run}
	}
	var err error
	if flt.Since, err = parseTime("--since", f.since); err != nil {
		return flt, err
	}
	if flt.Until, err = parseTime("--until", f.until); err != nil {
		return flt, err
	}
	for _, kv := range f.tags.values {
		k, v, err := parseTag("--tag", kv)
		if err != nil {
			return flt, err
		}
		if flt.Tags == nil {
			flt.Tags = map[string]string{}
		}
		flt.Tags[k] = v
	}
	for _, kv := range f.excludeTags.values {
		k, v, err := parseTag("--exclude-tag", kv)
		if err != nil {
			return flt, err
		}
		flt.ExcludeTags = append(flt.ExcludeTags, trajlog.Tag{Key: k, Value: v})
	}
	return flt, nil
}

// taskIDs are the tasks of --tasks; none selects every task.
func (f *filterFlags) taskIDs() []string {
	var ids []string
	for _, id := range strings.Split(f.tasks, ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	return ids
}

// reader is rd reading only the tasks of --tasks, when it names more
// than one (the filter's TaskID holds a single one).
func (f *filterFlags) reader(rd trajlog.Reader) trajlog.Reader {
	ids := f.taskIDs()
	if len(ids) < 2 {
		return rd
	}
	return trajlog.OnlyTasks(rd, ids)
}

// parseTag splits a KEY=VALUE flag value.
func parseTag(flagName, kv string) (key, value string, err error) {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || k == "" {
		return "", "", usageError{fmt.Sprintf("%s %q: want KEY=VALUE", flagName, kv)}
	}
	return k, v, nil
}

func parseTime(flagName, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, usageError{fmt.Sprintf("%s %q: want RFC 3339 (2006-01-02T15:04:05Z) or a date (2006-01-02)", flagName, s)}
}

// optFloat is a number flag that may be left unset.
type optFloat struct {
	v   float64
	set bool
}

func (o *optFloat) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.FormatFloat(o.v, 'g', -1, 64)
}

func (o *optFloat) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return errors.New("want a number")
	}
	o.v, o.set = v, true
	return nil
}

func (o *optFloat) ptr() *float64 {
	if !o.set {
		return nil
	}
	v := o.v
	return &v
}
