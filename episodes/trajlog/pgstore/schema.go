package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrationLock is the advisory lock key that serializes schema creation
// between replicas starting at once ("sqlgym" in ASCII).
const migrationLock = 0x73716c67796d

// ddl creates the tables and indexes, each only if missing. Episodes keep
// the columns filters read (dataset, task, outcome, rewards, times) as
// columns and the rest as jsonb; steps are keyed by episode and turn.
var ddl = []string{
	`CREATE TABLE IF NOT EXISTS sqlgym_episodes (
		seq              bigint GENERATED ALWAYS AS IDENTITY,
		episode_id       text PRIMARY KEY,
		dataset          text NOT NULL,
		task_id          text NOT NULL,
		task             jsonb NOT NULL,
		tags             jsonb,
		reward_spec      jsonb NOT NULL,
		reward_spec_hash text NOT NULL,
		action_format    text NOT NULL,
		max_turns        integer NOT NULL,
		messages         jsonb NOT NULL,
		server_version   text NOT NULL,
		started_at       timestamptz NOT NULL,
		ended_at         timestamptz,
		outcome          text,
		final_reward     double precision NOT NULL DEFAULT 0,
		total_reward     double precision NOT NULL DEFAULT 0,
		close_components jsonb
	)`,
	`CREATE INDEX IF NOT EXISTS sqlgym_episodes_started ON sqlgym_episodes (started_at, seq)`,
	`CREATE INDEX IF NOT EXISTS sqlgym_episodes_dataset ON sqlgym_episodes (dataset, started_at)`,
	`CREATE INDEX IF NOT EXISTS sqlgym_episodes_task ON sqlgym_episodes (task_id, started_at)`,
	`CREATE INDEX IF NOT EXISTS sqlgym_episodes_outcome ON sqlgym_episodes (outcome, started_at)`,
	`CREATE INDEX IF NOT EXISTS sqlgym_episodes_tags ON sqlgym_episodes USING gin (tags)`,
	// The web console's list of one database's episodes, newest first.
	`CREATE INDEX IF NOT EXISTS sqlgym_episodes_db ON sqlgym_episodes ((task->>'db_id'), started_at)`,
	`CREATE TABLE IF NOT EXISTS sqlgym_steps (
		episode_id        text NOT NULL,
		turn              integer NOT NULL,
		tool              text NOT NULL,
		action            jsonb NOT NULL,
		arguments         jsonb,
		observation       text NOT NULL,
		error             jsonb,
		result_meta       jsonb,
		reward            double precision NOT NULL,
		reward_components jsonb NOT NULL,
		outcome           text,
		elapsed_ms        double precision NOT NULL,
		at                timestamptz NOT NULL,
		PRIMARY KEY (episode_id, turn)
	)`,
	// extra holds what a step records beside the columns above, when it
	// has any: usage, content, calls, finish_reason and judge (stepExtra). Added
	// to a table made before it, empty for the steps already there.
	`ALTER TABLE sqlgym_steps ADD COLUMN IF NOT EXISTS extra jsonb`,
	// extra holds the settings of an episode's begin line that have no
	// column: tools, max_calls_per_turn and prompt_style (episodeExtra).
	// Added to a table made before it, NULL for the episodes already
	// there, which read as they did.
	`ALTER TABLE sqlgym_episodes ADD COLUMN IF NOT EXISTS extra jsonb`,
	// replica is the replica that drives a live episode when the store is
	// shared (replica.go): NULL for an episode of a server that shares
	// none (no other replica may claim it), '' once handed back.
	`ALTER TABLE sqlgym_episodes ADD COLUMN IF NOT EXISTS replica text`,
	`CREATE INDEX IF NOT EXISTS sqlgym_episodes_live ON sqlgym_episodes (replica) WHERE ended_at IS NULL`,
	// The replicas sharing the store, each with its last heartbeat.
	`CREATE TABLE IF NOT EXISTS sqlgym_replicas (
		replica_id text PRIMARY KEY,
		seen_at    timestamptz NOT NULL
	)`,
}

// migrate creates schema (when not empty) and the tables in one
// transaction, under an advisory lock so that replicas starting together
// do not race on CREATE ... IF NOT EXISTS.
func migrate(ctx context.Context, pool *pgxpool.Pool, schema string) error {
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLock)); err != nil {
			return err
		}
		if schema != "" {
			if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize()); err != nil {
				return err
			}
		}
		for _, stmt := range append(ddl[:len(ddl):len(ddl)], searchColumn...) {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		return trigramIndex(ctx, tx)
	})
	if err != nil {
		return fmt.Errorf("pgstore: create tables: %w", err)
	}
	return nil
}
