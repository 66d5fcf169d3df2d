package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/internal/app/console"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

// records is a trajlog.Reader over records held in memory: a log from
// elsewhere, whose every field is what its writer chose.
type records []*trajlog.Record

func (rs records) Episodes(_ context.Context, f trajlog.Filter, fn func(*trajlog.Record) error) error {
	for _, r := range rs {
		if (f.Dataset == "" || f.Dataset == r.Task.Dataset) && (f.TaskID == "" || f.TaskID == r.Task.TaskID) {
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// hostileID is an episode id that, placed in a path unescaped, would
// lead the link elsewhere: up a folder, into a query and a fragment.
const hostileID = "../play?dataset=x#top"

// hostileRecord is an episode whose every free-text field is markup, in
// the fields the browser test does not cover: the episode id, the
// dataset's name, the task id, the database, a tag key, an error message
// and the outcome.
func hostileRecord(t *testing.T) *trajlog.Record {
	t.Helper()
	var r trajlog.Record
	err := json.Unmarshal([]byte(`{"episode_id": "../play?dataset=x#top",
		"task": {"task_id": "t\"><script>alert(1)</script>", "dataset": "<svg onload=alert(2)>",
			"db_id": "db<img src=x onerror=alert(3)>", "question": "q</title><script>alert(7)</script>", "dialect": "sqlite"},
		"tags": {"<b onmouseover=alert(4)>k": "v'><script>alert(5)</script>"},
		"messages": [], "started_at": "2026-01-02T03:04:05Z", "ended_at": "2026-01-02T03:04:06Z",
		"outcome": "mismatch<script>alert(8)</script>", "max_turns": 3,
		"steps": [{"turn": 1, "tool": "execute_sql", "arguments": {"sql": "SELECT '</pre><script>alert(9)</script>'"},
			"observation": "<iframe src=javascript:alert(10)>",
			"error": {"code": "sql_error", "message": "near \"<script>alert(6)</script>\": syntax error"},
			"reward": 0, "reward_components": {"<i>x</i>": 0}, "at": "2026-01-02T03:04:06Z"}]}`), &r.Trajectory)
	if err != nil {
		t.Fatal(err)
	}
	r.Complete = true
	return &r
}

// TestHostileRecordRendersAsText serves a log holding hostileRecord and
// reads the list, the episode page, a report and a not-found page: no
// markup of the record comes through as markup, and the list's and the
// report's links to the episode keep its id as one path segment, which
// opens that episode.
func TestHostileRecordRendersAsText(t *testing.T) {
	base, _ := startConsole(t, console.Config{Store: console.ReaderStore{R: records{hostileRecord(t)}}})
	escaped := "/ui/episodes/..%2Fplay%3Fdataset=x%23top"
	pages := map[string]string{"list": "/ui/episodes", "report": "/ui/report", "episode": escaped,
		"not found": "/ui/episodes/%3Cscript%3Ealert(11)%3C%2Fscript%3E"}
	for name, path := range pages {
		resp, body := get(t, base+path)
		if (name == "not found") != (resp.StatusCode == http.StatusNotFound) {
			t.Fatalf("%s page: %s", name, resp.Status)
		}
		for _, bad := range []string{"<script", "<svg onload", "<img", "<b ", "<iframe", "<i>"} {
			if strings.Contains(body, bad) {
				i := strings.Index(body, bad)
				t.Fatalf("%s page: recorded markup %q came through as markup: …%s…", name, bad, body[max(0, i-80):min(len(body), i+80)])
			}
		}
		if (name == "list" || name == "report") && !strings.Contains(body, `href="`+escaped+`"`) {
			t.Fatalf("%s page: no link to %s (the id %q as one path segment)", name, escaped, hostileID)
		}
		if name == "episode" && !strings.Contains(body, "alert(6)") {
			t.Fatalf("episode page: the error message is not shown")
		}
	}
}

// TestPlayStepsOnlyItsOwnEpisodes starts an episode through the RPC, as
// a model's client does, and has the play page show and step it: both
// are refused, and the episode gets no step; one started on the console
// is played.
func TestPlayStepsOnlyItsOwnEpisodes(t *testing.T) {
	base, d := startConsole(t, console.Config{})
	cl, err := client.Dial(context.Background(), d.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	res, err := cl.Reset(context.Background(), schemas.ResetParams{TaskID: d.Dataset.Tasks[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	theirs := "/ui/play/" + res.EpisodeID
	if resp, body := get(t, base+theirs); resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "started elsewhere") {
		t.Fatalf("the play page of a client's episode: %s %.300q, want 404 saying why", resp.Status, body)
	}
	step := func(path string) *http.Response {
		req, _ := http.NewRequest("POST", base+path+"/step", strings.NewReader(url.Values{"tool": {"inspect_schema"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, _ := do(t, req)
		return resp
	}
	if resp := step(theirs); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a step of a client's episode from the play page: %s, want 404", resp.Status)
	}
	snap, err := d.Manager.Get(res.EpisodeID)
	if err != nil {
		t.Fatal(err)
	}
	if tr, err := snap.Trajectory(); err != nil || len(tr.Steps) != 0 {
		t.Fatalf("the client's episode after the refused step: %v steps, %v; want none", len(tr.Steps), err)
	}
	req, _ := http.NewRequest("POST", base+"/ui/play", strings.NewReader(url.Values{"task_id": {d.Dataset.Tasks[0].ID}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, _ := do(t, req)
	mine := resp.Header.Get("Location")
	if resp := step(mine); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("a step of the console's own episode: %s, want 303 back to its page", resp.Status)
	}
}

// TestPageNotTakenInIsCut asks for an episode page of many megabytes
// over a real socket and reads none of it: once the socket's buffers are
// full the write passes its timeout and the request ends.
func TestPageNotTakenInIsCut(t *testing.T) {
	r := hostileRecord(t)
	r.Steps[0].Observation = strings.Repeat("row ", 16<<20/4) // 16 MiB: past any socket buffer
	c, err := console.New(console.Config{Store: console.ReaderStore{R: records{r}}, WriteTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var done atomic.Int32
	console.AskAndNeverRead(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer done.Add(1)
		c.ServeHTTP(w, r)
	}), "/ui/episodes/"+url.PathEscape(hostileID))
	waitfor.Until(t, "the page nobody reads to be cut", func() bool { return done.Load() == 1 })
}
