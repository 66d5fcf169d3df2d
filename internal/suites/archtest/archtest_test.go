// Package archtest checks docs/architecture.md against the code: its import
// rules on each package's imports, and the names its Glossary and Lock
// order sections point at.
package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/sqlgym/sqlgym/"

// allowed lists, for each package, the prefixes its non-test code may
// import besides the standard library.
var allowed = map[string][]string{
	"schemas":               {"github.com/invopop/jsonschema", "github.com/goccy/go-json"},
	"env/sqltext":           {},
	"reward":                {mod + "schemas", mod + "env/sqltext"},
	"env":                   {mod + "schemas"},
	"env/datasets":          {mod + "env", mod + "env/hardness"},
	"env/hardness":          {mod + "env/sqltext"},
	"env/sandbox":           {mod + "env", mod + "env/sqltext"},
	"env/mysql":             {mod + "env", mod + "env/sandbox", "github.com/go-sql-driver/mysql", "golang.org/x/text/runes", "golang.org/x/text/transform", "golang.org/x/text/unicode/norm"},
	"env/postgres":          {mod + "env", mod + "env/sandbox", mod + "env/sqltext", "github.com/jackc/pgx/v5"},
	"env/sqlite":            {mod + "env", mod + "env/sandbox", mod + "env/sqltext", mod + "schemas", mod + "base/atomicfile", "github.com/mattn/go-sqlite3"},
	"env/valueindex":        {mod + "env", mod + "env/sandbox", mod + "base/atomicfile", "github.com/agnivade/levenshtein", "github.com/mattn/go-sqlite3", "golang.org/x/text/runes", "golang.org/x/text/transform", "golang.org/x/text/unicode/norm", "github.com/jonboulle/clockwork"},
	"internal/app/dbimport": {mod + "env", mod + "env/sqltext", mod + "env/postgres", mod + "env/mysql", "github.com/go-sql-driver/mysql", mod + "reward", mod + "reward/judge", mod + "reward/testsuite", mod + "base/atomicfile", mod + "base/progress", "github.com/jackc/pgx/v5"},
	"tools":                 {mod + "env", mod + "env/sqltext", mod + "schemas", mod + "base/jsonscan", "github.com/invopop/jsonschema"},
	"reward/judge":          {mod + "env", mod + "env/sqltext", mod + "reward", mod + "schemas"},
	"reward/evaluate":       {mod + "env", mod + "env/datasets", mod + "reward", mod + "reward/judge", mod + "schemas", mod + "base/atomicfile", "golang.org/x/sync/errgroup"},
	"examples/demo":         {mod + "env", mod + "env/datasets"},
	"examples/rewards":      {mod + "reward", mod + "schemas"},
	"examples/python":       {}, // test-only: runs the Python client against a built server
	"episodes/client":       {mod + "schemas", mod + "base/corkconn", "github.com/gorilla/websocket", "github.com/goccy/go-json"},
	"episodes": {mod + "base/fairshare", mod + "env", mod + "env/sqltext", mod + "tools", mod + "reward", mod + "reward/judge",
		mod + "schemas", "go.uber.org/zap", "github.com/prometheus/client_golang", "github.com/jonboulle/clockwork", mod + "episodes/trajlog"},
	"episodes/jsonrpc": {mod + "episodes", mod + "schemas", mod + "base/jsonscan", "github.com/prometheus/client_golang",
		"golang.org/x/sync/errgroup"},
	"episodes/transport": {mod + "base/fairshare", mod + "episodes/jsonrpc", mod + "base/corkconn", "github.com/gorilla/websocket", "go.uber.org/zap",
		"github.com/prometheus/client_golang", "golang.org/x/sync/semaphore", "github.com/jonboulle/clockwork"},
	"episodes/openenv": {mod + "base/fairshare", mod + "episodes", mod + "schemas", "github.com/gorilla/websocket", "github.com/invopop/jsonschema",
		"github.com/prometheus/client_golang"},
	"episodes/mcpserver": {mod + "base/fairshare", mod + "episodes", mod + "schemas", "github.com/modelcontextprotocol/go-sdk", "go.uber.org/zap",
		"github.com/prometheus/client_golang"},
	"episodes/trajlog":         {mod + "schemas"},
	"episodes/trajlog/filelog": {mod + "episodes/trajlog", mod + "schemas", mod + "base/atomicfile", mod + "base/jsonscan", "go.uber.org/zap"},
	"episodes/trajlog/pgstore": {mod + "episodes/trajlog", mod + "schemas", "github.com/jackc/pgx/v5"},
	"episodes/replay": {mod + "env", mod + "episodes", mod + "episodes/trajlog", mod + "reward", mod + "reward/judge",
		mod + "schemas", mod + "tools", "golang.org/x/sync/errgroup"},
	"episodes/export": {mod + "episodes/trajlog", mod + "schemas", mod + "tools"},
	"internal/app/repl": {mod + "episodes/client", mod + "episodes/trajlog", mod + "episodes/trajlog/filelog", mod + "env/sqltext", mod + "schemas",
		mod + "base/atomicfile", "github.com/peterh/liner", "github.com/mattn/go-runewidth", "golang.org/x/term"},
	"internal/app/repl/local": {mod + "env", mod + "internal/app/repl", mod + "reward/judge", mod + "schemas", mod + "tools"},
	"internal/app/imagebuild": {"github.com/google/go-containerregistry"},
	"base/atomicfile":         {},
	"base/fairshare":          {},
	"base/jsonscan":           {},
	"base/corkconn":           {},
	"base/progress":           {},
	"internal/app/bench":      {mod + "episodes/client", mod + "schemas", "github.com/goccy/go-json"},
	"internal/app/baseline":   {mod + "env", mod + "internal/app/bench"},
	"internal/app/rollout": {mod + "env", mod + "episodes", mod + "episodes/client", mod + "episodes/trajlog",
		mod + "internal/app/rollout/report", mod + "schemas", mod + "tools", "github.com/cenkalti/backoff/v5",
		"golang.org/x/sync/errgroup"},
	"internal/app/stack": {mod + "env", mod + "env/valueindex", "go.uber.org/zap", "golang.org/x/sync/errgroup", mod + "env/mysql", mod + "env/postgres", mod + "env/sqlite", mod + "episodes", mod + "episodes/trajlog",
		mod + "examples/demo", mod + "reward/judge", mod + "schemas", mod + "tools", mod + "episodes/transport", "github.com/prometheus/client_golang"},
	"internal/app/console": {mod + "base/fairshare", mod + "env", mod + "reward/judge", mod + "env/sqltext", mod + "episodes", mod + "episodes/trajlog", mod + "episodes/trajlog/pgstore", mod + "base/jsonscan",
		mod + "base/atomicfile", mod + "internal/app/rollout", mod + "internal/app/rollout/report", mod + "schemas", "go.uber.org/zap", "golang.org/x/time/rate", "github.com/hashicorp/golang-lru/v2"},
	"internal/app/rollout/report": {mod + "env", mod + "env/sqltext", mod + "episodes/trajlog", mod + "schemas"},
	"reward/testsuite":            {mod + "env", mod + "reward/judge", mod + "base/atomicfile"},
	"internal/app/suitegen": {mod + "env", mod + "env/sqlite", mod + "env/sqltext", mod + "reward", mod + "reward/testsuite", mod + "schemas",
		mod + "base/atomicfile", mod + "internal/app/suitegen/dbgen", "golang.org/x/sync/errgroup"},
	"internal/app/suitegen/dbgen": {mod + "env/sqltext", "github.com/mattn/go-sqlite3"},
}

