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
	"github.com/sqlgym/sqlgym/episodes/trajlog/pgstore"
)

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
	dir := trajlog.LogDir(dataDir)
	if _, err := os.Stat(dir); err != nil {
		return nil, nil, fmt.Errorf("--data-dir: no trajectory log at %s (serve records there): %w", dir, err)
	}
	l, err := trajlog.Open(dir, trajlog.Options{ReadOnly: true})
	if err != nil {
		return nil, nil, fmt.Errorf("--data-dir: %w", err)
	}
	return &scannedLog{Log: l}, l, nil
}

// nopCloser closes nothing: a file reader opens its file per read.
type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// filterFlags select the episodes a command reads.
type filterFlags struct {
	dataset, task, outcome string
	minReward, maxReward   optFloat
	tags, excludeTags      listFlag
	since, until           string
	incomplete             bool
}

func (f *filterFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.dataset, "filter-dataset", "", "only episodes of this dataset `name`")
	fs.StringVar(&f.task, "task", "", "only episodes of this task_id")
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
	flt := trajlog.Filter{Dataset: f.dataset, TaskID: f.task, Outcome: f.outcome, Incomplete: f.incomplete,
		MinReward: f.minReward.ptr(), MaxReward: f.maxReward.ptr()}
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
