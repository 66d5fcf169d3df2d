package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
)

// checkSpiderDir builds a Spider-layout dataset over one database "shop"
// with the given golds, and returns its --dataset value.
func checkSpiderDir(t *testing.T, golds ...string) string {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "database", "shop", "shop.sqlite")
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil {
		t.Fatal(err)
	}
	script := `CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL);
		INSERT INTO item VALUES (1, 'pen', 1.5), (2, 'ink', 3.0), (3, 'pad', 2.0);`
	if err := sqlite.Build(context.Background(), db, script); err != nil {
		t.Fatal(err)
	}
	type rec struct {
		DBID     string `json:"db_id"`
		Question string `json:"question"`
		Query    string `json:"query"`
	}
	var recs []rec
	for _, g := range golds {
		recs = append(recs, rec{DBID: "shop", Question: "q", Query: g})
	}
	data, err := json.Marshal(recs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dev.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return "shop=spider:" + dir
}

func TestCheckCommand(t *testing.T) {
	const (
		ok      = "SELECT count(*) FROM item"
		broken  = "SELECT nope FROM item"
		forever = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n"
		// slow takes tens of milliseconds on a quiet machine, and stays under
		// the gold timeout on a loaded one.
		slow  = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000) SELECT max(i) FROM n"
		empty = "SELECT name FROM item WHERE price > 100"
	)
	tests := []struct {
		name     string
		golds    []string
		want     []string
		wantErr  string
		exitCode int
	}{
		{
			name:  "broken, timed out, slow and empty golds",
			golds: []string{ok, broken, forever, slow, empty},
			want: []string{
				"gold errors (1)\ntask    database  error\nshop/1  shop      no such column: nope\n",
				"gold timeouts (1, over 3s)\ntask    database\nshop/2  shop\n",
				"empty golds (1)\ntask    database  time\nshop/4  shop",
				"slow golds (1, over 20ms)\ntask    database  time",
				"\nshop/3  shop",
				"shop: 5 tasks\n  ran ok         3\n  given as rows  0\n  errors         1\n  timeouts       1\n  empty          1\n  slow           1\n  slowest",
			},
			wantErr:  "check shop: 2 of 5 golds failed (1 errors, 1 timeouts)",
			exitCode: 1,
		},
		{
			name:  "empty gold alone passes",
			golds: []string{ok, empty},
			want:  []string{"empty golds (1)", "  errors         0\n  timeouts       0\n  empty          1\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, err := evalCmd(t, "check", "--dataset", checkSpiderDir(t, tt.golds...), "--gold-timeout", "3s", "--slow", "20ms")
			for _, w := range tt.want {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			if strings.TrimSpace(progressLine.ReplaceAllString(stderr, "")) != "" {
				t.Errorf("stderr holds more than progress lines off a terminal: %q", stderr)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("error = %v, want none", err)
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
			if got := exitCode(err); got != tt.exitCode {
				t.Errorf("exit code %d, want %d", got, tt.exitCode)
			}
		})
	}
}

func TestCheckCommandUsage(t *testing.T) {
	for _, args := range [][]string{
		{"check"},
		{"check", "--dataset", "spider:x", "--slow", "0s"},
		{"check", "--dataset", "spider:x", "--workers", "0"},
		{"check", "--dataset", "nope"},
	} {
		_, _, err := evalCmd(t, args...)
		if err == nil || exitCode(err) != 2 {
			t.Errorf("%v: error %v, want a usage error (exit status 2)", args, err)
		}
	}
}

func TestCheckSpiderDev(t *testing.T) {
	dir := spiderdev.Dir(t)
	stdout, _, err := evalCmd(t, "check", "--dataset", "spider:"+dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := "spider-dev: 972 tasks\n  ran ok         972\n"; !strings.Contains(stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout)
	}
}

// progressLine is a line of progress off a terminal: what a run that
// takes a while writes to stderr at each tenth of its work.
var progressLine = regexp.MustCompile(`(?m)^[a-z]+ \d+/\d+$`)
