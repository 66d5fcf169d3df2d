package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym/base/jsonscan"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// This file holds every call the console makes into the trajectory
// stores: the list of episodes, one episode, and the reader reports use.

// ErrNotFound is what Store.Episode returns for an unknown id.
var ErrNotFound = errors.New("no recorded episode has this id")

// Store is where the console reads recorded episodes.
type Store interface {
	// List returns one page of the episodes q selects, newest first.
	List(ctx context.Context, q Query) (*Page, error)
	// Episode returns the episode of this id, or ErrNotFound.
	Episode(ctx context.Context, id string) (*trajlog.Record, error)
	// Reader is the store as a trajlog.Reader, for reports.
	Reader() trajlog.Reader
}

// Query selects a page of episodes: the store's filter, and what the
// console filters beyond it.
type Query struct {
	trajlog.Filter
	DBID   string // task.db_id
	Failed bool   // only episodes that ended with an outcome other than correct
	Text   string // a substring (case-insensitive) of the question or of any SQL sent
	Offset int    // episodes skipped, newest first
	Limit  int    // episodes returned
}

// Page is one page of the list.
type Page struct {
	Episodes []Summary
	Total    int  // episodes the query selects
	AtLeast  bool // Total is a lower bound: the count stopped there
}

// Summary is one row of the list.
type Summary struct {
	ID          string
	Task        schemas.TaskView
	Outcome     string
	TotalReward float64
	StartedAt   time.Time
	Turns       int
	Tags        []string // "key=value", sorted
	Complete    bool
}

// ReaderStore reads a trajlog.Reader (the file log, PostgreSQL, a file
// of records) by scanning it: each list page reads every episode the
// store's filter passes, keeping only the page's summaries.
type ReaderStore struct {
	R trajlog.Reader
}

// Reader returns the reader.
func (s ReaderStore) Reader() trajlog.Reader { return s.R }

// errStop ends a scan early.
var errStop = errors.New("stop")

// Episode scans for the episode of id.
func (s ReaderStore) Episode(ctx context.Context, id string) (*trajlog.Record, error) {
	var found *trajlog.Record
	err := s.R.Episodes(ctx, trajlog.Filter{Incomplete: true}, func(r *trajlog.Record) error {
		if r.EpisodeID == id {
			found = r
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, fmt.Errorf("reading the episodes: %w", err)
	}
	if found == nil {
		return nil, ErrNotFound
	}
	return found, nil
}

// List scans the store for the page q asks.
func (s ReaderStore) List(ctx context.Context, q Query) (*Page, error) {
	keep := q.Offset + q.Limit
	ring := make([]Summary, 0, min(keep, 1024))
	total := 0
	err := s.R.Episodes(ctx, q.Filter, func(r *trajlog.Record) error {
		if !q.matches(r) {
			return nil
		}
		i := total
		total++
		if len(ring) < keep {
			ring = append(ring, summarize(r)) // at i%keep: i < keep
		} else if keep > 0 {
			ring[i%keep] = summarize(r) // overwrites the oldest kept
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the episodes: %w", err)
	}
	return &Page{Episodes: pageOf(ring, total, q), Total: total}, nil
}

// pageOf picks the page from the ring of the last matches (match i
// at i%keep), newest first.
func pageOf(ring []Summary, total int, q Query) []Summary {
	keep := q.Offset + q.Limit
	var out []Summary
	for i := total - 1 - q.Offset; i >= 0 && i > total-1-keep; i-- {
		out = append(out, ring[i%keep])
	}
	return out
}

// matches applies what the console filters beyond the store's filter.
func (q *Query) matches(r *trajlog.Record) bool {
	if q.DBID != "" && r.Task.DBID != q.DBID {
		return false
	}
	if q.Failed && (r.Outcome == "" || r.Outcome == "correct") {
		return false
	}
	return q.Text == "" || mentions(r, strings.ToLower(q.Text))
}

// mentions reports whether the question or any SQL sent holds text.
func mentions(r *trajlog.Record, text string) bool {
	if strings.Contains(strings.ToLower(r.Task.Question), text) {
		return true
	}
	for _, st := range r.Steps {
		for _, c := range st.CallList() {
			if strings.Contains(strings.ToLower(sqlOf(c.Arguments)), text) {
				return true
			}
		}
	}
	return false
}

func summarize(r *trajlog.Record) Summary {
	return Summary{ID: r.EpisodeID, Task: r.Task, Outcome: r.Outcome, TotalReward: r.TotalReward,
		StartedAt: r.StartedAt, Turns: len(r.Steps), Tags: tagList(r.Tags), Complete: r.Complete}
}

// tagList is an episode's tags as sorted "key=value" texts.
func tagList(raw json.RawMessage) []string {
	var out []string
	for k, v := range trajlog.ParseTags(raw) {
		out = append(out, k+"="+trajlog.TagText(v))
	}
	slices.Sort(out)
	return out
}

// sqlOf is the sql argument of a call, or "".
func sqlOf(args json.RawMessage) string {
	if sql, ok := jsonscan.SoleString(args, "sql"); ok {
		return sql
	}
	var a struct {
		SQL string `json:"sql"`
	}
	if json.Unmarshal(args, &a) != nil {
		return ""
	}
	return a.SQL
}
