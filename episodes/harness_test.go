package episodes_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/internal/testkit/testserver"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// shopSQL is the fixture database of these tests.
const shopSQL = `
CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL, category TEXT);
INSERT INTO items VALUES (1,'pen',1.5,'office'),(2,'desk',120.0,'furniture'),(3,'lamp',35.0,'furniture'),
  (4,'ink',NULL,'office'),(5,'chair',80.0,'furniture');
CREATE TABLE one(x INTEGER);
INSERT INTO one VALUES (1);
`

// shopTasks covers every outcome: good golds, a broken gold, a slow gold.
var shopTasks = []env.Task{
	{ID: "t/count", DBID: "shop", Question: "How many items are there?", GoldSQL: "SELECT count(*) FROM items"},
	{ID: "t/names", DBID: "shop", Question: "Furniture names by price.", GoldSQL: "SELECT name FROM items WHERE category = 'furniture' ORDER BY price"},
	{ID: "t/broken", DBID: "shop", Question: "A task whose gold fails.", GoldSQL: "SELECT nope FROM items"},
	{ID: "t/slow", DBID: "shop", Question: "A task whose gold never ends.",
		GoldSQL: "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT count(*) FROM r"},
	{ID: "t/answer", DBID: "shop", Question: "The cheapest item's name (gold given as rows).", GoldRows: [][]any{{"pen"}}},
}

// harness is a real server on a real socket over a real SQLite file.
type harness struct {
	t   testing.TB
	mgr *episodes.Manager
	srv *transport.Server
	hs  *httptest.Server
	url string
	dir string
	log *filelog.Log // the trajectory log the server records to
}

type options struct {
	engines func(*stack.EngineConfig) // changes the runner's and judge's bounds before the stack is built
	cfg     func(*episodes.Config)
	server  func(*transport.ServerConfig)
	limits  schemas.Limits // the dispatcher's limits (zero: defaults)
	run     bool           // run the idle sweeper
}

// fileLogged is an options.cfg that records into a file log of its own,
// set in *rec for a test that closes it under the Manager.
func fileLogged(t testing.TB, rec **filelog.Log) func(*episodes.Config) {
	return func(c *episodes.Config) {
		var err error
		if *rec, err = filelog.Open(t.TempDir(), filelog.Options{}); err != nil {
			t.Fatal(err)
		}
		c.Recorder = *rec
	}
}

func newHarness(t testing.TB, o options) *harness {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "shop.sqlite")
	if err := sqlite.Build(ctx, path, shopSQL); err != nil {
		t.Fatal(err)
	}
	ds := &env.Dataset{Name: "t", Dialect: "sqlite", DBs: map[string]string{"shop": path}}
	for _, task := range shopTasks {
		task.Dataset = "t"
		ds.Tasks = append(ds.Tasks, task)
	}
	if err := ds.Index(); err != nil {
		t.Fatal(err)
	}
	return startHarness(t, o, dir, ds)
}

func startHarness(t testing.TB, o options, dir string, dss ...*env.Dataset) *harness {
	t.Helper()
	rec, err := filelog.Open(filepath.Join(dir, "data"), filelog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ec := stack.EngineConfig{Runner: tools.Config{QueryTimeout: time.Second},
		Judge: judge.Config{PredTimeout: 2 * time.Second, GoldTimeout: 2 * time.Second}}
	if o.engines != nil {
		o.engines(&ec)
	}
	st := stack.New(ec, rec, dss...)
	t.Cleanup(func() { st.Close() }) // after the server has stopped
	cfg := st.Config()
	cfg.Version = "test"
	if o.cfg != nil {
		o.cfg(&cfg)
	}
	ts := testserver.Start(t, cfg, testserver.Options{Server: o.server, Limits: o.limits})
	if o.run {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); ts.Manager.Run(ctx) }()
		t.Cleanup(func() { cancel(); <-done })
	}
	return &harness{t: t, mgr: ts.Manager, srv: ts.Server, hs: ts.HTTP, dir: dir, log: rec, url: ts.URL}
}

// dial opens a client socket, closed at the end of the test.
func (h *harness) dial() *client.Client {
	h.t.Helper()
	c, err := client.Dial(context.Background(), h.url, "")
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { c.Close() })
	return c
}

// reset starts an episode of the task and fails the test on error.
func reset(t testing.TB, c *client.Client, p schemas.ResetParams) *schemas.ResetResult {
	t.Helper()
	r, err := c.Reset(context.Background(), p)
	if err != nil {
		t.Fatalf("reset %+v: %v", p, err)
	}
	return r
}

// step runs an action and fails the test on a JSON-RPC error.
func step(t *testing.T, c *client.Client, id string, a schemas.Action) *schemas.StepResult {
	t.Helper()
	r, err := c.Step(context.Background(), id, a)
	if err != nil {
		t.Fatalf("step %s: %v", id, err)
	}
	return r
}

func execSQL(sql string) schemas.Action {
	return client.ToolCall(schemas.ToolExecuteSQL, map[string]any{"sql": sql})
}

func submitSQL(sql string) schemas.Action {
	return client.ToolCall(schemas.ToolSubmit, map[string]any{"sql": sql})
}

// rpcCode returns the JSON-RPC error code of err, or 0.
func rpcCode(err error) int {
	if e, ok := err.(*schemas.Error); ok {
		return e.Code
	}
	return 0
}

// recorded reads the ended episodes back from the trajectory log, one
// JSON trajectory record per line.
func (h *harness) recorded() []byte {
	var b []byte
	err := h.log.Episodes(context.Background(), trajlog.Filter{}, func(r *trajlog.Record) error {
		line, err := json.Marshal(&r.Trajectory)
		b = append(append(b, line...), '\n')
		return err
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return b
}

// trajectory returns the trajectory Manager.Get finds for the episode.
func (h *harness) trajectory(id string) (*schemas.Trajectory, error) {
	s, err := h.mgr.Get(id)
	if err != nil {
		return nil, err
	}
	return s.Trajectory()
}
