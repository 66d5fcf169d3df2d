package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/schemas"
)

// badSpiderDir builds a Spider-layout dataset with one task on each of a
// good database "shop", a text file "x", a real database "cut" cut to
// 4 KiB and, when withMissing, a database "gone" with no file. It returns
// the dataset folder.
func badSpiderDir(t *testing.T, withMissing bool) string {
	t.Helper()
	dir := t.TempDir()
	path := func(id string) string { return filepath.Join(dir, "database", id, id+".sqlite") }
	for _, id := range []string{"shop", "x", "cut", "gone"} {
		if err := os.MkdirAll(filepath.Dir(path(id)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	shop := `CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO item VALUES (1, 'pen'), (2, 'ink');`
	if err := sqlite.Build(context.Background(), path("shop"), shop); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path("x"), []byte("these are notes, not a database\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var big strings.Builder
	for _, table := range []string{"a", "b", "c"} {
		big.WriteString("CREATE TABLE " + table + "(id INTEGER PRIMARY KEY, v TEXT);")
		big.WriteString("INSERT INTO " + table + "(v) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40) " +
			"SELECT printf('%0500d', i) FROM n;")
	}
	if err := sqlite.Build(context.Background(), path("cut"), big.String()); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path("cut"), 4096); err != nil {
		t.Fatal(err)
	}
	ids := []string{"shop", "x", "cut"}
	if withMissing {
		ids = append(ids, "gone")
	}
	var recs []map[string]string
	for _, id := range ids {
		recs = append(recs, map[string]string{"db_id": id, "question": "q", "query": "SELECT 1"})
	}
	data, err := json.Marshal(recs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dev.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestServeRefusesBadDatabases starts serve on a dataset with a text
// file, a cut database and a missing one: it refuses to start, naming
// each bad file with what is wrong, and logs each.
func TestServeRefusesBadDatabases(t *testing.T) {
	dir := badSpiderDir(t, true)
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--dataset", "bad=spider:" + dir,
		"--data-dir", t.TempDir()}, &stdout, &stderr)
	if err == nil {
		t.Fatal("serve started on bad databases")
	}
	db := func(id string) string { return filepath.Join(dir, "database", id, id+".sqlite") }
	for _, want := range []string{
		"3 of 4 databases would not open",
		"bad/x: " + db("x") + ": file is not a database",
		"bad/cut: " + db("cut") + ": database file cut short: 4096 bytes",
		"bad/gone: " + db("gone") + ": no such file or directory",
		"--skip-db-check",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not say %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "bad/shop") {
		t.Errorf("error names the good database:\n%v", err)
	}
	if n := strings.Count(stderr.String(), "database failed the startup check"); n != 3 {
		t.Errorf("%d log lines for bad databases, want 3:\n%s", n, stderr.String())
	}
	if strings.Contains(stdout.String(), "serving") {
		t.Errorf("serve said it was serving: %s", stdout.String())
	}
}

// TestServeSkipDBCheck starts serve with --skip-db-check on a dataset
// with a text file and a cut database: it serves, a reset on the good
// database plays, and one on the text file fails saying which database
// and why, and is logged.
func TestServeSkipDBCheck(t *testing.T) {
	clearAuthEnv(t)
	dir := badSpiderDir(t, false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &signalWriter{ready: make(chan struct{}), want: "/v1/ws\n"}
	var stderr binserver.LockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--dataset", "bad=spider:" + dir,
			"--data-dir", t.TempDir(), "--skip-db-check", "--log-format", "json",
			"--shutdown-grace", "0s"}, out, &stderr) // its live episode ends at once
	}()
	select {
	case <-out.ready:
	case err := <-done:
		t.Fatalf("serve --skip-db-check: %v\n%s", err, stderr.String())
	}
	out.mu.Lock()
	url := regexp.MustCompile(`ws://\S+/v1/ws`).FindString(out.buf.String())
	out.mu.Unlock()
	c, err := client.Dial(ctx, url, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Reset(ctx, schemas.ResetParams{TaskID: "bad/0"}); err != nil {
		t.Errorf("reset on the good database: %v", err)
	}
	_, err = c.Reset(ctx, schemas.ResetParams{TaskID: "bad/1"})
	if err == nil || !strings.Contains(err.Error(), "database bad/x would not open") || !strings.Contains(err.Error(), "file is not a database") {
		t.Errorf("reset on a text file: %v, want an error naming bad/x and the cause", err)
	}
	c.Close()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
	logged := false
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, `"msg":"database would not open"`) && strings.Contains(line, `"dataset":"bad"`) &&
			strings.Contains(line, `"db_id":"x"`) && strings.Contains(line, "file is not a database") {
			logged = true
		}
	}
	if !logged {
		t.Errorf("the failed open is not logged with dataset, db_id and cause:\n%s", stderr.String())
	}
}

// TestCheckListsBadDatabases runs check on the same dataset: each bad
// database is a failing row with its cause, the good one's gold runs,
// and check exits non-zero.
func TestCheckListsBadDatabases(t *testing.T) {
	dir := badSpiderDir(t, true)
	stdout, _, err := evalCmd(t, "check", "--dataset", "bad=spider:"+dir)
	for _, want := range []string{
		"databases that would not open (3)\ndatabase  tasks  error\n",
		"\nx         1      ", "file is not a database",
		"\ncut       1      ", "database file cut short",
		"\ngone      1      ", "no such file or directory",
		"  ran ok         1\n",
		"  bad databases  3\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if err == nil || !strings.Contains(err.Error(), "3 of 4 databases would not open") || exitCode(err) != 1 {
		t.Errorf("error %v (exit %d), want 3 of 4 databases would not open, exit status 1", err, exitCode(err))
	}
}

// TestStartupCheckHidesPasswords: a database on a PostgreSQL server that
// does not answer fails the startup check, and neither the log line nor
// the summary error holds the password of the --engine URL.
func TestStartupCheckHidesPasswords(t *testing.T) {
	dir := badSpiderDir(t, false)
	const pw = "s3cretPW"
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--dataset", "bad=spider:" + dir,
		"--engine", "bad=postgres://root:" + pw + "@127.0.0.1:1/test?sslmode=disable&password=" + pw,
		"--data-dir", t.TempDir()}, &stdout, &stderr)
	if err == nil {
		t.Fatal("serve started on a server that does not answer")
	}
	out := stdout.String() + stderr.String() + err.Error()
	if !strings.Contains(out, "database failed the startup check") || !strings.Contains(err.Error(), "bad/shop: postgres://root:") {
		t.Fatalf("no startup check failure logged for bad/shop:\n%s", out)
	}
	if strings.Contains(out, pw) {
		t.Errorf("the password is in the output:\n%s", out)
	}
}
