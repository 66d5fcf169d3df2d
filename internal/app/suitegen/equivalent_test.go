package suitegen

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env/sqltext"
	"github.com/sqlgym/sqlgym/schemas"
)

// rewrite is one line of testdata/equivalent.tsv: a query written by hand
// that returns what the gold of a Spider-dev task returns on every
// database its schema and its data's NULLs allow, and the rules it is
// judged under.
type rewrite struct {
	task  int      // the task's index in dev.json
	modes []string // schemas.MatchBird, schemas.MatchSpider
	kind  string   // what was rewritten, in a few words
	sql   string
}

// The least testdata/equivalent.tsv must hold.
const (
	minRewrites         = 60
	minRewriteDatabases = 12
	minRewriteKinds     = 20
)

// parseRewrite reads a line of the file: the task's index, the modes
// (comma-separated), the kind and the SQL, tab-separated.
func parseRewrite(line string) (rewrite, error) {
	f := strings.Split(line, "\t")
	if len(f) != 4 {
		return rewrite{}, fmt.Errorf("%d fields, want 4: task, modes, kind, sql", len(f))
	}
	task, err := strconv.Atoi(f[0])
	if err != nil || task < 0 {
		return rewrite{}, fmt.Errorf("task %q is no index", f[0])
	}
	r := rewrite{task: task, kind: strings.TrimSpace(f[2]), sql: strings.TrimSpace(f[3])}
	for m := range strings.SplitSeq(f[1], ",") {
		if m != schemas.MatchBird && m != schemas.MatchSpider {
			return rewrite{}, fmt.Errorf("mode %q: want bird or spider", m)
		}
		r.modes = append(r.modes, m)
	}
	if r.kind == "" || r.sql == "" {
		return rewrite{}, errors.New("empty kind or sql")
	}
	return r, nil
}

// readRewrites reads the rewrites of testdata/<name>; blank lines and
// lines starting with # are skipped.
func readRewrites(t testing.TB, name string) []rewrite {
	t.Helper()
	path := filepath.Join("testdata", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []rewrite
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			r, err := parseRewrite(line)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, n, err)
			}
			out = append(out, r)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkRewrites judges every rewrite of testdata/equivalent.tsv in each of
// its modes: each must be correct on its task's database (EX) and on the
// task's suite (TS). A rewrite must differ from its gold, and its task
// must have a suite, or it tests nothing.
func checkRewrites(t *testing.T, s *suiteJudging) {
	ctx := context.Background()
	rws := readRewrites(t, "equivalent.tsv")
	kinds, dbs := map[string]int{}, map[string]bool{}
	judged, passed := 0, 0
	for _, r := range rws {
		task := s.task(t, r.task)
		kinds[r.kind]++
		dbs[task.DBID] = true
		if sqltext.Normalize(r.sql) == sqltext.Normalize(task.GoldSQL) {
			t.Errorf("task %d (%s): the rewrite is the gold", r.task, r.kind)
		}
		for _, mode := range r.modes {
			v, err := s.verdict(ctx, task, r.sql, schemas.RewardSpec{Match: mode})
			if err != nil {
				t.Fatal(err)
			}
			judged += v.Suite.Judged
			switch {
			case v.ExecOutcome != schemas.OutcomeCorrect:
				t.Errorf("task %d (%s, %s): EX %s on the task's database\n  gold:    %s\n  rewrite: %s", r.task, r.kind, mode, v.ExecOutcome, task.GoldSQL, r.sql)
			case v.Suite.Databases == 0:
				t.Errorf("task %d (%s): no suite", r.task, r.kind)
			case v.Outcome != schemas.OutcomeCorrect:
				t.Errorf("task %d (%s, %s): EX %s, TS %s: told apart by %s (%s)\n  gold:    %s\n  rewrite: %s",
					r.task, r.kind, mode, v.ExecOutcome, v.Outcome, v.Suite.ToldApartBy, v.Suite.Reason, task.GoldSQL, r.sql)
			default:
				passed++
			}
		}
	}
	t.Logf("%d rewrites of %d golds over %d databases, %d kinds: %d judgements correct on the task's database and its suite (%d suite databases run); by kind: %s",
		len(rws), len(distinctTasks(rws)), len(dbs), len(kinds), passed, judged, kindCounts(kinds))
	if len(rws) < minRewrites || len(dbs) < minRewriteDatabases || len(kinds) < minRewriteKinds {
		t.Errorf("%d rewrites over %d databases of %d kinds; want %d, %d and %d or more",
			len(rws), len(dbs), len(kinds), minRewrites, minRewriteDatabases, minRewriteKinds)
	}
}

// distinctTasks are the tasks the rewrites rewrite.
func distinctTasks(rws []rewrite) map[int]bool {
	out := map[int]bool{}
	for _, r := range rws {
		out[r.task] = true
	}
	return out
}

// kindCounts lists the kinds and their counts, sorted.
func kindCounts(kinds map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, kinds[k]))
	}
	return strings.Join(parts, "; ")
}

// checkNearMisses judges every near miss of testdata/near_misses.tsv in
// each of its modes: each must be correct on its task's database (EX:
// one database pays it) and told apart by the task's suite (TS).
func checkNearMisses(t *testing.T, s *suiteJudging) {
	ctx := context.Background()
	caught := 0
	for _, r := range readRewrites(t, "near_misses.tsv") {
		task := s.task(t, r.task)
		for _, mode := range r.modes {
			v, err := s.verdict(ctx, task, r.sql, schemas.RewardSpec{Match: mode})
			if err != nil {
				t.Fatal(err)
			}
			if v.ExecOutcome != schemas.OutcomeCorrect || v.Outcome != schemas.OutcomeMismatch {
				t.Errorf("task %d (%s, %s): EX %s, TS %s; want correct and mismatch\n  rewrite: %s", r.task, r.kind, mode, v.ExecOutcome, v.Outcome, r.sql)
				continue
			}
			caught++
			t.Logf("task %d (%s, %s): told apart by %s", r.task, r.kind, mode, v.Suite.ToldApartBy)
		}
	}
	t.Logf("%d near-miss judgements paid by the task's database and told apart by its suite", caught)
}

// FuzzParseRewrite reads arbitrary text as a line of equivalent.tsv:
// nothing panics, and a line it accepts holds what was read, written back
// in the file's form, reads back the same.
func FuzzParseRewrite(f *testing.F) {
	for _, line := range []string{
		"0\tbird,spider\tcount(*) as count(1)\tSELECT count(1) FROM singer",
		"12\tspider\tsubquery as CTE\tWITH a AS (SELECT 1) SELECT * FROM a",
		"3\tbird\t\tSELECT 1", "-1\tbird\tk\tSELECT 1", "1\ttolerant\tk\tSELECT 1",
		"1\tbird,\tk\tSELECT 1", "x\tbird\tk\tq", "1\tbird\tk", "1\tbird\tk\tq\textra", "",
	} {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, err := parseRewrite(line)
		if err != nil {
			return
		}
		if r.task < 0 || r.kind == "" || r.sql == "" || len(r.modes) == 0 {
			t.Fatalf("%q read as %+v", line, r)
		}
		back := strconv.Itoa(r.task) + "\t" + strings.Join(r.modes, ",") + "\t" + r.kind + "\t" + r.sql
		again, err := parseRewrite(back)
		if err != nil || !slices.Equal(again.modes, r.modes) || again.task != r.task || again.kind != r.kind || again.sql != r.sql {
			t.Fatalf("%q read as %+v, written back as %q, read again as %+v (%v)", line, r, back, again, err)
		}
	})
}
