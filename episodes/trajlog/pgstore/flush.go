package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

// The statements of each op kind. Inserts ignore a row already there, so
// that writing a batch again after a failed commit is harmless.
var opSQL = [...]string{
	opBegin: `INSERT INTO sqlgym_episodes (` + episodeColumns + `, search)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19)
		ON CONFLICT (episode_id) DO NOTHING`,
	opStep: `INSERT INTO sqlgym_steps (` + stepColumns + `)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14)
		ON CONFLICT (episode_id, turn) DO NOTHING`,
	opEnd: `INSERT INTO sqlgym_episodes (` + episodeColumns + `, search)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19)
		ON CONFLICT (episode_id) DO UPDATE SET ended_at = EXCLUDED.ended_at,
			outcome = EXCLUDED.outcome, final_reward = EXCLUDED.final_reward,
			total_reward = EXCLUDED.total_reward, close_components = EXCLUDED.close_components,
			search = EXCLUDED.search`,
}

// run is the flusher: it takes whatever is queued, up to MaxBatch rows,
// and writes it in one transaction, until the queue is closed and empty.
func (s *Store) run() {
	defer close(s.stopped)
	for {
		o, ok := <-s.ops
		if !ok {
			return
		}
		batch := []op{o}
	fill:
		for len(batch) < s.cfg.MaxBatch {
			select {
			case o, ok := <-s.ops:
				if !ok {
					break fill
				}
				batch = append(batch, o)
			default:
				break fill
			}
		}
		s.flush(batch)
	}
}

// flush writes a batch. When the transaction fails, each episode's rows
// are tried again on their own, so one bad episode does not fail the
// others that shared its batch.
func (s *Store) flush(ops []op) {
	ops = s.dropFailed(ops)
	if len(ops) == 0 {
		return
	}
	err := s.write(ops)
	if err == nil {
		s.settle(ops, nil)
		return
	}
	groups := byEpisode(ops)
	if len(groups) == 1 {
		s.settle(ops, err)
		return
	}
	for _, g := range groups {
		s.settle(g, s.write(g))
	}
}

// write runs ops in one transaction, sent as one pgx batch. In a shared
// store a write no row took marks its op (op.fenced) and the others
// commit.
func (s *Store) write(ops []op) error {
	ctx, cancel := context.WithTimeout(s.base, s.cfg.FlushTimeout)
	defer cancel()
	b := &pgx.Batch{}
	for _, o := range ops {
		b.Queue(s.statement(o.kind), s.args(o)...)
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		br := tx.SendBatch(ctx, b)
		for i := range ops {
			tag, err := br.Exec()
			if err != nil {
				br.Close()
				return err
			}
			ops[i].fenced = s.shared() && tag.RowsAffected() == 0
		}
		return br.Close()
	})
}

// settle records the result of writing ops and answers the End calls
// waiting for them.
func (s *Store) settle(ops []op, err error) {
	for _, o := range ops {
		switch {
		case err != nil:
			s.fail(o.id, fmt.Errorf("pgstore: write episode %s: %w", o.id, err))
		case o.fenced:
			s.fail(o.id, fmt.Errorf("pgstore: write episode %s: %w", o.id, trajlog.ErrMoved))
		}
		if o.done != nil {
			o.done <- s.failure(o.id)
		}
		if o.kind == opEnd {
			s.forget(o.id)
		}
	}
}

// dropFailed removes the rows of episodes whose writes already failed,
// answering their End calls with the failure.
func (s *Store) dropFailed(ops []op) []op {
	kept := ops[:0]
	for _, o := range ops {
		err := s.failure(o.id)
		switch {
		case err == nil:
			kept = append(kept, o)
		case o.done != nil:
			o.done <- err
			if o.kind == opEnd {
				s.forget(o.id)
			}
		}
	}
	return kept
}

// byEpisode splits ops by episode, keeping each episode's order.
func byEpisode(ops []op) [][]op {
	index := map[string]int{}
	var groups [][]op
	for _, o := range ops {
		i, ok := index[o.id]
		if !ok {
			i = len(groups)
			index[o.id] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], o)
	}
	return groups
}
