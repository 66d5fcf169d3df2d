package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/mattn/go-sqlite3"

	"github.com/sqlgym/sqlgym/env"
)

// Defaults for the zero fields of Config.
const (
	DefaultMaxValueBytes  = 8 << 20
	DefaultMaxSQLBytes    = 1 << 20
	DefaultTimeout        = 5 * time.Second
	DefaultMaxResultRows  = 1_000_000
	DefaultMaxResultBytes = 256 << 20
	DefaultMaxConns       = 64
	DefaultIdleConns      = 4
	DefaultMaxRunning     = 256
	DefaultMaxOpenDBs     = 256
)

// idleConnTime is how long an idle connection stays open.
const idleConnTime = time.Minute

// Config configures an Engine. The zero value is usable: every zero field
// takes the default named beside it.
type Config struct {
	// MaxConns bounds the open connections per database, so the
	// statements running on it at once; 0 means DefaultMaxConns.
	MaxConns int
	// IdleConns is how many of them stay open while idle (for at most
	// a minute); 0 means DefaultIdleConns, at most MaxConns.
	IdleConns int
	// MaxValueBytes bounds every string, blob and row a statement builds or
	// reads (SQLITE_LIMIT_LENGTH); past it the statement fails with
	// env.ErrTooLarge. 0 means DefaultMaxValueBytes.
	MaxValueBytes int
	// MaxSQLBytes bounds a statement's text (SQLITE_LIMIT_SQL_LENGTH);
	// 0 means DefaultMaxSQLBytes.
	MaxSQLBytes int
	// DefaultTimeout replaces a zero env.Limits.Timeout; 0 means
	// DefaultTimeout.
	DefaultTimeout time.Duration
	// MaxResultRows and MaxResultBytes bound a result whose env.Limits
	// leave rows or bytes unlimited: past them the statement fails with
	// env.ErrTooLarge instead of exhausting memory. 0 means
	// DefaultMaxResultRows and DefaultMaxResultBytes.
	MaxResultRows  int
	MaxResultBytes int
	// MaxRunning bounds the statements running at once across every
	// database of the engine; 0 means DefaultMaxRunning.
	MaxRunning int
	// MaxOpenDBs bounds the databases whose connections stay open: past
	// it, the least recently used database that no call holds has its
	// connections closed, and opens new ones on its next call. 0 means
	// DefaultMaxOpenDBs.
	MaxOpenDBs int
	// StmtCacheBytes bounds the text, added up, of the statements each
	// connection keeps prepared for when the same text runs again on it
	// (statements longer than 4 KiB are never kept); 0 means
	// DefaultStmtCacheBytes, a negative value keeps none.
	StmtCacheBytes int
}

// withDefaults returns cfg with every zero field set to its default.
func (cfg Config) withDefaults() Config {
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = DefaultMaxConns
	}
	if cfg.IdleConns <= 0 {
		cfg.IdleConns = DefaultIdleConns
	}
	cfg.IdleConns = min(cfg.IdleConns, cfg.MaxConns)
	if cfg.MaxValueBytes <= 0 {
		cfg.MaxValueBytes = DefaultMaxValueBytes
	}
	if cfg.MaxSQLBytes <= 0 {
		cfg.MaxSQLBytes = DefaultMaxSQLBytes
	}
	if cfg.DefaultTimeout <= 0 {
		cfg.DefaultTimeout = DefaultTimeout
	}
	if cfg.MaxResultRows <= 0 {
		cfg.MaxResultRows = DefaultMaxResultRows
	}
	if cfg.MaxResultBytes <= 0 {
		cfg.MaxResultBytes = DefaultMaxResultBytes
	}
	if cfg.MaxRunning <= 0 {
		cfg.MaxRunning = DefaultMaxRunning
	}
	if cfg.MaxOpenDBs <= 0 {
		cfg.MaxOpenDBs = DefaultMaxOpenDBs
	}
	switch {
	case cfg.StmtCacheBytes == 0:
		cfg.StmtCacheBytes = DefaultStmtCacheBytes
	case cfg.StmtCacheBytes < 0:
		cfg.StmtCacheBytes = 0
	}
	return cfg
}

// Engine opens SQLite database files read-only, each behind the sandbox
// described in the package comment. It is safe for concurrent use.
type Engine struct {
	cfg   Config
	drv   *sqlite3.SQLiteDriver // ours alone: no driver name is registered
	pools *pools                // shared by the databases it opens
	open  *openSet              // the databases with connections open
}

