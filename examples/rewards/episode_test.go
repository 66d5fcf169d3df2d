package rewards

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/examples/demo"
	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/reward/judge"
)

// TestPresetEpisodes pays the two episodes of docs/reward.md's preset
// table under each preset, judging their submissions on the demo's
// library database, and checks the totals the table states.
func TestPresetEpisodes(t *testing.T) {
	ctx := context.Background()
	ds, err := demo.Load(ctx, filepath.Join(t.TempDir(), "demo"), sqlite.Build)
	if err != nil {
		t.Fatal(err)
	}
	task, ok := ds.Task("demo/library-001")
	if !ok {
		t.Fatal("no demo/library-001")
	}
	db, err := sqlite.New(sqlite.Config{}).Open(ctx, ds.DBs[task.DBID])
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	subs := []string{
		"SELECT count(*) FROM books AS b JOIN authors AS a ON a.author_id = b.author_id WHERE a.name = 'Jane Austen'",
		"SELECT 4",
	}
	want := docTotals(t)
	j := judge.New(judge.Config{})
	for _, name := range Names() {
		spec, _ := Preset(name)
		for i, sql := range subs {
			v, err := j.Judge(ctx, db, ds.DBKey(task.DBID), task, sql, spec)
			if err != nil || v.Outcome != "correct" {
				t.Fatalf("%s: %s, %v; want correct", sql, v.Outcome, err)
			}
			l := reward.NewLedger(spec)
			l.Step(reward.TurnOK, nil) // inspect_schema
			f := v.Final()
			f.CompletionTokens = 1024
			l.Step(reward.TurnOK, &f)
			if got := l.Total(); !near(got, want[name][i]) {
				t.Errorf("%s: episode %c total %v, docs/reward.md says %v", name, 'A'+i, got, want[name][i])
			}
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// docTotals reads the totals of docs/reward.md's preset episode table.
func docTotals(t *testing.T) map[string][2]float64 {
	t.Helper()
	raw, err := os.ReadFile("../../docs/reward.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][2]float64{}
	for _, line := range strings.Split(string(raw), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 7 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		a, errA := strconv.ParseFloat(strings.TrimSpace(cells[2]), 64)
		b, errB := strconv.ParseFloat(strings.TrimSpace(cells[4]), 64)
		if errA == nil && errB == nil {
			out[strings.Trim(strings.TrimSpace(cells[1]), "`")] = [2]float64{a, b}
		}
	}
	if len(out) != len(Names()) {
		t.Fatalf("docs/reward.md's preset episode table has %d presets, want %d: %v", len(out), len(Names()), out)
	}
	return out
}
