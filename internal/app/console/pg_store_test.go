package console_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/pgstore"
	"github.com/sqlgym/sqlgym/internal/app/console"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// fillPostgres writes n synthetic episodes straight into the store's
// tables with one INSERT ... SELECT (episode i: database db_<i%20>,
// outcome correct for every third, run r<i%4>, started i seconds after
// t0, one step sending SQL of its own), the fastest way to a store of a
// million. The search column is written as the Writer writes it.
func fillPostgres(tb testing.TB, url string, n int) {
	tb.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `INSERT INTO sqlgym_episodes (episode_id, dataset, task_id, task, tags, reward_spec, reward_spec_hash,
		action_format, max_turns, messages, server_version, started_at, ended_at, outcome, final_reward, total_reward, search)
		SELECT 'ep_' || i, 'spider', 'spider/' || (i % 1000),
			jsonb_build_object('task_id', 'spider/' || (i % 1000), 'dataset', 'spider', 'db_id', 'db_' || (i % 20),
				'question', 'How many rows in table ' || (i % 1000) || '?', 'dialect', 'sqlite'),
			jsonb_build_object('run', 'r' || (i % 4)), '{}'::jsonb, 'h', 'hermes', 8, '[]'::jsonb, 'test',
			timestamptz '2026-01-01' + i * interval '1 second', timestamptz '2026-01-01' + i * interval '1 second' + interval '1 second',
			CASE WHEN i % 3 = 0 THEN 'correct' ELSE 'mismatch' END, CASE WHEN i % 3 = 0 THEN 1 ELSE 0 END, CASE WHEN i % 3 = 0 THEN 1 ELSE 0 END,
			'How many rows in table ' || (i % 1000) || '?' || E'\n' || 'SELECT count(*) FROM t' || (i % 1000) || ' WHERE id = ' || i
		FROM generate_series(1, $1) AS i`, n)
	if err != nil {
		tb.Fatal(err)
	}
	_, err = conn.Exec(ctx, `INSERT INTO sqlgym_steps (episode_id, turn, tool, action, arguments, observation, reward, reward_components, elapsed_ms, at)
		SELECT 'ep_' || i, 1, 'submit', '{"tool":"submit"}'::jsonb, jsonb_build_object('sql', 'SELECT count(*) FROM t' || (i % 1000) || ' WHERE id = ' || i),
			'(1 rows)', 0, '{}'::jsonb, 1, timestamptz '2026-01-01'
		FROM generate_series(1, $1) AS i`, n)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "ANALYZE sqlgym_episodes; ANALYZE sqlgym_steps"); err != nil {
		tb.Fatal(err)
	}
}

func openPG(tb testing.TB) (*pgstore.Store, string) {
	tb.Helper()
	url, _ := pgtest.URL(tb)
	s, err := pgstore.Open(context.Background(), url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s, url
}

// TestPostgresListPagesAsTheScanDoes compares every page of a filtered
// list read through the indexes with the same list read by scanning.
func TestPostgresListPagesAsTheScanDoes(t *testing.T) {
	s, url := openPG(t)
	fillPostgres(t, url, 300)
	ctx := context.Background()
	indexed, scanned := console.PGStore{S: s}, console.ReaderStore{R: s}
	for _, q := range []console.Query{
		{Limit: 50},
		{DBID: "db_3", Failed: true, Limit: 4, Offset: 4},
		{Filter: trajlog.Filter{Tags: map[string]string{"run": "r1"}, Outcome: "correct"}, Limit: 10},
		{Text: "table 17?", Limit: 10},
		{Text: "FROM T17 where", Limit: 10},
	} {
		a, err := indexed.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		b, err := scanned.List(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if (a.Total != b.Total && !(a.AtLeast && a.Total < b.Total)) || !slices.Equal(ids(a), ids(b)) || len(a.Episodes) == 0 {
			t.Fatalf("query %+v: indexed %d %v, scanned %d %v", q, a.Total, ids(a), b.Total, ids(b))
		}
	}
	rec, err := indexed.Episode(ctx, "ep_7")
	if err != nil || rec.EpisodeID != "ep_7" || len(rec.Steps) != 1 || rec.Task.DBID != "db_7" {
		t.Fatalf("episode ep_7: %+v %v", rec, err)
	}
	if _, err := indexed.Episode(ctx, "ep_missing"); err != console.ErrNotFound {
		t.Fatalf("a missing episode: %v", err)
	}
}

func ids(p *console.Page) []string {
	var out []string
	for _, e := range p.Episodes {
		out = append(out, e.ID)
	}
	return out
}

// BenchmarkPostgresListPageOfAMillion reads list pages of a store of a
// million episodes (SQLGYM_BENCH_EPISODES overrides the number): the
// first page, the failed episodes of one database, one run's, and a page
// 2,000 deep. It reports the median page time in ms.
func BenchmarkPostgresListPageOfAMillion(b *testing.B) {
	s, url := openPG(b)
	n := benchEpisodes(b)
	fillPostgres(b, url, n)
	benchPages(b, console.PGStore{S: s}, n)
}

// benchPages reads the pages of the list benchmarks from a store of n
// episodes: the first, the failed of one database, one run's, one
// 100,000 deep (half way, in a smaller store), and two text searches: a
// rare one (the SQL of one task in a thousand) and one every episode
// matches. It reports the median and p99 of all pages, and the median of
// each text search.
func benchPages(b *testing.B, store console.Store, n int) {
	ctx := context.Background()
	queries := []console.Query{
		{Limit: 50},
		{DBID: "db_7", Failed: true, Limit: 50},
		{Filter: trajlog.Filter{Tags: map[string]string{"run": "r2"}}, Limit: 50},
		{Limit: 50, Offset: min(100_000, n/2)},
		{Text: "FROM t417 WHERE", Limit: 50},
		{Text: "rows in table", Limit: 50},
	}
	var times []time.Duration
	text := map[int][]time.Duration{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := queries[i%len(queries)]
		start := time.Now()
		p, err := store.List(ctx, q)
		d := time.Since(start)
		times = append(times, d)
		if q.Text != "" {
			text[i%len(queries)] = append(text[i%len(queries)], d)
		}
		want := 50
		if q.Text == queries[4].Text {
			want = min(50, n/1000) // one episode in a thousand
		}
		if err != nil || len(p.Episodes) != want {
			b.Fatalf("query %+v: %v, %d rows", q, err, len(p.Episodes))
		}
	}
	b.ReportMetric(quantile(times, 0.5), "median-ms/page")
	b.ReportMetric(quantile(times, 0.99), "p99-ms/page")
	if ds := text[4]; len(ds) > 0 {
		b.ReportMetric(quantile(ds, 0.5), "rare-text-median-ms/page")
	}
	if ds := text[5]; len(ds) > 0 {
		b.ReportMetric(quantile(ds, 0.5), "common-text-median-ms/page")
	}
}

// quantile is the q quantile of ds in milliseconds.
func quantile(ds []time.Duration, q float64) float64 {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return float64(ds[int(float64(len(ds)-1)*q)].Microseconds()) / 1000
}

func benchEpisodes(b *testing.B) int {
	n := 1_000_000
	if s := getenv("SQLGYM_BENCH_EPISODES"); s != "" {
		fmt.Sscan(s, &n)
	}
	return n
}
