package postgres

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fixtureScript builds the test schema: typed columns of the kinds
// values.go reads, awkward names, keys, and a 10,000-row table for
// expensive joins.
const fixtureScript = `
CREATE TABLE singer (
	singer_id integer PRIMARY KEY,
	name text NOT NULL,
	country varchar(20),
	age smallint,
	net_worth numeric(10, 2),
	photo bytea,
	born date,
	updated timestamp,
	active boolean,
	tags text[],
	info jsonb,
	ratio double precision
);
INSERT INTO singer VALUES
	(1, 'Ana', 'France', 30, 1.50, '\x00ff', '1990-01-02', '2020-01-02 03:04:05', true, '{a,b}', '{"k": [1, 2]}', 0.1),
	(2, 'Bo', 'Spain', NULL, 2, NULL, NULL, NULL, false, '{}', 'null', 'NaN'),
	(3, 'Cy', NULL, 41, NULL, '\x', NULL, NULL, NULL, NULL, NULL, '-Infinity'),
	(4, 'Dé', 'Perú', 25, 12345678.25, NULL, NULL, NULL, NULL, NULL, NULL, 1e300);
CREATE TABLE concert (
	concert_id integer PRIMARY KEY,
	singer_id integer NOT NULL REFERENCES singer,
	year integer,
	UNIQUE (concert_id, singer_id)
);
INSERT INTO concert VALUES (10, 1, 2014), (11, 1, 2015), (12, 2, 2015), (13, 4, 2016);
CREATE TABLE "order items" (
	id integer,
	concert_id integer,
	"select" text,
	PRIMARY KEY ("select", id),
	FOREIGN KEY (concert_id, id) REFERENCES concert (concert_id, singer_id)
);
INSERT INTO "order items" VALUES (1, 10, 'a'), (1, 11, 'b');
CREATE TABLE big (x integer PRIMARY KEY, label text);
INSERT INTO big SELECT g, 'row ' || g FROM generate_series(1, 10000) AS g;
`

// fixture creates a fresh schema holding fixtureScript's tables, lets
// the reader role read it, and returns the server's URL (a superuser's)
// and the schema. The schema is dropped when the test ends.
func fixture(t testing.TB) (string, string) {
	t.Helper()
	base, schema := pgtest.Schema(t, fixtureScript)
	ensureReader(t, schema)
	return base, schema
}

// ensureReader lets the reader role read schema.
func ensureReader(t testing.TB, schema string) {
	t.Helper()
	if err := EnsureReader(context.Background(), pgtest.Conn(t), DefaultRole, schema); err != nil {
		t.Fatal(err)
	}
}

// openFixture opens the fixture's schema with an engine of cfg and
// closes it when the test ends.
func openFixture(t testing.TB, cfg Config) (env.DB, string, string) {
	t.Helper()
	base, schema := fixture(t)
	d, err := New(cfg).Open(context.Background(), Source(base, schema))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, base, schema
}

// superuser runs q on the server as the URL's (super)user and returns
// the first column of its rows as text.
func superuser(t testing.TB, base, q string, args ...any) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, q, args...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (string, error) {
		var v any
		if err := r.Scan(&v); err != nil {
			return "", err
		}
		if v == nil {
			return "", nil
		}
		return fmt.Sprint(v), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkServing checks that an ordinary query still works.
func checkServing(t *testing.T, d env.DB) {
	t.Helper()
	rs, err := d.Query(context.Background(), "SELECT name FROM singer WHERE singer_id = 2", env.Limits{})
	if err != nil {
		t.Fatalf("ordinary query: %v", err)
	}
	if len(rs.Rows) != 1 || rs.Rows[0][0] != "Bo" {
		t.Fatalf("ordinary query = %v, want Bo", rs.Rows)
	}
}

// running lists the statements the server runs that contain text,
// besides the query asking.
func running(t testing.TB, base, text string) []string {
	return superuser(t, base, `SELECT query FROM pg_stat_activity
WHERE state = 'active' AND pid <> pg_backend_pid() AND strpos(query, $1) > 0`, text)
}

// waitRunning waits until the server runs a statement containing text.
func waitRunning(t *testing.T, base, text string) {
	t.Helper()
	waitfor.Until(t, "the server runs "+text, func() bool { return len(running(t, base, text)) > 0 })
}

// checkNotRunning waits until the server runs no statement containing
// text: a statement stopped on the client must stop on the server, well
// before its own end.
func checkNotRunning(t *testing.T, base, text string) {
	t.Helper()
	waitfor.Until(t, "the server stops "+text, func() bool { return len(running(t, base, text)) == 0 })
}
