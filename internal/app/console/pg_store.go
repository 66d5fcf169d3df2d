package console

import (
	"context"
	"errors"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/pgstore"
	"github.com/sqlgym/sqlgym/schemas"
)

// This file holds every call the console makes into the PostgreSQL
// store: a list page is two indexed queries (the count stops a few pages
// past the one shown), an episode one read by its primary key.

// PGStore reads the PostgreSQL store through its indexes.
type PGStore struct {
	S *pgstore.Store
	// CountAhead is how many pages past the one shown a list page
	// counts (0: 20); a larger total shows as "more than".
	CountAhead int
}

// Reader returns the store, for reports.
func (p PGStore) Reader() trajlog.Reader { return p.S }

// List reads one page.
func (p PGStore) List(ctx context.Context, q Query) (*Page, error) {
	ahead := p.CountAhead
	if ahead <= 0 {
		ahead = 20
	}
	lq := pgstore.ListQuery{Filter: q.Filter, DBID: q.DBID, Text: q.Text, Offset: q.Offset, Limit: q.Limit,
		CountUpTo: q.Offset + (ahead+1)*q.Limit + 1}
	if q.Failed {
		lq.NotOutcome = schemas.OutcomeCorrect
		lq.Filter.Incomplete = false
	}
	rows, total, err := p.S.List(ctx, lq)
	if err != nil {
		return nil, err
	}
	page := &Page{Total: total, AtLeast: total == lq.CountUpTo}
	for _, r := range rows {
		page.Episodes = append(page.Episodes, Summary{ID: r.EpisodeID, Task: r.Task, Outcome: r.Outcome, TotalReward: r.TotalReward,
			StartedAt: r.StartedAt, Turns: r.Steps, Tags: tagList(r.Tags), Complete: r.Ended})
	}
	return page, nil
}

// Episode reads one episode by its id.
func (p PGStore) Episode(ctx context.Context, id string) (*trajlog.Record, error) {
	r, err := p.S.Episode(ctx, id)
	if errors.Is(err, pgstore.ErrNoEpisode) {
		return nil, ErrNotFound
	}
	return r, err
}
