package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/internal/testkit/metricstest"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

// wordsDataset is a Spider-style dataset of one database, shop: a table
// of three items, which its one task counts, and a table of n distinct
// values of two random words each (a vocabulary of about 2n words).
func wordsDataset(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "database", "shop", "shop.sqlite")
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO item VALUES (1, 'pen'), (2, 'ink'), (3, 'pad');
CREATE TABLE words(v TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d)
INSERT INTO words SELECT lower(hex(randomblob(4))) || ' ' || lower(hex(randomblob(4))) FROM n;`, n)
	if err := sqlite.Build(context.Background(), db, script); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal([]map[string]string{{"db_id": "shop", "question": "How many items?", "query": "SELECT count(*) FROM item"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dev.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return "shop=spider:" + dir
}

// metricValue is the value of the unlabelled metric name on a server's
// /metrics page.
func metricValue(t *testing.T, url, name string) float64 {
	t.Helper()
	return metricstest.Scrape(t, url, name)
}

// randomText is n characters of random lower-case words.
func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		for range 3 + r.IntN(8) {
			b.WriteByte(byte('a' + r.IntN(26)))
		}
	}
	return b.String()[:n]
}

// hostileSearcher plays episodes that only call search_values with a
// query of 1000 random characters, one after the other, until stop is
// closed; a busy or failed search is part of the game.
func hostileSearcher(t *testing.T, url string, seed uint64, stop <-chan struct{}) {
	ctx := context.Background()
	c, err := client.Dial(ctx, url, "")
	if err != nil {
		t.Error(err)
		return
	}
	defer c.Close()
	r := rand.New(rand.NewPCG(seed, 3))
	episode := ""
	for {
		select {
		case <-stop:
			return
		default:
		}
		if episode == "" {
			ep, err := c.Reset(ctx, schemas.ResetParams{TaskID: "shop/0"})
			if err != nil {
				t.Error(err)
				return
			}
			episode = ep.EpisodeID
		}
		res, err := c.Step(ctx, episode, client.ToolCall(schemas.ToolSearchValues, map[string]any{"query": randomText(r, 1000)}))
		if err != nil || res.Terminated || res.Truncated {
			episode = ""
		}
	}
}

// TestHostileSearchesLeaveSQLSteps serves a database of 30,000 distinct
// values with --search-concurrency 1 and, through real sockets, has six
// clients send search_values calls of 1000 random characters without a
// pause: the server's metrics show one search running and the others
// waiting, and meanwhile an honest episode's execute_sql steps and its
// submission see no error and are paid.
func TestHostileSearchesLeaveSQLSteps(t *testing.T) {
	dataset := wordsDataset(t, 30_000)
	url, log, cancel, done := serveInProcess(t, "--dataset", dataset, "--tools", "execute_sql,search_values,submit",
		"--search-concurrency", "1", "--data-dir", t.TempDir(), "--max-turns", "1000", "--shutdown-grace", "0s")
	defer stopped(t, cancel, done)
	waitfor.Until(t, "the value index to be built", func() bool { return strings.Contains(log.String(), "value index ready") })
	metrics := strings.TrimSuffix(strings.Replace(url, "ws://", "http://", 1), "/v1/ws") + "/metrics"
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() { hostileSearcher(t, url, uint64(i), stop) })
	}
	defer wg.Wait()
	defer close(stop)
	saturated := func() bool {
		return metricValue(t, metrics, "sqlgym_value_searches_running") == 1 &&
			metricValue(t, metrics, "sqlgym_value_searches_waiting") >= 3
	}
	waitfor.Until(t, "the searches to fill their bound and queue", saturated)
	ctx := context.Background()
	c, err := client.Dial(ctx, url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ep, err := c.Reset(ctx, schemas.ResetParams{TaskID: "shop/0"})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"SELECT count(*) FROM item", "SELECT name FROM item ORDER BY id", "SELECT count(*) FROM words WHERE v LIKE 'a%'"} {
		res, err := c.Step(ctx, ep.EpisodeID, client.ToolCall(schemas.ToolExecuteSQL, map[string]any{"sql": q}))
		if err != nil || res.Info.Error != nil {
			t.Errorf("honest %s while searches were saturated: %+v, %v", q, res, err)
		}
	}
	res, err := c.Step(ctx, ep.EpisodeID, client.ToolCall(schemas.ToolSubmit, map[string]any{"sql": "SELECT count(*) FROM item"}))
	if err != nil || !res.Terminated || res.Info.Error != nil || res.Reward <= 0 {
		t.Errorf("honest submit: %+v, %v", res, err)
	}
	if !saturated() {
		t.Logf("the searches were no longer saturated after the honest episode")
	}
	if waited := metricValue(t, metrics, "sqlgym_value_searches_waited_total"); waited < 3 {
		t.Errorf("sqlgym_value_searches_waited_total %v, want the searches that queued counted", waited)
	}
}
