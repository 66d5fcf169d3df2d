package pgstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// ListQuery selects one page of a list of episodes (the web console's),
// newest first: the episodes Filter passes, as whereClause maps it to
// SQL, narrowed by the fields below.
type ListQuery struct {
	Filter     trajlog.Filter
	DBID       string // task.db_id (indexed: sqlgym_episodes_db)
	NotOutcome string // only episodes that ended with another outcome
	Text       string // a substring, any case, of the question or of any call's SQL (the search column; see search.go)
	Offset     int
	Limit      int
	CountUpTo  int // the count stops here; 0: counts every match
}

// ListRow is one episode of a page: its header, without messages or
// steps, and how many steps it took.
type ListRow struct {
	EpisodeID   string
	Task        schemas.TaskView
	Tags        []byte
	StartedAt   time.Time
	Ended       bool
	Outcome     string
	TotalReward float64
	Steps       int
}

// List returns the page q asks and how many episodes q selects (at most
// q.CountUpTo, when set), each read through the indexes on started_at
// and the filtered columns.
func (s *Store) List(ctx context.Context, q ListQuery) ([]ListRow, int, error) {
	where, args := listWhere(q)
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	countQ := "SELECT count(*) FROM sqlgym_episodes e" + cond
	if q.CountUpTo > 0 {
		countQ = fmt.Sprintf("SELECT count(*) FROM (SELECT 1 FROM sqlgym_episodes e%s LIMIT %d) x", cond, q.CountUpTo)
	}
	var total int
	if err := s.pool.QueryRow(ctx, countQ, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("pgstore: count episodes: %w", err)
	}
	pageQ := fmt.Sprintf(`SELECT episode_id, task, tags, started_at, ended_at IS NOT NULL, coalesce(outcome, ''), total_reward,
		(SELECT count(*) FROM sqlgym_steps st WHERE st.episode_id = e.episode_id)
		FROM sqlgym_episodes e%s ORDER BY started_at DESC, seq DESC LIMIT %d OFFSET %d`, cond, q.Limit, q.Offset)
	rows, err := s.pool.Query(ctx, pageQ, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("pgstore: list episodes: %w", err)
	}
	page, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ListRow, error) {
		var r ListRow
		var task []byte
		err := row.Scan(&r.EpisodeID, &task, &r.Tags, &r.StartedAt, &r.Ended, &r.Outcome, &r.TotalReward, &r.Steps)
		if err == nil {
			err = decode(task, &r.Task)
		}
		r.StartedAt = r.StartedAt.UTC()
		return r, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("pgstore: list episodes: %w", err)
	}
	return page, total, nil
}

// listWhere is whereClause with the list's own conditions.
func listWhere(q ListQuery) ([]string, []any) {
	where, args := whereClause(q.Filter)
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "$?", fmt.Sprintf("$%d", len(args))))
	}
	if q.DBID != "" {
		add("task->>'db_id' = $?", q.DBID)
	}
	if q.NotOutcome != "" {
		add("outcome <> $?", q.NotOutcome)
	}
	if q.Text != "" {
		add("search ILIKE $?", likePattern(q.Text))
	}
	return where, args
}

// ErrNoEpisode is what Episode returns for an id the store does not
// hold: trajlog.ErrNoEpisode.
var ErrNoEpisode = trajlog.ErrNoEpisode

// Episode reads one episode, with its steps, by its id (the primary key).
func (s *Store) Episode(ctx context.Context, id string) (*trajlog.Record, error) {
	rows, err := s.pool.Query(ctx, "SELECT seq, "+episodeColumns+" FROM sqlgym_episodes WHERE episode_id = $1", id)
	if err != nil {
		return nil, fmt.Errorf("pgstore: read episode: %w", err)
	}
	page, err := pgx.CollectRows(rows, scanEpisode)
	if err != nil {
		return nil, fmt.Errorf("pgstore: read episode: %w", err)
	}
	if len(page) == 0 {
		return nil, ErrNoEpisode
	}
	if err := s.attachSteps(ctx, page); err != nil {
		return nil, err
	}
	return page[0].rec, nil
}