var (
	_ env.Engine       = (*Engine)(nil)
	_ env.PoolReporter = (*Engine)(nil)
)

// New returns an Engine configured by cfg.
func New(cfg Config) *Engine {
	cfg = cfg.withDefaults()
	p := newPools(cfg)
	return &Engine{cfg: cfg, drv: &sqlite3.SQLiteDriver{ConnectHook: connectHook(cfg)}, pools: p,
		open: &openSet{max: cfg.MaxOpenDBs, pools: p}}
}

// OpenDatabases is how many of the engine's databases have connections
// open now: at most Config.MaxOpenDBs, more only while more are in use
// at once.
func (e *Engine) OpenDatabases() int { return e.open.open() }

// PoolStats reports the waits and connections of every database the
// engine opened, closed ones included.
func (e *Engine) PoolStats() env.PoolStats { return e.pools.stats() }

// Dialect returns env.SQLite.
func (e *Engine) Dialect() env.Dialect { return env.SQLite }

// Open opens the database file at path read-only. It fails when the file
// is missing, is not a SQLite database, is shorter than its header says,
// or has write-ahead-log content that was never checkpointed into it.
// The database keeps no connection open while idle beyond the engine's
// Config.MaxOpenDBs most recently used ones: a later call reopens it,
// refusing a file replaced or changed since Open.
func (e *Engine) Open(ctx context.Context, path string) (env.DB, error) {
	file, err := checkFile(path)
	if err != nil {
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	d := &db{path: file.path, file: file, cfg: e.cfg, pools: e.pools, open: e.open, newPool: e.newPool(file.path)}
	if _, err := d.introspect(ctx, fmt.Sprintf(tablesQuery, ""), env.Limits{}); err != nil {
		d.Close()
		return nil, fmt.Errorf("open sqlite %s: %w", path, err)
	}
	return d, nil
}

// newPool returns what opens a connection pool to the file at abs.
func (e *Engine) newPool(abs string) func() *sql.DB {
	return func() *sql.DB {
		pool := sql.OpenDB(&connector{dsn: fileURI(abs), drv: e.drv, stmtCacheBytes: e.cfg.StmtCacheBytes, pools: e.pools})
		pool.SetMaxOpenConns(e.cfg.MaxConns)
		pool.SetMaxIdleConns(e.cfg.IdleConns)
		pool.SetConnMaxIdleTime(idleConnTime)
		return pool
	}
}

// checkFile returns the identity of a regular file, by its absolute
// path, that SQLite can open immutable without losing data.
func checkFile(path string) (fileID, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fileID{}, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return fileID{}, unpath(err)
	}
	if !st.Mode().IsRegular() {
		return fileID{}, errors.New("not a regular file")
	}
	if err := checkHeader(abs, st.Size()); err != nil {
		return fileID{}, unpath(err)
	}
	if wal, err := os.Stat(abs + "-wal"); err == nil && wal.Size() > 0 {
		return fileID{}, errors.New("it has a non-empty -wal file; checkpoint it into the database first")
	}
	return fileID{path: abs, st: st}, nil
}

// fileID is a database file as Open checked it.
type fileID struct {
	path string
	st   os.FileInfo
}

// unchanged fails when the file at the path is no longer the one Open
// checked (another file, or the same one with another size or time):
// what was read of it, its schema above all, would no longer hold.
func (f fileID) unchanged() error {
	st, err := os.Stat(f.path)
	if err != nil {
		return fmt.Errorf("reopen: %w", unpath(err))
	}
	if !os.SameFile(st, f.st) || st.Size() != f.st.Size() || !st.ModTime().Equal(f.st.ModTime()) {
		return errors.New("the database file was replaced or changed after the server opened it; " +
			"restart the server to serve the new file")
	}
	return nil
}

// fileURI is the SQLite URI that opens path read-only and immutable: no
// locks are taken, no -journal, -wal or -shm file is ever created, and
// no write can reach the file.
func fileURI(path string) string {
	u := url.URL{Scheme: "file", Path: path, RawQuery: "mode=ro&immutable=1"}
	return u.String()
}

// unpath drops the path from a file operation's error: Open's error names
// the file once, itself.
func unpath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
