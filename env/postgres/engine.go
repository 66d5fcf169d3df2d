package postgres

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
)

// idleConnTime is how long an idle connection stays open.
const idleConnTime = time.Minute

// Engine opens schemas of PostgreSQL servers, each behind the sandbox
// described in the package comment. It keeps one pool per server (host,
// port and database, however the URLs that name it are spelled), opened
// with the first schema on it and closed with the last, and one
// admission that shares its connections among the schemas. It is safe
// for concurrent use.
type Engine struct {
	cfg Config

	mu      sync.Mutex         // guards servers and closed
	servers map[string]*server // by serverKey
	closed  env.PoolStats      // the waits of the pools since closed
	memStats
}

// server is one server's pool and the databases open on it.
type server struct {
	key  string
	name string // host/database, for messages
	pool *pgxpool.Pool
	adm  *sandbox.Admission
	refs int // databases open on it; guarded by Engine.mu
}

// pgSayings name the admission's bounds in a waiting statement's error.
var pgSayings = sandbox.Sayings{
	Server: "all %d connections to the server stayed busy with other statements",
	DB:     "%d statements were running on this database, its limit",
}

var (
	_ env.Engine       = (*Engine)(nil)
	_ env.PoolReporter = (*Engine)(nil)
)

// New returns an Engine configured by cfg.
func New(cfg Config) *Engine {
	return &Engine{cfg: cfg.withDefaults(), servers: map[string]*server{}}
}

// Dialect returns env.Postgres.
func (e *Engine) Dialect() env.Dialect { return env.Postgres }

// Open opens the schema that source ("postgres://URL#SCHEMA", see
// Source) names. It fails when the URL is not one, when the reader role
// cannot log in, or when the schema is missing or the role may not use
// it.
func (e *Engine) Open(ctx context.Context, source string) (env.DB, error) {
	src, err := parseSource(source)
	if err != nil {
		return nil, fmt.Errorf("open postgres %s: %w", redact(source), err)
	}
	where := fmt.Sprintf("open postgres schema %q on %s", src.schema, src.server())
	srv, err := e.server(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	d := &db{eng: e, srv: srv, schema: src.schema, quoted: pgx.Identifier{src.schema}.Sanitize(),
		role: pgx.Identifier{SchemaRole(e.cfg.Role, src.schema)}.Sanitize()}
	if err := d.check(ctx); err != nil {
		e.release(srv)
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return d, nil
}

// server returns the pool of src's server, creating it on first use, and
// counts one more database on it. The pool logs in with the first URL
// that names the server.
func (e *Engine) server(src source) (*server, error) {
	key := src.key(e.cfg.Role)
	e.mu.Lock()
	defer e.mu.Unlock()
	if s, ok := e.servers[key]; ok {
		s.refs++
		return s, nil
	}
	pc, err := e.poolConfig(src.asRole(e.cfg.Role))
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), pc)
	if err != nil {
		return nil, err
	}
	s := &server{key: key, name: src.server(), pool: pool, refs: 1,
		adm: sandbox.NewAdmission(sandbox.Shares{Max: e.cfg.MaxConns, Reserve: e.cfg.ReserveConns,
			PerDB: e.cfg.MaxSchemaConns, HolderReserve: sandbox.QuarterOf(e.cfg.MaxSchemaConns)}, pgSayings)}
	e.servers[key] = s
	return s, nil
}

// poolConfig is the configuration of a server's pool: the reader's
// login, the bounds, a statement cancelled on the server when its
// context ends, and messages bounded by MaxValueBytes.
func (e *Engine) poolConfig(url string) (*pgxpool.Config, error) {
	pc, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("server URL: %w", err) // pgx redacts the password
	}
	pc.MaxConns = int32(e.cfg.MaxConns)
	pc.MinConns = 0
	pc.MaxConnIdleTime = idleConnTime
	cc := pc.ConnConfig
	cc.DefaultQueryExecMode = pgx.QueryExecModeExec
	cc.RuntimeParams["application_name"] = "sqlgym"
	for k, v := range sessionParams {
		cc.RuntimeParams[k] = v
	}
	cc.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: cancelGrace}
	}
	maxBody := e.cfg.MaxValueBytes
	cc.BuildFrontend = func(r io.Reader, w io.Writer) *pgproto3.Frontend {
		f := pgproto3.NewFrontend(r, w)
		f.SetMaxBodyLen(maxBody)
		return f
	}
	return pc, nil
}

// sessionParams are every session's settings: read-only by default; the
// memory a statement's sorts and hashes may hold before they spill to
// temporary files (work_mem, once per node: hash_mem_multiplier 1 keeps
// hashes to it too), no parallel workers (each would be another process
// with its own work_mem) and no JIT compilation (memory and CPU no
// statement limit covers); and the output formats values.go reads.
// DISCARD ALL after each call restores them, and a model's statement
// cannot change them (set_config is denied).
var sessionParams = map[string]string{
	"application_name":                "sqlgym",
	"default_transaction_read_only":   "on",
	"work_mem":                        "4MB",
	"hash_mem_multiplier":             "1",
	"max_parallel_workers_per_gather": "0",
	"jit":                             "off",
	"bytea_output":                    "hex",
	"extra_float_digits":              "1",
	"DateStyle":                       "ISO, MDY",
	"IntervalStyle":                   "postgres",
}

// release counts one database fewer on s, closing its pool after the
// last.
func (e *Engine) release(s *server) {
	e.mu.Lock()
	s.refs--
	last := s.refs == 0
	if last {
		delete(e.servers, s.key)
		e.closed = e.closed.Add(poolStats(s.pool))
		e.closed.InUse, e.closed.Open = 0, 0
	}
	e.mu.Unlock()
	if last {
		s.pool.Close()
	}
}

// PoolStats reports the waits and connections of every server's pool,
// closed ones included.
func (e *Engine) PoolStats() env.PoolStats {
	e.mu.Lock()
	defer e.mu.Unlock()
	sum := e.closed
	for _, s := range e.servers {
		sum = sum.Add(poolStats(s.pool))
	}
	return sum
}

func poolStats(p *pgxpool.Pool) env.PoolStats {
	st := p.Stat()
	return env.PoolStats{Waits: st.EmptyAcquireCount(), WaitTime: st.EmptyAcquireWaitTime(),
		InUse: int(st.AcquiredConns()), Open: int(st.TotalConns())}
}

// redact is a source without the password its URL may hold.
func redact(source string) string {
	if src, err := parseSource(source); err == nil {
		u := *src.url
		if q := u.Query(); q.Has("password") {
			q.Set("password", "xxxxx")
			u.RawQuery = q.Encode()
		}
		return u.Redacted() + "#" + src.schema
	}
	return "(unreadable source)"
}

// Redact is a database source fit for a log line or an error: a
// postgres:// source without the password its URL may hold (in the user
// part or as ?password=), any other source (a file's path) as it is.
func Redact(source string) string {
	if !strings.HasPrefix(source, "postgres://") && !strings.HasPrefix(source, "postgresql://") {
		return source
	}
	return redact(source)
}
