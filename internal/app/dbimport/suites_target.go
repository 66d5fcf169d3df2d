package dbimport

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/mysql"
	"github.com/sqlgym/sqlgym/env/postgres"
)

// maxPGName is PostgreSQL's longest name in bytes on a server built with
// the default NAMEDATALEN; a longer suite schema name is refused rather
// than cut.
const maxPGName = 63

// pgSuites carries test suites into PostgreSQL schemas.
type pgSuites struct {
	conn     *pgx.Conn
	url      string
	role     string
	copyCfg  CopyConfig
	verifier env.Engine
}

func (p *pgSuites) dialect() env.Dialect { return env.Postgres }

func (p *pgSuites) check(ctx context.Context, name string) error {
	if len(name) > maxPGName {
		return fmt.Errorf("schema name %q is over PostgreSQL's %d bytes", name, maxPGName)
	}
	return checkTarget(ctx, p.conn, name)
}

func (p *pgSuites) copy(ctx context.Context, src env.DB, tables []env.Table, name string, like *DBCopy) error {
	cfg := p.copyCfg
	cfg.Like = like
	_, err := copyTables(ctx, src, tables, p.conn, name, cfg)
	return err
}

func (p *pgSuites) readers(ctx context.Context, names []string) error {
	return postgres.EnsureReader(ctx, p.conn, p.role, names...)
}

func (p *pgSuites) open(ctx context.Context, name string) (env.DB, error) {
	return p.verifier.Open(ctx, postgres.Source(p.url, name))
}

// mySuites carries test suites into MySQL databases.
type mySuites struct {
	admin     *sql.DB
	url       string
	account   string
	collation string
	copyCfg   CopyConfig
	verifier  env.Engine
}

func (m *mySuites) dialect() env.Dialect { return env.MySQL }

func (m *mySuites) check(ctx context.Context, name string) error {
	if err := checkMySQLName("suite database", name); err != nil {
		return err
	}
	return checkMySQLTargets(ctx, m.admin, []string{name})
}

// copy copies into the database name; MySQL commits each CREATE TABLE by
// itself, so a failed copy's database is dropped.
func (m *mySuites) copy(ctx context.Context, src env.DB, tables []env.Table, name string, like *DBCopy) error {
	cfg := m.copyCfg
	cfg.Like = like
	_, err := copyMySQL(ctx, src, tables, m.admin, name, m.collation, cfg)
	if err != nil {
		if _, derr := m.admin.ExecContext(context.WithoutCancel(ctx), "DROP DATABASE IF EXISTS "+mysql.QuoteIdent(name)); derr != nil {
			return fmt.Errorf("%w; and dropping what was copied: %v", err, derr)
		}
	}
	return err
}

func (m *mySuites) readers(ctx context.Context, names []string) error {
	return mysql.EnsureReader(ctx, m.admin, m.account, names...)
}

func (m *mySuites) open(ctx context.Context, name string) (env.DB, error) {
	return m.verifier.Open(ctx, mysql.Source(m.url, name))
}
