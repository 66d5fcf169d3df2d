package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/internal/app/console"
	"github.com/sqlgym/sqlgym/schemas"
)

// listQueries are the pages the index tests compare with a scan.
var listQueries = []console.Query{
	{Limit: 50},
	{Limit: 2, Offset: 2},
	{DBID: "concert_singer", Failed: true, Limit: 10},
	{Filter: trajlog.Filter{Tags: map[string]string{"run": "r2"}}, Limit: 10},
	{Filter: trajlog.Filter{Outcome: "correct", ExcludeTags: []trajlog.Tag{{Key: "run", Value: "r1"}}}, Limit: 10},
	{Text: "FROM Singer", Limit: 10},            // in the SQL sent, any case
	{Text: "how many", Failed: true, Limit: 10}, // in the question
	{Text: "pwned", Limit: 10},
}

// TestLogIndexPagesAsTheScanDoes builds the index of a recorded log and
// finds every page the scan finds; an episode that ends afterwards comes
// first through the tap; an index that kept only the newest episodes
// reads the log for a page past them; an episode is read by its id.
func TestLogIndexPagesAsTheScanDoes(t *testing.T) {
	rec := startRecorded(t, "")
	ctx := context.Background()
	for _, max := range []int{0, 3} {
		log := &countingReader{R: rec.Log}
		x := console.NewLogIndex(log, max)
		if err := x.Build(ctx); err != nil {
			t.Fatal(err)
		}
		scan := console.ReaderStore{R: rec.Log}
		for _, q := range listQueries {
			reads := log.reads.Load()
			a, err := x.List(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if q.Text != "" && len(a.Episodes) == 0 {
				t.Fatalf("text search %q found nothing", q.Text)
			}
			if max == 0 && log.reads.Load() != reads {
				t.Fatalf("index of every episode, query %+v: read the log", q)
			}
			b, _ := scan.List(ctx, q)
			if !slices.Equal(ids(a), ids(b)) || (a.Total != b.Total && !(a.AtLeast && a.Total <= b.Total)) {
				t.Fatalf("index of %d, query %+v: %d %v, the scan %d %v", max, q, a.Total, ids(a), b.Total, ids(b))
			}
		}
		got, err := x.Episode(ctx, rec.Failed)
		if err != nil || got.EpisodeID != rec.Failed || len(got.Steps) != 2 {
			t.Fatalf("episode %s through the index: %v", rec.Failed, err)
		}
	}
	x := console.NewLogIndex(rec.Log, 0)
	if err := x.Build(ctx); err != nil {
		t.Fatal(err)
	}
	rec.Live.OnEnd(x.Ended)
	task := &rec.Dataset.Tasks[0]
	id := episode(t, rec.Client, task, `{"run":"after"}`, nil, task.GoldSQL)
	p, err := x.List(ctx, console.Query{Limit: 1})
	if err != nil || len(p.Episodes) != 1 || p.Episodes[0].ID != id || p.Total != 7 {
		t.Fatalf("after one more episode: %+v %v, want %s first of 7", p, err, id)
	}
}

// BenchmarkLogListPageOfAMillion writes a file log of a million
// episodes (SQLGYM_BENCH_EPISODES overrides the number) of one step each,
// builds the console's index of it, and reads list pages as the
// PostgreSQL benchmark does. It reports the median page time in ms and
// the index's heap per episode (runtime.MemStats around its build).
func BenchmarkLogListPageOfAMillion(b *testing.B) {
	n := benchEpisodes(b)
	dir := filepath.Join(b.TempDir(), "log")
	l, err := filelog.Open(dir, filelog.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	writeEpisodes(b, l, n)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	x := console.NewLogIndex(l, 0)
	start := time.Now()
	if err := x.Build(context.Background()); err != nil {
		b.Fatal(err)
	}
	took := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	perEpisode := float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
	b.Logf("indexed %d episodes in %s: %.0f bytes of heap an episode", n, took.Round(time.Millisecond), perEpisode)
	b.ReportMetric(perEpisode, "index-B/episode")
	benchPages(b, x, n)
	runtime.KeepAlive(x)
	b.StopTimer()
	episodeOutsideTheIndex(b, l, n)
}

// episodeOutsideTheIndex times what an episode's page of an episode the
// index does not hold reads: the log from its oldest segment up to the
// episode (here the one half way), or the whole log for an unknown id.
func episodeOutsideTheIndex(b *testing.B, l *filelog.Log, n int) {
	scan := console.ReaderStore{R: l}
	for _, c := range []struct {
		id, metric string
	}{{fmt.Sprintf("ep_%024x", n/2), "halfway-episode-ms"}, {"ep_unknown", "unknown-episode-ms"}} {
		start := time.Now()
		_, err := scan.Episode(context.Background(), c.id)
		b.ReportMetric(float64(time.Since(start).Microseconds())/1000, c.metric)
		if (err == nil) != (c.id != "ep_unknown") {
			b.Fatalf("episode %s: %v", c.id, err)
		}
	}
}

// writeEpisodes records n episodes as fillPostgres makes them, with ids
// as long as the server's.
func writeEpisodes(b *testing.B, l *filelog.Log, n int) {
	ctx := context.Background()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 1; i <= n; i++ {
		outcome, reward := "mismatch", 0.0
		if i%3 == 0 {
			outcome, reward = "correct", 1
		}
		t := &schemas.Trajectory{EpisodeID: fmt.Sprintf("ep_%024x", i), Tags: json.RawMessage(fmt.Sprintf(`{"run":"r%d"}`, i%4)),
			Task: schemas.TaskView{TaskID: fmt.Sprintf("spider/%d", i%1000), Dataset: "spider", DBID: fmt.Sprintf("db_%d", i%20),
				Question: fmt.Sprintf("How many rows in table %d?", i%1000), Dialect: "sqlite"},
			ActionFormat: "hermes", MaxTurns: 8, StartedAt: t0.Add(time.Duration(i) * time.Second), Messages: []schemas.Message{}}
		if err := l.Begin(ctx, t); err != nil {
			b.Fatal(err)
		}
		st := schemas.StepRecord{Turn: 1, Tool: "submit", Arguments: json.RawMessage(fmt.Sprintf(`{"sql":"SELECT count(*) FROM t%d WHERE id = %d"}`, i%1000, i)),
			Observation: "(1 rows)", RewardComponents: map[string]float64{}, At: t.StartedAt}
		if err := l.Step(ctx, t.EpisodeID, &st); err != nil {
			b.Fatal(err)
		}
		end := *t
		ended := t.StartedAt.Add(time.Second)
		end.EndedAt, end.Outcome, end.TotalReward, end.FinalReward, end.Steps = &ended, outcome, reward, reward, []schemas.StepRecord{st}
		if err := l.End(ctx, &end); err != nil {
			b.Fatal(err)
		}
	}
}

// countingReader counts the reads of the log an index makes.
type countingReader struct {
	R     trajlog.Reader
	reads atomic.Int64
}

func (c *countingReader) Episodes(ctx context.Context, f trajlog.Filter, fn func(*trajlog.Record) error) error {
	c.reads.Add(1)
	return c.R.Episodes(ctx, f, fn)
}
