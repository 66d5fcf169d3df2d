package pgstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/pgstore"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// open returns a store in a fresh schema, closed at the end of the test.
func open(t *testing.T, cfg pgstore.Config) *pgstore.Store {
	t.Helper()
	if cfg.URL == "" {
		cfg.URL, _ = pgtest.URL(t)
	}
	s, err := pgstore.OpenConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 123456000, time.UTC)

// episode builds a finished trajectory of n steps; outcome "" leaves it
// unfinished.
func episode(id, task, outcome string, reward float64, at time.Time, n int) *schemas.Trajectory {
	text := "<tool_call>{\"name\":\"submit\",\"arguments\":{\"sql\":\"SELECT 1\"}}</tool_call>"
	t := &schemas.Trajectory{
		EpisodeID: id, Task: schemas.TaskView{TaskID: task, Dataset: "demo", DBID: "library", Question: "How many?", Dialect: "sqlite"},
		Tags:       json.RawMessage(`{"policy":"step-7","group":3}`),
		RewardSpec: schemas.DefaultRewardSpec(), RewardSpecHash: "sha256:0123456789abcdef", ActionFormat: "hermes",
		MaxTurns: 8, Messages: []schemas.Message{{Role: "system", Content: "You answer."}, {Role: "user", Content: "How many?"}},
		StartedAt: at, Steps: []schemas.StepRecord{}, ServerVersion: "test",
	}
	for i := 1; i <= n; i++ {
		st := schemas.StepRecord{
			Turn: i, Tool: "execute_sql", Arguments: json.RawMessage(`{"sql":"SELECT count(*) FROM books"}`),
			Action:      schemas.Action{Tool: "execute_sql", Arguments: json.RawMessage(`{"sql":"SELECT count(*) FROM books"}`)},
			Observation: "count(*)\n12\n(1 row)", ResultMeta: &schemas.ResultMeta{Columns: []string{"count(*)"}, RowCount: 1, ElapsedMS: 0.25},
			RewardComponents: map[string]float64{"turn.ok": 0}, ElapsedMS: 1.5, At: at.Add(time.Duration(i) * time.Second),
		}
		if i == n && outcome != "" {
			st.Tool, st.Action, st.Arguments = "submit", schemas.Action{Text: &text}, json.RawMessage(`{"sql":"SELECT 1"}`)
			st.Outcome, st.Reward = outcome, reward
			st.RewardComponents = map[string]float64{"turn.ok": 0, "final." + outcome: reward}
		}
		if i == 1 && n > 1 {
			st.Error = &schemas.ToolError{Code: "sql_error", Message: "no such table: x"}
		}
		t.Steps = append(t.Steps, st)
	}
	if outcome != "" {
		end := at.Add(time.Minute)
		t.EndedAt, t.Outcome, t.FinalReward, t.TotalReward = &end, outcome, reward, reward
	}
	return t
}

