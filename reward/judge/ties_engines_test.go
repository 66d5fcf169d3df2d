package judge

import (
	"context"
	"testing"

	"github.com/sqlgym/sqlgym/env/mysql"
	"github.com/sqlgym/sqlgym/env/postgres"
	"github.com/sqlgym/sqlgym/internal/testkit/mysqltest"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// TestJudgeTiesPostgres: on PostgreSQL, each tie case gets the same
// verdict in ten runs, each with the gold run again.
func TestJudgeTiesPostgres(t *testing.T) {
	base, schema := pgtest.Schema(t, tieSingers)
	ctx := context.Background()
	if err := postgres.EnsureReader(ctx, pgtest.Conn(t), postgres.DefaultRole, schema); err != nil {
		t.Fatal(err)
	}
	db, err := postgres.New(postgres.Config{}).Open(ctx, postgres.Source(base, schema))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	checkTies(t, db, 10)
}

// TestJudgeTiesMariaDB: on MariaDB, whose choice among tied rows can
// change from run to run, each tie case gets the same verdict in ten
// runs, each with the gold run again.
func TestJudgeTiesMariaDB(t *testing.T) {
	url, name := mysqltest.Database(t, tieSingers)
	mysqltest.DropUser(t, mysql.Account(mysql.DefaultAccount, name))
	ctx := context.Background()
	if err := mysql.EnsureReader(ctx, mysqltest.Admin(t), mysql.DefaultAccount, name); err != nil {
		t.Fatal(err)
	}
	db, err := mysql.New(mysql.Config{}).Open(ctx, mysql.Source(url, name))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	checkTies(t, db, 10)
}
