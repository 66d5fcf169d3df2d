package soaktest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sqlgym/sqlgym/env/mysql"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/internal/app/dbimport"
	"github.com/sqlgym/sqlgym/internal/testkit/mysqltest"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
	"github.com/sqlgym/sqlgym/schemas"
)

// sharesTasks writes a JSONL dataset of one task ("SELECT 1") on each of
// sharesDBs' Spider databases, named ids, and returns its path.
func sharesTasks(t *testing.T, ids []string) string {
	t.Helper()
	dir := spiderdev.Dir(t)
	var b strings.Builder
	for i, db := range sharesDBs {
		line, err := json.Marshal(map[string]any{"task_id": fmt.Sprintf("shares-%d", i), "db_id": ids[i],
			"question": "One.", "gold_sql": "SELECT 1",
			"db_path": filepath.Join(dir, "database", db, db+".sqlite")})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "tasks.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// serveSQLite serves the soak's databases from Spider-dev's files.
func serveSQLite(t *testing.T, bin string) ([]string, []string) {
	return []string{"--dataset", "shares=jsonl:" + sharesTasks(t, sharesDBs),
		"--db-running", sharesMax, "--db-conns", sharesPerDB}, sharesDBs
}

// servePostgres imports the soak's databases into a new PostgreSQL
// database, as a user would, and serves them from there.
func servePostgres(t *testing.T, bin string) ([]string, []string) {
	db := pgtest.Database(t)
	out := filepath.Join(t.TempDir(), "shares-pg")
	importInto(t, bin, sharesTasks(t, sharesDBs), db, out)
	return []string{"--dataset", "shares=jsonl:" + out, "--engine", "shares=" + db,
		"--pg-conns", sharesMax, "--pg-schema-conns", sharesPerDB}, sharesDBs
}

// serveMariaDB imports the soak's databases into MariaDB under names of
// this run's own, and serves them from there; they are dropped when the
// test ends.
func serveMariaDB(t *testing.T, bin string) ([]string, []string) {
	url, name := mysqltest.ServerURL(t), mysqltest.Name()
	var ids []string
	for i := range sharesDBs {
		id := fmt.Sprintf("%s_%d", name, i)
		ids = append(ids, id)
		dropAfter(t, id)
	}
	out := filepath.Join(t.TempDir(), "shares-mysql")
	importInto(t, bin, sharesTasks(t, ids), url, out)
	return []string{"--dataset", "shares=jsonl:" + out, "--engine", "shares=" + url,
		"--mysql-conns", sharesMax, "--mysql-db-conns", sharesPerDB}, ids
}

// importInto runs sqlgym import of the JSONL dataset at tasks into the
// server at url, writing the served dataset to out.
func importInto(t *testing.T, bin, tasks, url, out string) {
	t.Helper()
	cmd := exec.Command(bin, "import", "--dataset", "shares=jsonl:"+tasks, "--engine", url, "--out", out,
		"--data-dir", filepath.Join(t.TempDir(), "data"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sqlgym import: %v\n%s", err, b)
	}
}

// dropAfter drops the MariaDB database db, its account and the import's
// note of it when the test ends.
func dropAfter(t *testing.T, db string) {
	t.Helper()
	mysqltest.DropUser(t, mysql.Account(mysql.DefaultAccount, db))
	admin := mysqltest.Admin(t)
	t.Cleanup(func() {
		for _, q := range []string{"DROP DATABASE IF EXISTS " + mysql.QuoteIdent(db),
			"DELETE FROM " + mysql.QuoteIdent(dbimport.ImportDatabase) + ".imported WHERE db = '" + db + "'"} {
			if _, err := admin.Exec(q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	})
}

// submitGroup submits sql in n episodes of one group (tags.group) on
// task at once, and returns when they have all ended or ctx has.
func submitGroup(ctx context.Context, t *testing.T, url, task, sql string, n int) {
	c, err := client.Dial(ctx, url, "")
	if err != nil {
		t.Errorf("hostile dial: %v", err)
		return
	}
	defer c.Close()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			r, err := c.Reset(ctx, schemas.ResetParams{TaskID: task, Tags: []byte(`{"group":"hostile"}`)})
			if err != nil {
				return
			}
			c.Step(ctx, r.EpisodeID, client.ToolCall(schemas.ToolSubmit, map[string]any{"sql": sql}))
		})
	}
	wg.Wait()
}

// playHonest plays honestEpisodes episodes on task, one after another,
// each running a statement and submitting one, and fails t on any error:
// every statement must start within its own timeout.
func playHonest(t *testing.T, url, task, db string) {
	ctx := context.Background()
	c, err := client.Dial(ctx, url, "")
	if err != nil {
		t.Errorf("honest dial: %v", err)
		return
	}
	defer c.Close()
	for i := range honestEpisodes {
		r, err := c.Reset(ctx, schemas.ResetParams{TaskID: task})
		if err != nil {
			t.Errorf("honest reset on %s: %v", db, err)
			return
		}
		for _, a := range []schemas.Action{
			client.ToolCall(schemas.ToolExecuteSQL, map[string]any{"sql": fmt.Sprintf("SELECT %d", i)}),
			client.ToolCall(schemas.ToolSubmit, map[string]any{"sql": "SELECT 1"}),
		} {
			res, err := c.Step(ctx, r.EpisodeID, a)
			if err == nil && res.Info.Error != nil {
				err = fmt.Errorf("%s: %s", res.Info.Error.Code, res.Info.Error.Message)
			}
			if err != nil {
				t.Errorf("honest %s on %s, beside the hostile group: %v", a.Tool, db, err)
				return
			}
		}
	}
}
