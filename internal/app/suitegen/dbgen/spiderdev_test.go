package dbgen

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
)

// spiderDB is one Spider-dev database with the golds asked of it.
type spiderDB struct {
	id, path string
	golds    []string
}

// spiderDBs reads dev.json: every database with its golds, by db_id.
func spiderDBs(tb testing.TB) []spiderDB {
	tb.Helper()
	dir := spiderdev.Dir(tb)
	var dev []struct {
		DBID  string `json:"db_id"`
		Query string `json:"query"`
	}
	if err := json.Unmarshal(read(tb, filepath.Join(dir, "dev.json")), &dev); err != nil {
		tb.Fatal(err)
	}
	byID := map[string]*spiderDB{}
	var ids []string
	for _, q := range dev {
		d, ok := byID[q.DBID]
		if !ok {
			d = &spiderDB{id: q.DBID, path: filepath.Join(dir, "database", q.DBID, q.DBID+".sqlite")}
			byID[q.DBID], ids = d, append(ids, q.DBID)
		}
		d.golds = append(d.golds, q.Query)
	}
	slices.Sort(ids)
	out := make([]spiderDB, len(ids))
	for i, id := range ids {
		out[i] = *byID[id]
	}
	return out
}

// spiderDB finds one database by db_id.
func spiderByID(tb testing.TB, id string) spiderDB {
	tb.Helper()
	for _, d := range spiderDBs(tb) {
		if d.id == id {
			return d
		}
	}
	tb.Fatalf("no Spider-dev database %s", id)
	return spiderDB{}
}

// spiderSeeds are the seeds every Spider-dev database is generated with.
const spiderSeeds = 5

func TestSpiderDev(t *testing.T) {
	eng := sqlite.New(sqlite.Config{})
	sizes := map[int]int{} // rows -> tables of that size, over every database and seed
	for _, d := range spiderDBs(t) {
		t.Run(d.id, func(t *testing.T) {
			p := analyze(t, d.path, d.golds, Config{})
			if r := p.Describe().RejectedGolds; len(r) > 0 {
				t.Errorf("golds %v rejected", r)
			}
			empty := filepath.Join(t.TempDir(), "empty.sqlite")
			if err := p.Empty(context.Background(), empty); err != nil {
				t.Fatal(err)
			}
			runGolds(t, eng, empty, d.golds)
			nulls := map[string]bool{}
			for seed := range uint64(spiderSeeds) {
				path, st := generated(t, p, seed)
				runGolds(t, eng, path, d.golds)
				checkConstraints(t, p, path)
				collectNulls(t, p, path, nulls)
				for _, n := range st.Rows {
					sizes[n]++
				}
			}
			checkNullRule(t, p, nulls)
		})
	}
	checkSizes(t, sizes, DefaultMaxRows)
}

// runGolds runs every gold on a generated database through the SQLite
// engine, as the judge runs them: each must run without error.
func runGolds(t *testing.T, eng *sqlite.Engine, path string, golds []string) {
	t.Helper()
	db, err := eng.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, g := range golds {
		if _, err := db.Query(context.Background(), g, env.Limits{MaxRows: 10_000}); err != nil {
			t.Errorf("%s: %s: %v", filepath.Base(path), g, err)
		}
	}
}

// collectNulls marks "table.column" for each column holding a NULL.
func collectNulls(t *testing.T, p *Plan, path string, nulls map[string]bool) {
	t.Helper()
	conn := reader(t, path)
	for _, tb := range p.s.tables {
		for _, c := range tb.columns {
			q := fmt.Sprintf("SELECT count(*) FROM %s WHERE %s IS NULL", quoteIdent(tb.name), quoteIdent(c.name))
			if count(t, conn, q) > 0 {
				nulls[tb.name+"."+c.name] = true
			}
		}
	}
}

// checkNullRule checks that NULLs appeared exactly in the columns the NULL
// rule allows: nullable, not in the primary key, NULL somewhere in the
// source.
func checkNullRule(t *testing.T, p *Plan, nulls map[string]bool) {
	t.Helper()
	for _, tb := range p.s.tables {
		for _, c := range tb.columns {
			name := tb.name + "." + c.name
			allowed := !c.notNull && !c.inPK && c.stats.nulls > 0
			if nulls[name] != allowed {
				t.Errorf("%s: NULLs generated %v, the rule allows them %v (source NULLs %d)", name, nulls[name], allowed, c.stats.nulls)
			}
		}
	}
}

// checkSizes checks that the tables' sizes went from empty, through one
// to three rows, to maxRows.
func checkSizes(t *testing.T, sizes map[int]int, maxRows int) {
	t.Helper()
	small, most := 0, 0
	for n, tables := range sizes {
		if n >= 1 && n <= 3 {
			small += tables
		}
		most = max(most, n)
		if n > maxRows {
			t.Errorf("%d tables of %d rows, above MaxRows %d", tables, n, maxRows)
		}
	}
	if sizes[0] == 0 || small == 0 || most != maxRows {
		t.Errorf("tables empty: %d, of 1-3 rows: %d, largest %d rows; want some empty, some small, some of %d", sizes[0], small, most, maxRows)
	}
}

