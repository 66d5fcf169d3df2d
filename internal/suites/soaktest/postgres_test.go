package soaktest

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
	"github.com/sqlgym/sqlgym/schemas"
)

// The PostgreSQL soak's bounds: --pg-conns connections, each statement's
// server process held to --pg-statement-memory. The readers' processes
// together stay under pgMemoryMax: every connection at its bound, with
// the overshoot of one look (20 ms) of the memory watch.
const (
	pgConns           = 16
	pgStatementMemory = 128 << 20
	pgMemoryMax       = pgConns * (pgStatementMemory + pgStatementMemory/4)
)

// TestSoakPostgresHonestClientsAmongHostileOnes serves Spider-dev
// imported into PostgreSQL while hostile episodes try issue 19's attacks
// on it: reading other sessions' SQL and other schemas (case 1), memory
// bombs (2), durable writes (3), a second spelling of the server's URL
// (7) and runaway groups on two schemas (8). Honest clients on a third
// schema see no error, the attacks all fail as they should, and the
// server's processes stay within their bounds.
func TestSoakPostgresHonestClientsAmongHostileOnes(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak test runs for about 20 s")
	}
	dir := spiderdev.Dir(t)
	db := pgtest.Database(t)
	bin := binserver.Build(t)
	out := filepath.Join(t.TempDir(), "spider-pg")
	importSpider(t, bin, dir, db, out)
	srv := binserver.Start(t, bin, "--dataset", "spider=jsonl:"+out, "--engine", "spider="+db,
		"--dataset", "spider2=jsonl:"+out, "--engine", "spider2="+db+"&application_name=another_spelling",
		"--pg-conns", strconv.Itoa(pgConns), "--pg-statement-memory", strconv.Itoa(pgStatementMemory),
		"--data-dir", filepath.Join(t.TempDir(), "data"), "--log-format", "json", "--log-level", "warn",
		"--submit-timeout", "20s")
	tasks := tasksOf(t, srv.URL)

	ctx, cancel := context.WithTimeout(context.Background(), soakFor)
	defer cancel()
	u, err := url.Parse(db)
	if err != nil {
		t.Fatal(err)
	}
	dbName := strings.TrimPrefix(u.Path, "/")
	peaks := watchReaders(ctx, t, db, dbName)
	h := &pgHostiles{t: t, url: srv.URL}
	var hostile sync.WaitGroup
	hostile.Go(func() { h.spy(ctx, tasks["spider/world_1"][0]) })
	hostile.Go(func() { h.writes(ctx, tasks["spider/world_1"][0]) })
	for range 4 {
		hostile.Go(func() { h.bombs(ctx, tasks["spider/car_1"][0]) })
	}
	hostile.Go(func() { h.runaways(ctx, tasks["spider2/pets_1"][0], 8) })
	hostile.Go(func() { h.runaways(ctx, tasks["spider2/flight_2"][0], 8) })

	lat, errs, fewest := runHonest(ctx, t, srv.URL, tasks["spider/"+sharedDB], 2, 4)
	hostile.Wait()
	p := <-peaks

	if len(errs) > 0 {
		t.Errorf("honest clients saw %d errors among hostile ones; the first: %v", len(errs), errs[0])
	}
	if len(lat) < 100 {
		t.Fatalf("honest clients completed only %d calls in %s", len(lat), soakFor)
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	t.Logf("honest calls: %d, p50 %s, p99 %s; fewest episodes of a worker %d; readers' processes: at most %d, %d MiB together; attacks: %s",
		len(lat), lat[len(lat)/2], lat[len(lat)*99/100], fewest, p.backends, p.memory>>20, h.summary())
	if fewest < minWorkerEpisodes {
		t.Errorf("an honest worker started only %d episodes in %s: it was starved", fewest, soakFor)
	}
	if p.backends > pgConns {
		t.Errorf("the server opened %d connections to PostgreSQL for two spellings of its URL; want at most --pg-conns %d", p.backends, pgConns)
	}
	if p.memory > pgMemoryMax {
		t.Errorf("the readers' processes held %d MiB together; want under %d MiB", p.memory>>20, pgMemoryMax>>20)
	}
	h.check()
}

// importSpider imports Spider-dev into the database db with the binary,
// as a user would.
func importSpider(t *testing.T, bin, dir, db, out string) {
	t.Helper()
	cmd := exec.Command(bin, "import", "--dataset", "spider:"+dir, "--dsn", db, "--out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sqlgym import: %v\n%s", err, b)
	}
}

