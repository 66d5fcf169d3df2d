package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env/mysql"
	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/mysqltest"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// TestReadyzLosesTheMySQLEngine: a replica serving a MariaDB dataset
// whose server no longer lets it in (its reading account dropped, its
// connections killed) is not ready, and /readyz names the engine's check.
func TestReadyzLosesTheMySQLEngine(t *testing.T) {
	dir, url := mysqlDataset(t)
	b, err := os.ReadFile(filepath.Join(dir, "tasks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var task struct {
		DBID string `json:"db_id"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(string(b), "\n", 2)[0]), &task); err != nil {
		t.Fatal(err)
	}
	p := binserver.Start(t, binserver.Build(t), "--dataset", "my=jsonl:"+dir, "--engine", "my="+url,
		"--data-dir", t.TempDir(), "--ready-interval", "1ms")
	code, r := readiness(t, p.HTTP())
	if code != http.StatusOK || !hasCheck(r.Checks, "engine:mysql") {
		t.Fatalf("/readyz with the engine up: %d %+v", code, r)
	}
	admin := mysqltest.Admin(t)
	user := mysql.Account(mysql.DefaultAccount, task.DBID)
	if _, err := admin.Exec("DROP USER '" + user + "'@'%'"); err != nil {
		t.Fatal(err)
	}
	rows, err := admin.Query("SELECT id FROM information_schema.processlist WHERE user = ?", user)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	for _, id := range ids {
		admin.Exec("KILL " + strconv.FormatInt(id, 10)) // a connection gone meanwhile is no failure
	}
	waitfor.Until(t, "/readyz answers 503", func() bool {
		code, _ := probe(t, p.HTTP()+"/readyz")
		return code == http.StatusServiceUnavailable
	})
	_, r = readiness(t, p.HTTP())
	if why, bad := failing(r, "engine:mysql"); !bad || !strings.Contains(why, "mysql server") {
		t.Fatalf("/readyz does not say the engine is lost: %+v", r)
	}
}