func TestSpiderGoldLiterals(t *testing.T) {
	tests := []struct {
		db, gold, col string
		want          []any
	}{
		{"concert_singer", "SELECT LOCATION ,  name FROM stadium WHERE capacity BETWEEN 5000 AND 10000", "stadium.Capacity",
			[]any{int64(4999), int64(5000), int64(5001), int64(9999), int64(10000), int64(10001)}},
		{"concert_singer", "SELECT DISTINCT country FROM singer WHERE age  >  20", "singer.Age", []any{int64(19), int64(20), int64(21)}},
		{"concert_singer", "select t2.name ,  t2.capacity from concert as t1 join stadium as t2 on t1.stadium_id  =  t2.stadium_id where t1.year  >  2013 group by t2.stadium_id order by count(*) desc limit 1",
			"concert.Year", []any{"2012", "2013", "2014"}},
		{"concert_singer", "SELECT name ,  country FROM singer WHERE song_name LIKE '%Hey%'", "singer.Song_Name", []any{"Hey", "xHeyx", "He", "ey"}},
		{"car_1", "select distinct year from cars_data where weight between 3000 and 4000;", "cars_data.Weight",
			[]any{int64(2999), int64(3000), int64(3001), int64(3999), int64(4000), int64(4001)}},
		{"flight_2", `SELECT Country FROM AIRLINES WHERE Airline  =  "JetBlue Airways"`, "airlines.Airline",
			[]any{"JetBlue Airways", "JETBLUE AIRWAYS", "jetblue airways", "xJetBlue Airways", "etBlue Airways", "JetBlue Airway"}},
		{"flight_2", `SELECT T1.Airline FROM AIRLINES AS T1 JOIN FLIGHTS AS T2 ON T1.uid  =  T2.Airline WHERE T2.SourceAirport  =  "AHD"`,
			"airports.AirportCode", []any{"AHD", "ahd", "AH", "HD"}},
		{"cre_Doc_Template_Mgt", `SELECT document_name ,  template_id FROM Documents WHERE Document_Description LIKE "%w%"`,
			"Documents.Document_Description", []any{"w", "xwx", "x"}},
		{"pets_1", "SELECT count(*) FROM pets WHERE weight  >  10", "Pets.weight", []any{9.9, 10.0, 10.1}},
		{"world_1", `SELECT Name FROM country WHERE IndepYear  >  1950`, "country.IndepYear", []any{int64(1949), int64(1950), int64(1951)}},
	}
	for _, tt := range tests {
		d := spiderByID(t, tt.db)
		if !slices.Contains(d.golds, tt.gold) {
			t.Errorf("%s: no gold %q", tt.db, tt.gold)
			continue
		}
		p := analyze(t, d.path, []string{tt.gold}, Config{})
		c := p.s.col(refOf(t, p, tt.col))
		seen := appearances(t, p, 12)
		for _, v := range tt.want {
			if !slices.ContainsFunc(c.values, func(x any) bool { return sameValue(x, v) }) {
				t.Errorf("%s: %s: pool lacks %#v", tt.db, tt.col, v)
			}
			if !seen[tt.col+"="+fmt.Sprintf("%T:%v", v, v)] {
				t.Errorf("%s: %s: %#v appears in no generated database", tt.db, tt.col, v)
			}
		}
	}
}

func TestSpiderInferredKeys(t *testing.T) {
	tests := []struct {
		db   string
		want []string // the keys not declared, "child -> parent origin strict"
	}{
		{"flight_2", []string{"flights.Airline -> airlines.uid inferred true"}},
		{"world_1", nil}, // city.CountryCode = countrylanguage.CountryCode: both follow country.Code
		{"concert_singer", nil},
		{"car_1", nil},
	}
	for _, tt := range tests {
		d := spiderByID(t, tt.db)
		var got []string
		for _, fk := range analyze(t, d.path, d.golds, Config{}).Describe().ForeignKeys {
			if fk.Origin != "declared" {
				got = append(got, keyLine(fk))
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: keys inferred %q, want %q", tt.db, got, tt.want)
		}
	}
}

func TestSpiderDeterministic(t *testing.T) {
	for _, id := range []string{"student_transcripts_tracking", "world_1"} {
		d := spiderByID(t, id)
		p := analyze(t, d.path, d.golds, Config{})
		a, _ := generated(t, p, 3)
		b := filepath.Join(t.TempDir(), "again.sqlite")
		if _, err := p.Generate(context.Background(), 3, b); err != nil {
			t.Fatal(err)
		}
		c, _ := generated(t, p, 4)
		if ab, bb := read(t, a), read(t, b); string(ab) != string(bb) {
			t.Errorf("%s: seed 3 twice gives two different files", id)
		}
		if dump(t, a) == dump(t, c) {
			t.Errorf("%s: seeds 3 and 4 give the same rows", id)
		}
	}
}

// dump is every row of every table of a file, as SQL literals.
func dump(t *testing.T, path string) string {
	conn := reader(t, path)
	var b strings.Builder
	for _, name := range strings1(t, conn, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
		cols := strings1(t, conn, `SELECT 'quote("' || replace(name, '"', '""') || '")' FROM pragma_table_info(?) ORDER BY cid`, name)
		q := fmt.Sprintf("SELECT %s FROM %s", strings.Join(cols, " || ',' || "), quoteIdent(name))
		b.WriteString(name + ": " + strings.Join(strings1(t, conn, q), "; ") + "\n")
	}
	return b.String()
}

func TestDumpShowsValues(t *testing.T) {
	got := dump(t, source(t, `CREATE TABLE "t""x" ("a b" INTEGER, c TEXT); INSERT INTO "t""x" VALUES (1, 'y'), (NULL, 'z');`))
	if want := "t\"x: 1,'y'; NULL,'z'\n"; got != want {
		t.Errorf("dump = %q, want %q", got, want)
	}
}

// BenchmarkAnalyze reads a Spider-dev database and its golds.
func BenchmarkAnalyze(b *testing.B) {
	d := spiderByID(b, "world_1")
	for b.Loop() {
		if _, err := Analyze(context.Background(), d.path, d.golds, Config{}); err != nil {
			b.Fatal(err)
		}
	}
}
