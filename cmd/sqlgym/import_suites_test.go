package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// TestImportCarriesTestSuites builds the suites of a small dataset, imports
// it into PostgreSQL with them, and evaluates on the server the two
// predictions its one database pays by chance: eval finds the carried
// suites, and TS tells both apart there as it does on SQLite.
func TestImportCarriesTestSuites(t *testing.T) {
	dsn := pgtest.Database(t)
	dataset, dataDir := singersDataset(t), t.TempDir()
	if _, errOut, err := evalCmd(t, "testsuite", "build", "--dataset", dataset, "--data-dir", dataDir, "--candidates", "40", "--workers", "1"); err != nil {
		t.Fatalf("build: %v\n%s", err, errOut)
	}
	out := filepath.Join(t.TempDir(), "singers-pg")
	stdout := mustRun(t, "import", "--dataset", dataset, "--engine", dsn, "--out", out, "--data-dir", dataDir)
	for _, want := range []string{"test suites: ", "0 databases without suites, 0 stale",
		"test suites carried for 1 databases into " + filepath.Join(dataDir, "testsuites", "singers-pg")} {
		if !strings.Contains(stdout, want) {
			t.Errorf("import printed no %q:\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(dataDir, "testsuites", "singers-pg", "singers", "manifest.json")); err != nil {
		t.Errorf("no carried manifest: %v", err)
	}
	preds := evalWrite(t, "pred.sql", "SELECT id FROM singer WHERE age > 35\nSELECT count(*) FROM singer WHERE country LIKE 'Fr%'\n")
	outEval, errOut, err := evalCmd(t, "eval", "--dataset", "singers-pg=jsonl:"+out, "--engine", "singers-pg="+dsn,
		"--data-dir", dataDir, "--judge", "suite", "--predictions", preds, "--out", filepath.Join(t.TempDir(), "v.jsonl"))
	if err != nil {
		t.Fatalf("eval on the server: %v\n%s", err, errOut)
	}
	if !strings.Contains(outEval, "EX 1.000 (2/2)\nTS 0.000 (0/2)\n") {
		t.Errorf("eval on the server printed:\n%s", outEval)
	}
}

// TestImportWithoutSuitesSaysHow imports a dataset that has no suites and
// says how to carry some.
func TestImportWithoutSuitesSaysHow(t *testing.T) {
	dsn := pgtest.Database(t)
	dataset, dataDir := singersDataset(t), t.TempDir()
	out := filepath.Join(t.TempDir(), "singers-pg")
	stdout := mustRun(t, "import", "--dataset", dataset, "--engine", dsn, "--out", out, "--data-dir", dataDir)
	if !strings.Contains(stdout, "no test suites of singers in "+filepath.Join(dataDir, "testsuites")+" to carry (sqlgym testsuite build") {
		t.Errorf("import printed:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "testsuites", "singers-pg")); !os.IsNotExist(err) {
		t.Errorf("suites written for a dataset without any: %v", err)
	}
}
