package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// TestImportServeHint: import's closing line gives the whole serve
// command, --engine with the server included (its password left out),
// and that command's flags load the imported dataset on PostgreSQL; the
// files it writes are 0644, as shared data is.
func TestImportServeHint(t *testing.T) {
	dsn := pgtest.Database(t)
	ds := checkSpiderDir(t, "SELECT count(*) FROM item", "SELECT name FROM item ORDER BY price")
	out := filepath.Join(t.TempDir(), "shop-pg")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"import", "--dataset", ds, "--engine", dsn, "--out", out, "--role", "sqlgym_test_hint"}, &stdout, &stderr)
	dropRole(t, dsn, "sqlgym_test_hint")
	if err != nil {
		t.Fatalf("import: %v\n%s", err, &stderr)
	}
	want := "sqlgym serve --dataset shop-pg=jsonl:" + out + " --engine shop-pg=" + dsn
	_, cmd, ok := strings.Cut(stdout.String(), want)
	if !ok {
		t.Fatalf("stdout lacks %q:\n%s", want, &stdout)
	}
	cmd = want + strings.SplitN(cmd, "\n", 2)[0]
	if !strings.Contains(cmd, "(serve reads as the role sqlgym_reader; this import granted sqlgym_test_hint)") {
		t.Errorf("the hint does not say the role differs: %s", cmd)
	}
	args := strings.Fields(strings.TrimPrefix(want, "sqlgym serve "))
	s := parseStack(t, append(args, "--data-dir", t.TempDir())...)
	if err := s.check(); err != nil {
		t.Fatal(err)
	}
	dss, err := s.loadDatasets(context.Background())
	if err != nil || len(dss) != 1 || dss[0].Dialect != env.Postgres || len(dss[0].Tasks) != 2 {
		t.Fatalf("the hint's flags load %v, %v; want one PostgreSQL dataset of 2 tasks", dss, err)
	}
	for _, name := range []string{"tasks.jsonl", "report.json", "report.txt"} {
		info, err := os.Stat(filepath.Join(out, name))
		if err != nil || info.Mode().Perm() != 0o644 {
			t.Errorf("%s: %v, mode %v; want 0644", name, err, info.Mode().Perm())
		}
	}
}

// TestImportHintLeavesOutThePassword: the serve command printed after an
// import never shows the --engine URL's password (serve logs in as the read-only
// role and drops it).
func TestImportHintLeavesOutThePassword(t *testing.T) {
	f := importFlags{dsn: "postgres://admin:s3cret@db.example:5432/sqlgym?sslmode=disable", out: "/data/spider-pg", role: "sqlgym_reader"}
	got := f.serveCommand()
	want := "sqlgym serve --dataset spider-pg=jsonl:/data/spider-pg --engine spider-pg=postgres://admin@db.example:5432/sqlgym?sslmode=disable"
	if got != want {
		t.Errorf("serveCommand() = %q, want %q", got, want)
	}
}
