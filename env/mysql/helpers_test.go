package mysql

import (
	"context"
	"testing"

	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/mysqltest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fixtureScript builds the test database: typed columns of the kinds
// values.go reads, awkward names, keys, and a 10,000-row table for
// expensive joins.
const fixtureScript = `
CREATE TABLE singer (
	singer_id INT PRIMARY KEY,
	name VARCHAR(50) NOT NULL,
	country VARCHAR(20),
	age SMALLINT,
	net_worth DECIMAL(10, 2),
	photo VARBINARY(10),
	born DATE,
	updated DATETIME,
	seen TIMESTAMP NULL,
	flags BIT(4),
	info JSON,
	ratio DOUBLE,
	huge BIGINT UNSIGNED,
	` + "`procedure`" + ` INT
);
INSERT INTO singer VALUES
	(1, 'Ana', 'France', 30, 1.50, X'00ff', '1990-01-02', '2020-01-02 03:04:05', '2021-05-06 07:08:09', b'1010', '{"k": [1, 2]}', 0.1, 18446744073709551615, NULL),
	(2, 'Bo', 'Spain', NULL, 2, NULL, NULL, NULL, NULL, b'0', 'null', 1e300, 7, NULL),
	(3, 'Cy', NULL, 41, NULL, X'', NULL, NULL, NULL, NULL, NULL, -2.5, NULL, NULL),
	(4, 'Dé', 'Perú', 25, 12345678.25, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, NULL);
CREATE TABLE concert (
	concert_id INT PRIMARY KEY,
	singer_id INT NOT NULL,
	year INT,
	FOREIGN KEY (singer_id) REFERENCES singer (singer_id)
);
INSERT INTO concert VALUES (10, 1, 2014), (11, 1, 2015), (12, 2, 2015), (13, 4, 2016);
CREATE TABLE ` + "`order items`" + ` (
	id INT,
	concert_id INT,
	` + "`select`" + ` VARCHAR(10),
	PRIMARY KEY (` + "`select`" + `, id)
);
INSERT INTO ` + "`order items`" + ` VALUES (1, 10, 'a'), (1, 11, 'b');
CREATE TABLE digits (n INT PRIMARY KEY);
INSERT INTO digits VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9);
CREATE TABLE big (x INT PRIMARY KEY, label VARCHAR(20));
INSERT INTO big SELECT a.n * 1000 + b.n * 100 + c.n * 10 + d.n + 1, CONCAT('row ', a.n * 1000 + b.n * 100 + c.n * 10 + d.n + 1)
FROM digits a, digits b, digits c, digits d;
`

// openFixture creates a database with fixtureScript and opens it through
// a new engine of cfg; both are closed when the test ends.
func openFixture(t *testing.T, cfg Config) (*db, string) {
	t.Helper()
	url, name := database(t, fixtureScript)
	return open(t, cfg, url, name), name
}

// database creates a database of script with its reading account, both
// dropped when the test ends, and returns the server's URL and its name.
func database(t *testing.T, script string) (string, string) {
	t.Helper()
	url, name := mysqltest.Database(t, script)
	mysqltest.DropUser(t, Account(DefaultAccount, name))
	if err := EnsureReader(context.Background(), mysqltest.Admin(t), DefaultAccount, name); err != nil {
		t.Fatal(err)
	}
	return url, name
}

// open opens database name on the server at url through a new engine of
// cfg, closed when the test ends.
func open(t *testing.T, cfg Config, url, name string) *db {
	t.Helper()
	d, err := New(cfg).Open(context.Background(), Source(url, name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d.(*db)
}

// query runs sql with lim and fails the test on an error.
func query(t *testing.T, d env.DB, sql string, lim env.Limits) *env.ResultSet {
	t.Helper()
	rs, err := d.Query(context.Background(), sql, lim)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return rs
}
