package pgstore

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// TestRareTextIsReadThroughTheTrigramIndex fills a store with 100,000
// episodes (a thousand tasks, each episode's SQL its own) and asks
// PostgreSQL's plan of a list page searching the SQL of one task: it
// reads the trigram index, not every episode.
func TestRareTextIsReadThroughTheTrigramIndex(t *testing.T) {
	ctx := context.Background()
	s := openInternal(t)
	_, err := s.pool.Exec(ctx, `INSERT INTO sqlgym_episodes (episode_id, dataset, task_id, task, reward_spec, reward_spec_hash,
		action_format, max_turns, messages, server_version, started_at, ended_at, search)
		SELECT 'ep_' || i, 'd', 't' || (i % 1000), '{}', '{}', 'h', 'hermes', 8, '[]', 'test',
			timestamptz '2026-01-01' + i * interval '1 second', timestamptz '2026-01-02',
			'How many rows?' || E'\n' || 'SELECT count(*) FROM t' || (i % 1000) || ' WHERE id = ' || i
		FROM generate_series(1, 100000) AS i`)
	if err != nil {
		t.Fatal(err)
	}
	// Statistics of every row (ANALYZE samples 300 rows per unit of the
	// target): the planner's estimate of the text's rows is then the same
	// at each run, not a sample's luck.
	if _, err := s.pool.Exec(ctx, "ALTER TABLE sqlgym_episodes ALTER COLUMN search SET STATISTICS 1000; ANALYZE sqlgym_episodes"); err != nil {
		t.Fatal(err)
	}
	where, args := listWhere(ListQuery{Text: "FROM t42 WHERE"})
	var plan []string
	rows, err := s.pool.Query(ctx, "EXPLAIN SELECT episode_id FROM sqlgym_episodes e WHERE "+strings.Join(where, " AND ")+
		" ORDER BY started_at DESC, seq DESC LIMIT 50", args...)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(plan, "\n"), "sqlgym_episodes_search") {
		t.Fatalf("the plan of a rare text reads no trigram index: %q", plan)
	}
}

// openInternal opens a store in a fresh schema, closed at the end of the
// test, for the tests that read its pool.
func openInternal(t *testing.T) *Store {
	url, _ := pgtest.URL(t)
	s, err := OpenConfig(context.Background(), Config{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
