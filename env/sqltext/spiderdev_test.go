package sqltext_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/env/sqltext"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
)

// devExtra is how many rows past its window a gold's probe reads: more
// than any Spider-dev result holds, so every tie at a cut is read whole.
const devExtra = 1 << 20

// devGold is a question of Spider-dev's dev.json, as far as these tests
// read it.
type devGold struct {
	Query string `json:"query"`
	DBID  string `json:"db_id"`
}

// devGolds reads the shared dev.json.
func devGolds(t *testing.T, dir string) []devGold {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golds []devGold
	if err := json.Unmarshal(data, &golds); err != nil {
		t.Fatal(err)
	}
	if len(golds) != spiderdev.Tasks {
		t.Fatalf("dev.json holds %d questions, want %d", len(golds), spiderdev.Tasks)
	}
	return golds
}

// devDBs opens the Spider-dev databases as the golds name them, each
// once and read-only; they are closed when the test ends.
type devDBs struct {
	t    *testing.T
	dir  string
	eng  *sqlite.Engine
	open map[string]env.DB // by db_id
}

// newDevDBs opens the databases under dir, the Spider-dev folder.
func newDevDBs(t *testing.T, dir string) *devDBs {
	return &devDBs{t: t, dir: dir, eng: sqlite.New(sqlite.Config{}), open: map[string]env.DB{}}
}

// db returns the database id, opening it on first use.
func (d *devDBs) db(id string) env.DB {
	if db, ok := d.open[id]; ok {
		return db
	}
	db, err := d.eng.Open(context.Background(), filepath.Join(d.dir, "database", id, id+".sqlite"))
	if err != nil {
		d.t.Fatal(err)
	}
	d.t.Cleanup(func() { db.Close() })
	d.open[id] = db
	return db
}

// devRun runs q and returns its result, failing the test on an error.
func devRun(t *testing.T, db env.DB, q string) *env.ResultSet {
	t.Helper()
	rs, err := db.Query(context.Background(), q, env.Limits{Timeout: time.Minute})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if rs.Truncated {
		t.Fatalf("%s: result truncated", q)
	}
	return rs
}

// devStats counts what the golds showed.
type devStats struct {
	ordered  int // golds with a top-level ORDER BY or a window that cuts
	within   int // of them, those whose rows tie inside the window only: one set of rows, in more than one order
	atCut    int // those whose rows tie across the window's end: more than one set of rows
	sameText int // terms whose added column was compared with the output column they repeat
	starred  int // golds whose columns OutputCount cannot count (a *)
}

func TestSpiderDevTopOrderAndOutputCount(t *testing.T) {
	dir := spiderdev.Dir(t)
	dbs := newDevDBs(t, dir)
	var st devStats
	for i, g := range devGolds(t, dir) {
		if _, ok := sqltext.TopOrder(g.Query); !ok {
			t.Errorf("gold %d: TopOrder cannot read %q", i, g.Query)
		}
		n, ok := sqltext.OutputCount(g.Query)
		if !ok {
			st.starred++
			if !strings.Contains(g.Query, "*") {
				t.Errorf("gold %d: OutputCount cannot count %q", i, g.Query)
			}
			continue
		}
		if rs := devRun(t, dbs.db(g.DBID), g.Query); n != len(rs.Columns) {
			t.Errorf("gold %d: OutputCount = %d, the gold returns %d columns: %q", i, n, len(rs.Columns), g.Query)
		}
	}
	t.Logf("OutputCount counted the columns of every gold but %d holding a *", st.starred)
}

func TestSpiderDevTieProbes(t *testing.T) {
	dir := spiderdev.Dir(t)
	dbs := newDevDBs(t, dir)
	var st devStats
	for i, g := range devGolds(t, dir) {
		o, _ := sqltext.TopOrder(g.Query)
		if len(o.Terms) == 0 && !o.Window.Cuts() {
			continue
		}
		st.ordered++
		p, ok := sqltext.TieProbe(g.Query, devExtra)
		if !ok {
			t.Errorf("gold %d: no probe for %q", i, g.Query)
			continue
		}
		if err := checkDevGold(t, dbs.db(g.DBID), g.Query, o, p, &st); err != nil {
			t.Errorf("gold %d: %q\nprobe %q: %v", i, g.Query, p.SQL, err)
		}
	}
	if st.ordered == 0 || st.sameText == 0 {
		t.Errorf("checked %d golds and %d repeated terms: the data holds none?", st.ordered, st.sameText)
	}
	t.Logf("%d golds with an ORDER BY or a window, all probed; %d of them with ties within their rows only, "+
		"%d with ties across a cut; %d added keys compared with the output columns they repeat",
		st.ordered, st.within, st.atCut, st.sameText)
}

