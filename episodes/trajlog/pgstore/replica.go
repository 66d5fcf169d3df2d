package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

// DefaultLeaseTTL is how old a replica's heartbeat may grow before its
// episodes may be claimed by another replica.
const DefaultLeaseTTL = 10 * time.Second

var _ trajlog.Shared = (*Store)(nil)

// The statements of a shared store (Config.Replica set): the episode's
// row names its replica, and a step or an end is written only while the
// episode's row still names this replica (FOR SHARE: a claim waits for a
// write under way, and a write waits for a claim under way, then sees
// it).
var sharedSQL = [...]string{
	opBegin: `INSERT INTO sqlgym_episodes (` + episodeColumns + `, search, replica)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20)
		ON CONFLICT (episode_id) DO NOTHING`,
	opStep: `INSERT INTO sqlgym_steps (` + stepColumns + `)
		SELECT $1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14
		WHERE EXISTS (SELECT 1 FROM sqlgym_episodes WHERE episode_id = $1 AND replica = $15 AND ended_at IS NULL FOR SHARE)
		ON CONFLICT (episode_id, turn) DO NOTHING`,
	opEnd: `INSERT INTO sqlgym_episodes (` + episodeColumns + `, search, replica)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20)
		ON CONFLICT (episode_id) DO UPDATE SET ended_at = EXCLUDED.ended_at,
			outcome = EXCLUDED.outcome, final_reward = EXCLUDED.final_reward,
			total_reward = EXCLUDED.total_reward, close_components = EXCLUDED.close_components,
			search = EXCLUDED.search
		WHERE sqlgym_episodes.replica = EXCLUDED.replica AND sqlgym_episodes.ended_at IS NULL`,
}

// claimSQL makes this replica ($2) the driver of a live episode ($1) that
// no live replica drives: one handed back (”), one whose replica's
// heartbeat is older than the lease ($3 seconds), or one it drives
// already. An episode of a server sharing nothing (replica NULL) is never
// claimed.
const claimSQL = `UPDATE sqlgym_episodes e SET replica = $2
	WHERE episode_id = $1 AND ended_at IS NULL AND replica IS NOT NULL
	AND (replica = '' OR replica = $2 OR NOT EXISTS (SELECT 1 FROM sqlgym_replicas r
		WHERE r.replica_id = e.replica AND r.seen_at > now() - make_interval(secs => $3)))`

// orphansSQL lists episodes no live replica drives, idle for $2 seconds.
const orphansSQL = `SELECT e.episode_id FROM sqlgym_episodes e
	WHERE e.ended_at IS NULL AND e.replica IS NOT NULL
	AND (e.replica = '' OR NOT EXISTS (SELECT 1 FROM sqlgym_replicas r
		WHERE r.replica_id = e.replica AND r.seen_at > now() - make_interval(secs => $1)))
	AND coalesce((SELECT max(s.at) FROM sqlgym_steps s WHERE s.episode_id = e.episode_id), e.started_at)
		< now() - make_interval(secs => $2)
	LIMIT $3`

// shared reports whether the store is shared by replicas.
func (s *Store) shared() bool { return s.cfg.Replica != "" }

// statement is the SQL of an op kind.
func (s *Store) statement(k opKind) string {
	if s.shared() {
		return sharedSQL[k]
	}
	return opSQL[k]
}

// args are an op's values as its statement takes them.
func (s *Store) args(o op) []any {
	if s.shared() {
		return append(o.args, s.cfg.Replica)
	}
	return o.args
}

// beat records that this replica is live.
func (s *Store) beat(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO sqlgym_replicas (replica_id, seen_at) VALUES ($1, now())
		ON CONFLICT (replica_id) DO UPDATE SET seen_at = now()`, s.cfg.Replica)
	if err != nil {
		return fmt.Errorf("pgstore: heartbeat: %w", err)
	}
	return nil
}

// heartbeat beats every third of the lease until beating ends: the
// store closes or hands its episodes back.
func (s *Store) heartbeat(beating context.Context) {
	defer close(s.beatDone)
	t := time.NewTicker(s.cfg.LeaseTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-beating.Done():
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(beating, s.cfg.LeaseTTL/3)
			s.beat(ctx) // a missed beat is retried at the next tick; writes are fenced either way
			cancel()
		}
	}
}

// Claim makes this replica the driver of the live episode id, and reads
// its record (trajlog.Shared).
func (s *Store) Claim(ctx context.Context, id string) (*trajlog.Record, error) {
	if !s.shared() {
		return nil, errors.New("pgstore: claim: the store is not shared (no replica id)")
	}
	tag, err := s.pool.Exec(ctx, claimSQL, id, s.cfg.Replica, s.cfg.LeaseTTL.Seconds())
	if err != nil {
		return nil, fmt.Errorf("pgstore: claim %s: %w", id, err)
	}
	rec, err := s.Episode(ctx, id)
	if err != nil {
		return nil, err
	}
	switch {
	case tag.RowsAffected() == 1:
		return rec, nil
	case rec.EndedAt != nil:
		return rec, trajlog.ErrEnded
	}
	return nil, trajlog.ErrHeld
}

// Load reads an episode, claiming nothing (trajlog.Shared).
func (s *Store) Load(ctx context.Context, id string) (*trajlog.Record, error) {
	return s.Episode(ctx, id)
}

// HandBack gives up every episode this replica drives, stops its
// heartbeat and deletes it (trajlog.Shared): from then on the store
// counts the replica as gone, while it finishes its writes and closes.
func (s *Store) HandBack(ctx context.Context) error {
	s.beatStop()
	<-s.beatDone // no beat in flight writes the heartbeat back
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE sqlgym_episodes SET replica = '' WHERE replica = $1 AND ended_at IS NULL`, s.cfg.Replica); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM sqlgym_replicas WHERE replica_id = $1`, s.cfg.Replica)
		return err
	})
	if err != nil {
		return fmt.Errorf("pgstore: hand back: %w", err)
	}
	return nil
}

// Orphans lists live episodes no live replica drives, idle for idle
// (trajlog.Shared).
func (s *Store) Orphans(ctx context.Context, idle time.Duration, limit int) ([]string, error) {
	rows, err := s.pool.Query(ctx, orphansSQL, s.cfg.LeaseTTL.Seconds(), idle.Seconds(), limit)
	if err != nil {
		return nil, fmt.Errorf("pgstore: orphans: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("pgstore: orphans: %w", err)
	}
	return ids, nil
}
