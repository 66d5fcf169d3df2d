package valueindex

import (
	"context"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/postgres"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// pgScript is a small PostgreSQL schema with text, character and
// non-text columns.
const pgScript = `
CREATE TABLE authors (author_id integer PRIMARY KEY, name text NOT NULL, country varchar(40), born integer);
INSERT INTO authors VALUES (1, 'Jane Austen', 'United Kingdom', 1775), (2, 'Gabriel García Márquez', 'Colombia', 1927),
  (3, 'Chinua Achebe', 'Nigeria', 1930), (4, 'Virginia Woolf', 'United Kingdom', 1882);
CREATE TABLE cities (code char(3) PRIMARY KEY, name text);
INSERT INTO cities VALUES ('LDS', 'Leeds'), ('HGT', 'Harrogate'), ('1', NULL);
`

// TestPostgresSearch indexes a PostgreSQL schema through the engine and
// searches it as the SQLite tests do.
func TestPostgresSearch(t *testing.T) {
	base, schema := pgtest.Schema(t, pgScript)
	ctx := context.Background()
	if err := postgres.EnsureReader(ctx, pgtest.Conn(t), postgres.DefaultRole, schema); err != nil {
		t.Fatal(err)
	}
	ds := &env.Dataset{Name: "pg", Dialect: env.Postgres, DBs: map[string]string{"lib": postgres.Source(base, schema)}}
	cat := env.NewCatalog(postgres.New(postgres.Config{}))
	defer cat.Close()
	s := newStore(t, t.TempDir(), nil)
	for _, c := range []struct{ query, want string }{
		{"jane austin", "authors.name = Jane Austen"},
		{"Garcia Marquez", "authors.name = Gabriel García Márquez"},
		{"united kingdom", "authors.country = United Kingdom"},
		{"Harogate", "cities.name = Harrogate"},
	} {
		m := search(t, s, ds, cat, "lib", env.ValueQuery{Query: c.query, Limit: 5})
		if len(m.Matches) == 0 {
			t.Errorf("%q: no match", c.query)
			continue
		}
		if got := m.Matches[0].Table + "." + m.Matches[0].Column + " = " + m.Matches[0].Value; got != c.want {
			t.Errorf("%q: first match %s, want %s", c.query, got, c.want)
		}
	}
	m := search(t, s, ds, cat, "lib", env.ValueQuery{Query: "United Kingdom", Limit: 5})
	if m.Matches[0].Rows != 2 {
		t.Errorf("United Kingdom held by %d rows, want 2", m.Matches[0].Rows)
	}
	if files := dirFiles(t, s.cfg.Dir); len(files) != 1 {
		t.Errorf("index files %v, want one", files)
	}
}

// TestPostgresTiesKeepTheSample indexes a PostgreSQL column of 20,000
// distinct ids, all tied, within a budget of 2,000: the ids kept are
// those of least tie key, the very sample a SQLite file of the same
// values keeps, whatever order the server returns ties in.
func TestPostgresTiesKeepTheSample(t *testing.T) {
	base, schema := pgtest.Schema(t, `CREATE TABLE a (tracking_id text);
INSERT INTO a SELECT 'TRK' || lpad(i::text, 8, '0') FROM generate_series(1, 20000) AS i;`)
	ctx := context.Background()
	if err := postgres.EnsureReader(ctx, pgtest.Conn(t), postgres.DefaultRole, schema); err != nil {
		t.Fatal(err)
	}
	ds := &env.Dataset{Name: "pg", Dialect: env.Postgres, DBs: map[string]string{"db": postgres.Source(base, schema)}}
	cat := env.NewCatalog(postgres.New(postgres.Config{}))
	defer cat.Close()
	db, err := cat.DB(ctx, ds, "db")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Dir: t.TempDir(), MaxBytes: 2000 * valueCost("TRK00000001")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := find(t, s, ds, db, "a", "tracking_id", "TRK00020000")
	if len(m.Partial) != 1 || m.Partial[0].Indexed != 2000 || m.Partial[0].TieKept != 2000 || m.Partial[0].TieTotal != tiedIDs {
		t.Fatalf("partial %+v, want a.tracking_id: 2000 of the 20000 held by 1 row kept", m.Partial)
	}
	if !sameKeys(keptIDs(t, s, ds), leastKeys(tiedIDs, 2000)) {
		t.Errorf("the ids kept are not the 2000 of least tie key")
	}
}