// tasksOf maps dataset/db_id to the ids of its tasks.
func tasksOf(t *testing.T, url string) map[string][]string {
	t.Helper()
	c, err := client.Dial(context.Background(), url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	list, err := c.Tasks(context.Background(), schemas.TasksListParams{Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, task := range list.Tasks {
		k := task.Dataset + "/" + task.DBID
		out[k] = append(out[k], task.TaskID)
	}
	return out
}

// readerPeaks are the most connections of the reader role to the
// database seen at once, and the most private memory their processes
// held together.
type readerPeaks struct {
	backends int
	memory   int64
}

// watchReaders samples the reader role's sessions on the database until
// ctx ends: their number as the server counts them, and their
// processes' private memory as this host does.
func watchReaders(ctx context.Context, t *testing.T, db, dbName string) <-chan readerPeaks {
	out := make(chan readerPeaks, 1)
	conn, err := pgx.Connect(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer conn.Close(context.Background())
		var top readerPeaks
		for ctx.Err() == nil {
			var n int
			if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
WHERE usename = 'sqlgym_reader' AND datname = current_database()`).Scan(&n); err == nil {
				top.backends = max(top.backends, n)
			}
			top.memory = max(top.memory, readersMemory(dbName))
		}
		out <- top
	}()
	return out
}

// readersMemory adds up the private memory of the reader role's server
// processes on dbName.
func readersMemory(dbName string) int64 {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var sum int64
	mark := []byte(" sqlgym_reader " + dbName + " ")
	for _, dir := range dirs {
		title, err := os.ReadFile(dir + "/cmdline")
		if err != nil || !bytes.HasPrefix(title, []byte("postgres: ")) || !bytes.Contains(title, mark) {
			continue
		}
		statm, err := os.ReadFile(dir + "/statm")
		if f := strings.Fields(string(statm)); err == nil && len(f) >= 3 {
			resident, _ := strconv.ParseInt(f[1], 10, 64)
			shared, _ := strconv.ParseInt(f[2], 10, 64)
			sum += (resident - shared) * int64(os.Getpagesize())
		}
	}
	return sum
}

// pgHostiles are the episodes that attack the PostgreSQL sandbox, and
// what their attacks got.
type pgHostiles struct {
	t   *testing.T
	url string

	mu    sync.Mutex
	got   map[string]map[string]int // attack kind -> error code ("" for none) -> count
	leaks []string                  // observations of spying statements that ran
}

// spyStatements try to read other sessions' statements (a gold being
// judged) and other tasks' schemas.
var spyStatements = []string{
	"SELECT string_agg(query, ' ## ') FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid()",
	"SELECT query FROM pg_catalog.pg_stat_activity",
	"SELECT * FROM pg_locks",
	"SELECT * FROM pg_prepared_statements",
	"SELECT query FROM pg_stat_statements",
	"SELECT * FROM concert_singer.singer",
	"SELECT database_to_xml(true, true, '')",
	"SELECT nspname FROM pg_namespace",
}

// writeStatements try to write past the rolled-back transaction.
var writeStatements = []string{
	"SELECT count(pg_logical_emit_message(false, 'x', string_agg('y', ''))) FROM generate_series(1, 1000000)",
	"SELECT txid_current()",
	"SELECT pg_stat_reset()",
	"SELECT lo_create(0)",
	"SELECT set_config('work_mem', '4GB', false)",
}

// memoryBomb builds a gigabyte in one backend (an aggregate of a
// thousand 1 MB values).
const memoryBomb = `SELECT length(string_agg(s, '')) FROM (SELECT string_agg('x', '') AS s FROM generate_series(1, 1000000)) AS a, generate_series(1, 1000)`

// spy runs the spying statements over and over.
func (h *pgHostiles) spy(ctx context.Context, task string) {
	h.loop(ctx, task, "spy", spyStatements)
}

// writes runs the writing statements over and over.
func (h *pgHostiles) writes(ctx context.Context, task string) {
	h.loop(ctx, task, "write", writeStatements)
}

// bombs runs the memory bomb over and over.
func (h *pgHostiles) bombs(ctx context.Context, task string) {
	h.loop(ctx, task, "memory", []string{memoryBomb})
}

// loop runs stmts as execute_sql steps of episodes on task until ctx
// ends, noting what each got.
func (h *pgHostiles) loop(ctx context.Context, task, kind string, stmts []string) {
	c, err := client.Dial(ctx, h.url, "")
	if err != nil {
		h.t.Errorf("%s dial: %v", kind, err)
		return
	}
	defer c.Close()
	for ctx.Err() == nil {
		turns := len(stmts) + 1
		r, err := c.Reset(ctx, schemas.ResetParams{TaskID: task, MaxTurns: &turns})
		if err != nil {
			return
		}
		for _, sql := range stmts {
			res, err := c.Step(ctx, r.EpisodeID, client.ToolCall(schemas.ToolExecuteSQL, map[string]any{"sql": sql}))
			if err != nil {
				break
			}
			h.note(kind, *res)
		}
		c.CloseEpisode(ctx, r.EpisodeID)
	}
}

// runaways submits n statements that sleep past the soak on the task's
// database at once.
func (h *pgHostiles) runaways(ctx context.Context, task string, n int) {
	submitAll(ctx, h.t, h.url, task, "SELECT pg_sleep(60)", n)
}

// note counts what one attack got, and keeps an observation that shows
// SQL of another session.
func (h *pgHostiles) note(kind string, res schemas.StepResult) {
	code := ""
	if res.Info.Error != nil {
		code = res.Info.Error.Code
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.got == nil {
		h.got = map[string]map[string]int{}
	}
	if h.got[kind] == nil {
		h.got[kind] = map[string]int{}
	}
	h.got[kind][code]++
	if code == "" && kind == "spy" {
		h.leaks = append(h.leaks, res.Observation.Content)
	}
}

// summary is what the attacks got, for the log.
func (h *pgHostiles) summary() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return fmt.Sprint(h.got)
}

// check fails the test unless every attack ran and failed as it should:
// spying and writing denied, memory bombs too large (or timed out while
// waiting for a connection the runaways and the reserve left none of).
func (h *pgHostiles) check() {
	h.mu.Lock()
	defer h.mu.Unlock()
	want := map[string][]string{"spy": {schemas.ErrCodeDenied}, "write": {schemas.ErrCodeDenied},
		"memory": {schemas.ErrCodeTooLarge, schemas.ErrCodeTimeout}}
	for kind, codes := range want {
		got := h.got[kind]
		if got[codes[0]] == 0 {
			h.t.Errorf("no %s attack got %s: %v", kind, codes[0], got)
		}
		for c, n := range got {
			if !slices.Contains(codes, c) {
				h.t.Errorf("%d %s attacks got %q, want one of %v", n, kind, c, codes)
			}
		}
	}
	for _, leak := range h.leaks {
		h.t.Errorf("a spying statement ran: %.300s", leak)
	}
}
