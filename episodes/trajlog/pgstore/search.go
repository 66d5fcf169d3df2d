package pgstore

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/schemas"
)

// The text search of the list (ListQuery.Text) reads one column of the
// episodes, search: the task's question and the SQL of every call, one
// per line. Begin writes the question, End the question and the SQL.
// With the pg_trgm extension a trigram GIN index serves a substring
// search (ILIKE '%text%') of three characters or more; without it, the
// search reads that column of each episode it passes.

// searchColumn adds the column to tables made before it and fills it for
// the episodes already there, from their steps (once: afterwards no
// episode is left without it).
var searchColumn = []string{
	`ALTER TABLE sqlgym_episodes ADD COLUMN IF NOT EXISTS search text`,
	// The episodes still without it (none, once filled; a row written by
	// a server of an older version), so that each start finds them
	// without reading every episode.
	`CREATE INDEX IF NOT EXISTS sqlgym_episodes_unsearched ON sqlgym_episodes (episode_id) WHERE search IS NULL`,
	`UPDATE sqlgym_episodes e SET search = concat_ws(E'\n', e.task->>'question', (
		SELECT string_agg(q.sql, E'\n' ORDER BY q.turn, q.i) FROM (
			SELECT st.turn, 0::bigint AS i, st.arguments->>'sql' AS sql FROM sqlgym_steps st
				WHERE st.episode_id = e.episode_id AND st.extra->'calls' IS NULL
			UNION ALL
			SELECT st.turn, c.i, c.v->'arguments'->>'sql' FROM sqlgym_steps st,
				jsonb_array_elements(CASE WHEN jsonb_typeof(st.extra->'calls') = 'array' THEN st.extra->'calls' ELSE '[]' END)
					WITH ORDINALITY AS c(v, i)
				WHERE st.episode_id = e.episode_id) q))
	WHERE e.search IS NULL`,
}

// trigramIndex creates pg_trgm when the store's user may (it is a trusted
// extension: any user with CREATE on the database) and the index of the
// search column. A failure to make either leaves the search unindexed,
// not the store unusable.
func trigramIndex(ctx context.Context, tx pgx.Tx) error {
	ok := false
	for _, stmt := range []string{"CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public", "CREATE EXTENSION IF NOT EXISTS pg_trgm"} {
		if ok = savepoint(ctx, tx, stmt); ok {
			break
		}
	}
	if !ok {
		return nil
	}
	var schema string
	err := tx.QueryRow(ctx, `SELECT n.nspname FROM pg_extension x JOIN pg_namespace n ON n.oid = x.extnamespace
		WHERE x.extname = 'pg_trgm'`).Scan(&schema)
	if err != nil {
		return err
	}
	opclass := pgx.Identifier{schema, "gin_trgm_ops"}.Sanitize()
	savepoint(ctx, tx, "CREATE INDEX IF NOT EXISTS sqlgym_episodes_search ON sqlgym_episodes USING gin (search "+opclass+")")
	return nil
}

// savepoint runs stmt in a nested transaction, reporting whether it
// succeeded; a failure rolls back only stmt.
func savepoint(ctx context.Context, tx pgx.Tx, stmt string) bool {
	err := pgx.BeginFunc(ctx, tx, func(sp pgx.Tx) error {
		_, err := sp.Exec(ctx, stmt)
		return err
	})
	return err == nil
}

// searchText is an episode's search column: its question, then the SQL of
// every call of its steps, one per line.
func searchText(t *schemas.Trajectory) string {
	parts := []string{t.Task.Question}
	for _, st := range t.Steps {
		for _, c := range st.CallList() {
			var a struct {
				SQL string `json:"sql"`
			}
			if json.Unmarshal(c.Arguments, &a) == nil && a.SQL != "" {
				parts = append(parts, a.SQL)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// likePattern is text as an ILIKE pattern matching any value holding it.
func likePattern(text string) string {
	return "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(text) + "%"
}
