package console_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/internal/app/console"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
	"github.com/sqlgym/sqlgym/internal/testkit/testserver"
	"github.com/sqlgym/sqlgym/schemas"
)

// hostile is recorded text that would run script if a page rendered it
// as markup: the pages must show it as text.
const (
	hostileTag  = `<script>document.title="pwned-tag"</script>`
	hostileLink = `javascript:document.title="pwned-link"`
	hostileText = `<img src=x onerror="document.title='pwned-img'"> and a ` + "\u202e" + `reversed` + "\u202c" + ` word`
	hostileSQL  = "SELECT '<script>document.title=\"pwned-sql\"</script>\u202e' AS x FROM singer"
)

// recorded is a server that has recorded real Spider-dev episodes, with
// the console mounted as sqlgym serve mounts it.
type recorded struct {
	*testserver.Demo
	URL     string // http://127.0.0.1:PORT
	DB      string // the database whose episodes failed and passed
	Failed  string // the id of a mismatched episode of DB
	Correct string // the id of a correct episode of DB
	Hostile string // the id of the episode of hostile content
	Task    *env.Task
	Live    *console.Live  // counts what the server does, as serve's does
	Ticks   chan time.Time // the live page's ticks: the test sends them
	Client  *client.Client // a client of the server
	Dataset *env.Dataset   // Spider-dev
}

// startRecorded serves Spider-dev with the console under /ui (behind
// token, when given) and plays episodes: correct and mismatched ones on
// concert_singer in runs r1 and r2, a failed one on another database, and
// one of hostile content.
func startRecorded(t *testing.T, token string) *recorded {
	t.Helper()
	ds, err := datasets.LoadSpider("spider", spiderdev.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	live := console.NewLive(console.LiveConfig{MaxSubscribers: 2})
	ticks := make(chan time.Time)
	ctx, cancel := context.WithCancel(context.Background())
	go live.Run(ctx, ticks)
	t.Cleanup(cancel)
	var h atomic.Pointer[console.Console]
	mount := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.Load().ServeHTTP(w, r) })
	tap := func(cfg *episodes.Config, _ string) { cfg.Recorder = live.Tap(cfg.Recorder) }
	d := testserver.StartDemo(t, testserver.DemoOptions{Dataset: ds, Config: tap, Options: testserver.Options{Server: func(c *transport.ServerConfig) {
		c.Token = token
		c.Mounts = append(c.Mounts, transport.Mount{Prefix: console.Prefix, Handler: mount, OwnLogin: true})
	}}})
	cat := env.NewCatalog(sqlite.New(sqlite.Config{}))
	t.Cleanup(func() { cat.Close() })
	c, err := console.New(console.Config{Store: console.ReaderStore{R: d.Log}, Token: token, Live: live,
		Player: console.ManagerPlayer{M: d.Manager},
		Golds:  &console.DatasetGolds{Catalog: cat, Datasets: []*env.Dataset{ds}}})
	if err != nil {
		t.Fatal(err)
	}
	h.Store(c)
	rec := &recorded{Demo: d, URL: d.HTTP.URL, DB: "concert_singer", Live: live, Ticks: ticks, Dataset: ds}
	cl, err := client.Dial(context.Background(), d.URL, token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	rec.Client = cl
	rec.play(t, cl, ds)
	return rec
}

// play records the episodes startRecorded promises.
func (rec *recorded) play(t *testing.T, cl *client.Client, ds *env.Dataset) {
	var mine []*env.Task
	var other *env.Task
	for i := range ds.Tasks {
		switch task := &ds.Tasks[i]; {
		case task.DBID == rec.DB && len(mine) < 3:
			mine = append(mine, task)
		case task.DBID != rec.DB && other == nil:
			other = task
		}
	}
	rec.Task = mine[0]
	rec.Correct = episode(t, cl, mine[0], `{"run":"r1"}`, nil, mine[0].GoldSQL)
	rec.Failed = episode(t, cl, mine[1], `{"run":"r1"}`, nil, "SELECT name FROM singer LIMIT 2")
	episode(t, cl, mine[2], `{"run":"r2"}`, nil, mine[2].GoldSQL)
	episode(t, cl, mine[1], `{"run":"r2"}`, nil, mine[1].GoldSQL)
	episode(t, cl, other, `{"run":"r1"}`, nil, "SELECT 1")
	tags, _ := json.Marshal(map[string]string{"run": "r3", "note": hostileTag, "link": hostileLink})
	text := hostileText
	rec.Hostile = episode(t, cl, mine[0], string(tags), &text, hostileSQL)
}

// episode plays one: a look at the rows with execute_sql, then a submit
// of sql; text, when given, is the model's words beside the first call.
// It returns the episode's id.
func episode(t *testing.T, cl *client.Client, task *env.Task, tags string, text *string, sql string) string {
	t.Helper()
	ctx := context.Background()
	res, err := cl.Reset(ctx, schemas.ResetParams{TaskID: task.ID, Dataset: task.Dataset, Tags: json.RawMessage(tags)})
	if err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]string{"sql": sql})
	first := schemas.Action{Tool: "execute_sql", Arguments: args}
	if text != nil {
		msg := *text + "\n<tool_call>" + `{"name": "execute_sql", "arguments": ` + string(args) + "}</tool_call>"
		first = schemas.Action{Text: &msg}
	}
	if _, err := cl.Step(ctx, res.EpisodeID, first); err != nil {
		t.Fatal(err)
	}
	sr, err := cl.Step(ctx, res.EpisodeID, schemas.Action{Tool: "submit", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if !sr.Terminated {
		t.Fatalf("episode %s: the submit did not end it", res.EpisodeID)
	}
	return res.EpisodeID
}

// get fetches path with the cookies given, not following redirects.
func get(t *testing.T, url string, cookies ...*http.Cookie) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for _, c := range cookies {
		req.AddCookie(c)
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (*http.Response, string) {
	t.Helper()
	cl := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := cl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp, b.String()
}

func getenv(k string) string { return os.Getenv(k) }