// checkDevGold runs a gold, its probe and its tie-break and checks them
// against one another.
func checkDevGold(t *testing.T, db env.DB, gold string, o sqltext.Order, p sqltext.Probe, st *devStats) error {
	rs, probe := devRun(t, db, gold), devRun(t, db, p.SQL)
	if len(probe.Columns) != p.Added+len(rs.Columns) {
		return fmt.Errorf("probe returns %d columns, want %d added and %d", len(probe.Columns), p.Added, len(rs.Columns))
	}
	if err := sortedBy(p, probe.Rows, o.Desc); err != nil {
		return err
	}
	tied, err := tieCheck(p, probe.Rows, rs.Rows, devExtra, sqliteSame)
	if err != nil {
		return fmt.Errorf("gold: %w", err)
	}
	switch tied {
	case within:
		st.within++
	case atCut:
		st.atCut++
	}
	if tied == noTies && !exactly(p, probe.Rows, rs.Rows) {
		return fmt.Errorf("no ties, yet the gold's rows %v are not the probe's", rs.Rows)
	}
	if err := checkTieBreak(t, db, gold, p, probe.Rows, len(rs.Columns), tied); err != nil {
		return err
	}
	return checkSameText(t, db, gold, p, st)
}

// checkTieBreak checks that the gold's tie-break returns a right answer,
// the gold's own rows where nothing ties.
func checkTieBreak(t *testing.T, db env.DB, gold string, p sqltext.Probe, probe [][]any, cols int, tied ties) error {
	if n, ok := sqltext.OutputCount(gold); ok {
		cols = n
	}
	tb, ok := sqltext.TieBreak(gold, cols)
	if !ok {
		return fmt.Errorf("no tie-break")
	}
	rows := devRun(t, db, tb).Rows
	if _, err := tieCheck(p, probe, rows, devExtra, sqliteSame); err != nil {
		return fmt.Errorf("tie-break %q: %w", tb, err)
	}
	if tied == noTies && !exactly(p, probe, rows) {
		return fmt.Errorf("tie-break %q returns %v, not the gold's rows", tb, rows)
	}
	return nil
}

// checkSameText checks, for each term that repeats an output item's
// expression, that the term added as a column of its own holds the
// values of the output column.
func checkSameText(t *testing.T, db env.DB, gold string, p sqltext.Probe, st *devStats) error {
	q, ok := sqltext.TieProbeSameText(gold, devExtra)
	if !ok || q.Added == p.Added {
		return nil
	}
	rows := devRun(t, db, q.SQL).Rows
	for k, c := range p.KeyCols {
		if c < p.Added || q.KeyCols[k] >= q.Added {
			continue
		}
		st.sameText++
		out := q.Added + c - p.Added
		for _, r := range rows {
			if fmt.Sprintf("%#v", r[q.KeyCols[k]]) != fmt.Sprintf("%#v", r[out]) {
				return fmt.Errorf("%q: term %d added as column %d holds %v, the output column %d holds %v",
					q.SQL, k, q.KeyCols[k], r[q.KeyCols[k]], out, r[out])
			}
		}
	}
	return nil
}

// sortedBy checks that the probe's rows come in the order of their keys,
// each ascending or descending as desc says, as SQLite compares them: the
// keys hold the values the ORDER BY sorts on.
func sortedBy(p sqltext.Probe, probe [][]any, desc []bool) error {
	for i := 1; i < len(probe); i++ {
		a, b := keyOf(p, probe[i-1]), keyOf(p, probe[i])
		for k := range a {
			c := sqliteCompare(a[k], b[k])
			if desc[k] {
				c = -c
			}
			if c > 0 {
				return fmt.Errorf("probe rows %d and %d out of the order of their keys %v, %v", i-1, i, a, b)
			}
			if c < 0 {
				break
			}
		}
	}
	return nil
}
