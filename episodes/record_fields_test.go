package episodes_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// playShapes plays episodes of every shape an end takes over one socket,
// one after another: submitted after steps, with tags and a reward of its
// own; out of turns; closed before any step (close components); closed
// after a step. It returns their ids.
func playShapes(t *testing.T, h *harness) []string {
	t.Helper()
	c := h.dial()
	ctx := context.Background()
	a := reset(t, c, schemas.ResetParams{TaskID: "t/names", Tags: json.RawMessage(`{"policy":"p1","sample":3}`),
		Reward: json.RawMessage(`{"final":{"correct":2.5}}`)})
	step(t, c, a.EpisodeID, execSQL("SELECT name FROM items"))
	step(t, c, a.EpisodeID, submitSQL("SELECT name FROM items WHERE category = 'furniture' ORDER BY price"))
	b := reset(t, c, schemas.ResetParams{TaskID: "t/count", MaxTurns: new(1)})
	step(t, c, b.EpisodeID, execSQL("SELECT 1"))
	d := reset(t, c, schemas.ResetParams{TaskID: "t/answer"})
	e := reset(t, c, schemas.ResetParams{TaskID: "t/count", ActionFormat: "tags"})
	step(t, c, e.EpisodeID, execSQL("SELECT count(*) FROM items"))
	for _, id := range []string{d.EpisodeID, e.EpisodeID} {
		if _, err := c.CloseEpisode(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	return []string{a.EpisodeID, b.EpisodeID, d.EpisodeID, e.EpisodeID}
}

// TestRecordedFieldByField reads back episodes of every shape and checks
// each field of each record against the trajectory episode.get serves
// (from the encoding the manager keeps since the end), and Manager.Get's
// decoding of it; their end lines are slim, leaving the header to the
// begin lines.
func TestRecordedFieldByField(t *testing.T) {
	h := newHarness(t, options{})
	ids := playShapes(t, h)
	got := map[string]*trajlog.Record{}
	err := h.log.Episodes(context.Background(), trajlog.Filter{}, func(r *trajlog.Record) error {
		got[r.EpisodeID] = r
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c := h.dial()
	for _, id := range ids {
		served, err := c.Episode(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		r := got[id]
		if r == nil || !r.Complete {
			t.Fatalf("episode %s read back as %+v", id, r)
		}
		// The manager keeps an ended trajectory encoded; Get decodes it.
		kept, err := h.trajectory(id)
		if err != nil {
			t.Fatal(err)
		}
		if kj, wj := mustJSON(t, kept), mustJSON(t, served); !bytes.Equal(kj, wj) {
			t.Errorf("episode %s: Get gives\n%s\nepisode.get\n%s", id, kj, wj)
		}
		g, w := reflect.ValueOf(r.Trajectory), reflect.ValueOf(*served)
		for i := range g.NumField() {
			gj, _ := json.Marshal(g.Field(i).Interface())
			wj, _ := json.Marshal(w.Field(i).Interface())
			if !bytes.Equal(gj, wj) {
				t.Errorf("episode %s: %s on disk %s, served %s", id, g.Type().Field(i).Name, gj, wj)
			}
		}
	}
	if n := slimEnds(t, h); n != len(ids) {
		t.Errorf("%d done lines, want one per episode (%d)", n, len(ids))
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// slimEnds counts the done lines of the harness's log: ends that leave
// the header out.
func slimEnds(t *testing.T, h *harness) int {
	t.Helper()
	segs, _ := filepath.Glob(filepath.Join(h.log.Dir(), "traj-*.log"))
	n := 0
	for _, path := range segs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for line := range bytes.Lines(b) {
			var ev struct {
				Ev   string
				Traj map[string]json.RawMessage
			}
			if json.Unmarshal(line, &ev) == nil && ev.Ev == "done" && ev.Traj["messages"] == nil {
				n++
			}
		}
	}
	return n
}

// TestFsyncsInMetrics: /metrics reports the log's fsyncs. One client
// ending episodes one at a time waits for one fsync per end.
func TestFsyncsInMetrics(t *testing.T) {
	h := newHarness(t, options{})
	ends := len(playShapes(t, h))
	resp, err := http.Get(h.hs.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var fsyncs int64 = -1
	for line := range strings.Lines(string(body)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "sqlgym_trajectory_fsyncs_total "); ok {
			fsyncs, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	if st := h.log.Stats(); fsyncs != st.Fsyncs || fsyncs != int64(ends) {
		t.Errorf("sqlgym_trajectory_fsyncs_total %d, the log's %d; want one per episode end (%d)", fsyncs, st.Fsyncs, ends)
	}
}