func TestImportRules(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, mod+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], mod)
		checkNoTestkit(t, pkg, fields[1:])
		if strings.HasPrefix(pkg, "cmd/") || strings.HasPrefix(pkg, "internal/") && allowed[pkg] == nil {
			continue // cmd wires everything; internal/testkit and internal/suites hold tests' code, unless it has a rule
		}
		rules, ok := allowed[pkg]
		if !ok {
			t.Errorf("package %s has no import rule: add it to docs/architecture.md and this test", pkg)
			continue
		}
		checked[pkg] = true
		for _, imp := range fields[1:] {
			if !isStdlib(imp) && !hasAnyPrefix(imp, rules) {
				t.Errorf("%s imports %s, which docs/architecture.md does not allow", pkg, imp)
			}
		}
	}
	for pkg := range allowed {
		if !checked[pkg] {
			t.Errorf("rule for %s, but no such package", pkg)
		}
	}
}

func isStdlib(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// hasAnyPrefix matches sqlgym's own packages exactly and other modules
// by prefix.
func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if s == p || !strings.HasPrefix(p, mod) && strings.HasPrefix(s, p+"/") {
			return true
		}
	}
	return false
}

// testkit is the folder of the test kits: packages that only tests import.
const testkit = mod + "internal/testkit/"

// checkNoTestkit fails when the non-test code of a package outside the
// test kits imports one of them: a kit may import another kit, and any
// package's tests may import them, but the product never does.
func checkNoTestkit(t *testing.T, pkg string, imports []string) {
	t.Helper()
	if strings.HasPrefix(mod+pkg, testkit) {
		return
	}
	for _, imp := range imports {
		if strings.HasPrefix(imp, testkit) {
			t.Errorf("%s imports the test kit %s outside its tests", pkg, imp)
		}
	}
}

// TestReadersCompileNoStore checks that the packages that only read or
// write trajectories through their vocabulary (the domain, its surfaces
// and the offline readers) depend, even through others, on no store: a
// store is any package under episodes/trajlog/, so a new backend is
// covered as it lands; cmd opens the store and passes it in.
func TestReadersCompileNoStore(t *testing.T) {
	readers := []string{"episodes", "episodes/jsonrpc", "episodes/transport", "episodes/openenv", "episodes/mcpserver",
		"episodes/export", "episodes/replay", "internal/app/rollout", "internal/app/rollout/report"}
	stores := mod + "episodes/trajlog/"
	for _, pkg := range readers {
		out, err := exec.Command("go", "list", "-deps", mod+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, stores) {
				t.Errorf("%s compiles the store %s; it should read through episodes/trajlog", pkg, dep)
			}
		}
	}
}