// record writes t through the Writer as a server would: Begin, each Step
// and, when it ended, End.
func record(t *testing.T, w trajlog.Writer, tr *schemas.Trajectory) {
	t.Helper()
	ctx := context.Background()
	begin := *tr
	begin.Steps, begin.EndedAt, begin.Outcome, begin.FinalReward, begin.TotalReward = []schemas.StepRecord{}, nil, "", 0, 0
	if err := w.Begin(ctx, &begin); err != nil {
		t.Fatal(err)
	}
	for i := range tr.Steps {
		if err := w.Step(ctx, tr.EpisodeID, &tr.Steps[i]); err != nil {
			t.Fatal(err)
		}
	}
	if tr.EndedAt != nil {
		if err := w.End(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
}

// readAll returns every record passing f.
func readAll(t *testing.T, r trajlog.Reader, f trajlog.Filter) []*trajlog.Record {
	t.Helper()
	var out []*trajlog.Record
	if err := r.Episodes(context.Background(), f, func(rec *trajlog.Record) error {
		out = append(out, rec)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// flushed waits until a record written without End (an unfinished
// episode) is visible.
func flushed(t *testing.T, r trajlog.Reader, id string, steps int) {
	t.Helper()
	waitfor.Until(t, fmt.Sprintf("episode %s to show %d steps", id, steps), func() bool {
		for _, rec := range readAll(t, r, trajlog.Filter{Incomplete: true}) {
			if rec.EpisodeID == id && len(rec.Steps) == steps {
				return true
			}
		}
		return false
	})
}

func TestRoundTrip(t *testing.T) {
	s := open(t, pgstore.Config{})
	want := []*schemas.Trajectory{
		episode("ep_a", "demo/1", "correct", 1, t0, 2),
		episode("ep_b", "demo/2", "mismatch", 0, t0.Add(time.Second), 1),
		episode("ep_c", "demo/1", "", 0, t0.Add(2*time.Second), 2),
	}
	want[1].Tags = nil
	want[1].CloseComponents = map[string]float64{"final.no_submit": -0.2}
	messageTurn(&want[0].Steps[0])
	for _, tr := range want {
		record(t, s, tr)
	}
	flushed(t, s, "ep_c", 2)
	got := readAll(t, s, trajlog.Filter{Incomplete: true})
	if len(got) != len(want) {
		t.Fatalf("read %d records, want %d", len(got), len(want))
	}
	for i, rec := range got {
		complete := want[i].EndedAt != nil
		if rec.Complete != complete {
			t.Errorf("%s: Complete = %v, want %v", rec.EpisodeID, rec.Complete, complete)
		}
		if g, w := canon(t, &rec.Trajectory), canon(t, want[i]); g != w {
			t.Errorf("record %d differs:\n got %s\nwant %s", i, g, w)
		}
	}
	if got := readAll(t, s, trajlog.Filter{}); len(got) != 2 {
		t.Errorf("zero filter read %d records, want the 2 complete ones", len(got))
	}
}

// canon is t as JSON with every JSON value decoded and re-encoded (jsonb
// orders keys its own way) and times cut to microseconds (timestamptz).
func canon(t *testing.T, tr *schemas.Trajectory) string {
	t.Helper()
	c := *tr
	c.StartedAt = c.StartedAt.Truncate(time.Microsecond)
	if c.EndedAt != nil {
		end := c.EndedAt.Truncate(time.Microsecond)
		c.EndedAt = &end
	}
	c.Steps = append([]schemas.StepRecord(nil), tr.Steps...)
	for i := range c.Steps {
		c.Steps[i].At = c.Steps[i].At.Truncate(time.Microsecond)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func TestFilters(t *testing.T) {
	s := open(t, pgstore.Config{PageSize: 2})
	var all []*schemas.Trajectory
	outcomes := []string{"correct", "mismatch", "pred_error", "correct", ""}
	for i := range 10 {
		o := outcomes[i%len(outcomes)]
		tr := episode(fmt.Sprintf("ep_%02d", i), fmt.Sprintf("demo/%d", i%3), o, float64(i)/10, t0.Add(time.Duration(i)*time.Minute), 1+i%3)
		if i%2 == 0 {
			tr.Tags = json.RawMessage(fmt.Sprintf(`{"policy":"p%d","group":%d,"extra":{"a":1}}`, i%4, i%3))
		}
		if i == 3 {
			tr.Task.Dataset = "spider-dev"
		}
		record(t, s, tr)
		all = append(all, tr)
	}
	flushed(t, s, "ep_09", 1+9%3)
	lo, hi := 0.25, 0.65
	filters := []trajlog.Filter{
		{}, {Incomplete: true}, {Dataset: "spider-dev"}, {TaskID: "demo/1"}, {Outcome: "correct"},
		{MinReward: &lo}, {MaxReward: &hi}, {MinReward: &lo, MaxReward: &hi, Incomplete: true},
		{Since: t0.Add(3 * time.Minute)}, {Until: t0.Add(3 * time.Minute)},
		{Tags: map[string]string{"policy": "p0"}}, {Tags: map[string]string{"group": "2"}},
		{Tags: map[string]string{"extra": `{"a":1}`}}, {Tags: map[string]string{"missing": "x"}},
		{TaskID: "demo/0", Outcome: "correct", Tags: map[string]string{"policy": "p0"}},
	}
	for _, f := range filters {
		var want []string
		for _, tr := range all {
			rec := &trajlog.Record{Trajectory: *tr, Complete: tr.EndedAt != nil}
			if !rec.Complete {
				rec.TotalReward = 0
				for _, st := range tr.Steps {
					rec.TotalReward += st.Reward
				}
			}
			if f.Match(rec) {
				want = append(want, tr.EpisodeID)
			}
		}
		var got []string
		for _, rec := range readAll(t, s, f) {
			got = append(got, rec.EpisodeID)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("filter %+v: got %v, want %v", f, got, want)
		}
	}
}

func TestReaderStopsOnCallbackError(t *testing.T) {
	s := open(t, pgstore.Config{PageSize: 1})
	for i := range 3 {
		record(t, s, episode(fmt.Sprintf("ep_%d", i), "demo/1", "correct", 1, t0.Add(time.Duration(i)*time.Second), 1))
	}
	stop := errors.New("stop")
	n := 0
	err := s.Episodes(context.Background(), trajlog.Filter{}, func(*trajlog.Record) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("Episodes = %v after %d calls, want the callback's error after 1", err, n)
	}
}

func TestNULIsRefusedLoudly(t *testing.T) {
	s := open(t, pgstore.Config{})
	ctx := context.Background()
	tr := episode("ep_nul", "demo/1", "correct", 1, t0, 2)
	begin := *tr
	begin.Steps = nil
	if err := s.Begin(ctx, &begin); err != nil {
		t.Fatal(err)
	}
	tr.Steps[0].Observation = "a\x00b"
	if err := s.Step(ctx, tr.EpisodeID, &tr.Steps[0]); !errors.Is(err, pgstore.ErrNUL) {
		t.Errorf("step with NUL: %v, want ErrNUL", err)
	}
	if err := s.Step(ctx, tr.EpisodeID, &tr.Steps[1]); !errors.Is(err, pgstore.ErrNUL) {
		t.Errorf("next step of a failed episode: %v, want the first failure", err)
	}
	if err := s.End(ctx, tr); !errors.Is(err, pgstore.ErrNUL) {
		t.Errorf("End of a failed episode: %v, want the first failure", err)
	}
	// The other episodes are unaffected.
	record(t, s, episode("ep_ok", "demo/1", "correct", 1, t0, 1))
	if got := readAll(t, s, trajlog.Filter{}); len(got) != 1 || got[0].EpisodeID != "ep_ok" {
		t.Errorf("read %d complete records, want ep_ok alone", len(got))
	}
}

func TestWriteAfterClose(t *testing.T) {
	s := open(t, pgstore.Config{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	tr := episode("ep_late", "demo/1", "correct", 1, t0, 1)
	if err := s.Begin(context.Background(), tr); !errors.Is(err, pgstore.ErrClosed) {
		t.Errorf("Begin after Close: %v, want ErrClosed", err)
	}
}

// TestReplicasShareAStore writes concurrently through two stores on the
// same tables, as two server replicas would, and reads everything back
// through either.
func TestReplicasShareAStore(t *testing.T) {
	url, _ := pgtest.URL(t)
	a, b := open(t, pgstore.Config{URL: url, MaxBatch: 7}), open(t, pgstore.Config{URL: url})
	var wg sync.WaitGroup
	const perWriter = 40
	for w, s := range []*pgstore.Store{a, b, a, b} {
		wg.Go(func() {
			for i := range perWriter {
				id := fmt.Sprintf("ep_%d_%03d", w, i)
				record(t, s, episode(id, "demo/1", "correct", 1, t0.Add(time.Duration(i)*time.Millisecond), 1+i%4))
			}
		})
	}
	wg.Wait()
	for _, s := range []*pgstore.Store{a, b} {
		got := readAll(t, s, trajlog.Filter{})
		if len(got) != 4*perWriter {
			t.Fatalf("read %d episodes, want %d", len(got), 4*perWriter)
		}
		for _, rec := range got {
			var w, i int
			fmt.Sscanf(rec.EpisodeID, "ep_%d_%d", &w, &i)
			if len(rec.Steps) != 1+i%4 || !rec.Complete {
				t.Errorf("%s: %d steps, complete %v; want %d steps, complete", rec.EpisodeID, len(rec.Steps), rec.Complete, 1+i%4)
			}
		}
	}
}

// TestOneBadEpisodeFailsAlone queues episodes that share batches with one
// the server refuses (a start time PostgreSQL cannot hold): that one's End
// fails, every other one is written.
func TestOneBadEpisodeFailsAlone(t *testing.T) {
	s := open(t, pgstore.Config{})
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Go(func() {
			at := t0.Add(time.Duration(i) * time.Second)
			if i == 7 {
				at = time.Date(300000, 1, 1, 0, 0, 0, 0, time.UTC)
			}
			tr := episode(fmt.Sprintf("ep_%02d", i), "demo/1", "correct", 1, at, 2)
			begin := *tr
			if errs[i] = s.Begin(ctx, &begin); errs[i] != nil {
				return
			}
			for j := range tr.Steps {
				if errs[i] = s.Step(ctx, tr.EpisodeID, &tr.Steps[j]); errs[i] != nil {
					return
				}
			}
			errs[i] = s.End(ctx, tr)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if i == 7 && testing.Verbose() {
			t.Logf("the refused episode: %v", err)
		}
		if (err != nil) != (i == 7) {
			t.Errorf("episode %d: %v", i, err)
		}
	}
	if got := readAll(t, s, trajlog.Filter{}); len(got) != 19 {
		t.Errorf("read %d complete episodes, want the 19 good ones", len(got))
	}
}
