package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
)

// Engine opens databases of MySQL and MariaDB servers, each behind the
// sandbox described in the package comment. It keeps one pool of
// connections per database (logged in as the database's account) and,
// per server, a bound on the connections of all its databases together:
// at most MaxConns run statements at once, and a connection is kept
// idle only while the server's databases hold no more than MaxConns.
// It is safe for concurrent use.
type Engine struct {
	cfg Config

	mu      sync.Mutex         // guards servers, open and closed
	servers map[string]*server // by host:port
	open    map[*db]bool       // the databases open now
	closed  env.PoolStats      // the waits of the pools since closed
}

// server is what the engine knows of one server: which kind it is, and
// the admission that shares its connections among its databases.
type server struct {
	key    string
	maria  bool // MariaDB rather than MySQL
	adm    *sandbox.Admission
	refs   int // databases open on it; guarded by Engine.mu
	detect sync.Once
}

// mysqlSayings name the admission's bounds in a waiting statement's
// error.
var mysqlSayings = sandbox.Sayings{
	Server: "all %d connections to the server stayed busy with other statements",
	DB:     "all %d connections to the database stayed busy with other statements",
}

var (
	_ env.Engine       = (*Engine)(nil)
	_ env.PoolReporter = (*Engine)(nil)
)

// New returns an Engine configured by cfg.
func New(cfg Config) *Engine {
	return &Engine{cfg: cfg.withDefaults(), servers: map[string]*server{}, open: map[*db]bool{}}
}

// Dialect returns env.MySQL.
func (e *Engine) Dialect() env.Dialect { return env.MySQL }

// Open opens the database that source ("mysql://URL#DATABASE", see
// Source) names, as its account (Account). It fails when the URL is not
// one, when the account cannot log in, or when it may not read the
// database.
func (e *Engine) Open(ctx context.Context, source string) (env.DB, error) {
	src, err := parseSource(source)
	if err != nil {
		return nil, fmt.Errorf("open mysql %s: %w", redact(source), err)
	}
	where := fmt.Sprintf("open mysql database %q on %s", src.db, src.server())
	acct := Account(e.cfg.Account, src.db)
	srv := e.server(src)
	dc := driverConfig(src.url, acct, src.db)
	if err := srv.detectKind(ctx, dc); err != nil {
		e.release(srv)
		return nil, fmt.Errorf("%s as %s: %w (give the database its account: mysql.EnsureReader, as root; docs/engines.md)", where, acct, err)
	}
	dc.Params = sessionParams(srv.maria, e.cfg)
	conn, err := mysql.NewConnector(dc)
	if err != nil {
		e.release(srv)
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	pool := sql.OpenDB(conn)
	pool.SetMaxOpenConns(e.cfg.MaxDBConns)
	pool.SetMaxIdleConns(e.cfg.MaxDBConns)
	pool.SetConnMaxIdleTime(idleConnTime)
	d := &db{eng: e, srv: srv, name: src.db, server: src.server(), pool: pool, ids: map[any]int64{}}
	e.mu.Lock()
	e.open[d] = true
	e.mu.Unlock()
	if _, err := d.Tables(ctx); err != nil {
		d.Close()
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return d, nil
}

// server returns src's server, counting one more database on it.
func (e *Engine) server(src source) *server {
	key := src.server()
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.servers[key]
	if !ok {
		s = &server{key: key, adm: sandbox.NewAdmission(sandbox.Shares{Max: e.cfg.MaxConns,
			Reserve: e.cfg.ReserveConns, PerDB: e.cfg.MaxDBConns,
			HolderReserve: sandbox.QuarterOf(e.cfg.MaxDBConns)}, mysqlSayings)}
		e.servers[key] = s
	}
	s.refs++
	return s
}

// PoolStats reports the waits and connections of every database's pool,
// closed ones included.
func (e *Engine) PoolStats() env.PoolStats {
	e.mu.Lock()
	defer e.mu.Unlock()
	sum := e.closed
	for d := range e.open {
		sum = sum.Add(poolStats(d.pool))
	}
	return sum
}

// openOn is how many connections the pools of srv's databases hold,
// in use or idle.
func (e *Engine) openOn(srv *server) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for d := range e.open {
		if d.srv == srv {
			n += d.pool.Stats().OpenConnections
		}
	}
	return n
}

// closing counts d's pool's waits among the closed ones'.
func (e *Engine) closing(d *db) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.open[d] {
		delete(e.open, d)
		st := poolStats(d.pool)
		st.InUse, st.Open = 0, 0
		e.closed = e.closed.Add(st)
	}
}

func poolStats(p *sql.DB) env.PoolStats {
	st := p.Stats()
	return env.PoolStats{Waits: st.WaitCount, WaitTime: st.WaitDuration, InUse: st.InUse, Open: st.OpenConnections}
}

// release counts one database fewer on s, forgetting it after the last.
func (e *Engine) release(s *server) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if s.refs--; s.refs == 0 {
		delete(e.servers, s.key)
	}
}

// detectKind learns once whether the server is MariaDB or MySQL, which
// name the settings of a session differently, by logging in as dc says.
// A failed login is tried again by the next Open.
func (s *server) detectKind(ctx context.Context, dc *mysql.Config) error {
	var version string
	conn, err := mysql.NewConnector(dc)
	if err != nil {
		return err
	}
	pool := sql.OpenDB(conn)
	defer pool.Close()
	if err := pool.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return err
	}
	s.detect.Do(func() { s.maria = strings.Contains(strings.ToLower(version), "mariadb") })
	return nil
}
