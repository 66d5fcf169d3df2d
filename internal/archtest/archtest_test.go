// Package archtest checks the import rules of docs/architecture.md.
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
	"schemas":          {"github.com/invopop/jsonschema", "github.com/goccy/go-json"},
	"env/sqltext":      {},
	"reward":           {mod + "schemas", mod + "env/sqltext"},
	"env":              {mod + "schemas", mod + "env/hardness"},
	"env/hardness":     {mod + "env/sqltext"},
	"env/sandbox":      {mod + "env", mod + "env/sqltext"},
	"env/postgres":     {mod + "env", mod + "env/sandbox", mod + "env/sqltext", "github.com/jackc/pgx/v5"},
	"env/sqlite":       {mod + "env", mod + "env/sandbox", mod + "env/sqltext", mod + "schemas", mod + "internal/atomicfile", "github.com/mattn/go-sqlite3"},
	"env/valueindex":   {mod + "env", "github.com/agnivade/levenshtein", "github.com/mattn/go-sqlite3", "golang.org/x/text/runes", "golang.org/x/text/transform", "golang.org/x/text/unicode/norm"},
	"env/pgimport":     {mod + "env", mod + "env/sqltext", mod + "env/postgres", mod + "reward", mod + "internal/atomicfile", "github.com/jackc/pgx/v5"},
	"tools":            {mod + "env", mod + "env/sqltext", mod + "schemas", "github.com/invopop/jsonschema"},
	"reward/judge":     {mod + "env", mod + "env/sqltext", mod + "reward", mod + "schemas"},
	"reward/evaluate":  {mod + "env", mod + "reward", mod + "reward/judge", mod + "schemas", mod + "internal/atomicfile"},
	"examples/demo":    {mod + "env"},
	"examples/rewards": {mod + "reward", mod + "schemas"},
	"examples/python":  {}, // test-only: runs the Python client against a built server
	"episodes/client":  {mod + "schemas", "github.com/gorilla/websocket", "github.com/goccy/go-json"},
	"episodes": {mod + "env", mod + "env/sqltext", mod + "tools", mod + "reward", mod + "reward/judge",
		mod + "schemas", "go.uber.org/zap", "github.com/prometheus/client_golang", mod + "episodes/trajlog"},
	"episodes/rpc": {mod + "episodes", mod + "schemas", "github.com/gorilla/websocket", "go.uber.org/zap",
		"github.com/prometheus/client_golang", "golang.org/x/sync/semaphore"},
	"episodes/trajlog":         {mod + "schemas", mod + "internal/atomicfile", "go.uber.org/zap"},
	"episodes/trajlog/pgstore": {mod + "episodes/trajlog", mod + "schemas", "github.com/jackc/pgx/v5"},
	"episodes/replay": {mod + "env", mod + "episodes", mod + "episodes/trajlog", mod + "reward", mod + "reward/judge",
		mod + "schemas", mod + "tools"},
	"episodes/export": {mod + "episodes/trajlog", mod + "schemas", mod + "tools"},
	"internal/repl": {mod + "episodes/client", mod + "episodes/trajlog", mod + "env/sqltext", mod + "schemas",
		mod + "internal/atomicfile", "github.com/peterh/liner", "github.com/mattn/go-runewidth", "golang.org/x/term"},
	"internal/atomicfile": {},
	"internal/bench":      {mod + "episodes/client", mod + "schemas", "github.com/goccy/go-json"},
	"internal/baseline":   {mod + "env"},
	"internal/rollout": {mod + "env", mod + "episodes", mod + "episodes/client", mod + "episodes/trajlog",
		mod + "internal/rollout/report", mod + "schemas", mod + "tools", "github.com/cenkalti/backoff/v5"},
	"internal/rollout/report": {mod + "env/sqltext", mod + "episodes/trajlog", mod + "schemas"},
	"internal/console": {mod + "env", mod + "env/sqltext", mod + "episodes", mod + "episodes/trajlog", mod + "episodes/trajlog/pgstore",
		mod + "internal/atomicfile", mod + "internal/rollout", mod + "internal/rollout/report", mod + "schemas", "go.uber.org/zap"},
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
		if strings.HasPrefix(pkg, "cmd/") || strings.HasPrefix(pkg, "internal/") && allowed[pkg] == nil {
			continue // cmd wires everything; internal holds test helpers, unless it has a rule
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
