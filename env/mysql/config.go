package mysql

import "time"

// Defaults for the zero fields of Config.
const (
	DefaultAccount        = "sqlgym_reader"
	DefaultMaxConns       = 32
	DefaultMaxDBConns     = 8
	DefaultMaxSQLBytes    = 1 << 20
	DefaultTimeout        = 5 * time.Second
	DefaultMaxResultRows  = 1_000_000
	DefaultMaxResultBytes = 256 << 20
	// DefaultMaxSessionMemory bounds the memory one session may hold on
	// a MariaDB server (max_session_mem_used).
	DefaultMaxSessionMemory = 256 << 20
	// DefaultMaxTempDiskBytes bounds one on-disk temporary table of a
	// MariaDB session (tmp_disk_table_size).
	DefaultMaxTempDiskBytes = 256 << 20
)

// killGrace is how long a cancelled call waits for the server to kill
// its statement, and how long past its own limit the server has to stop
// a statement before the call gives up on it.
const killGrace = 2 * time.Second

// idleConnTime is how long an idle connection stays open.
const idleConnTime = time.Minute

// Config configures an Engine. The zero value is usable: every zero field
// takes the default named beside it.
type Config struct {
	// Account is the prefix of every database's account (Account): the
	// user in a source's URL is replaced by it, and its password dropped
	// unless the URL's user is that account. "" means DefaultAccount.
	Account string
	// MaxConns bounds the connections to one server, so the statements
	// running on it at once, across all its databases; 0 means
	// DefaultMaxConns.
	MaxConns int
	// MaxDBConns bounds the connections to one database; 0 means
	// DefaultMaxDBConns, at most MaxConns.
	MaxDBConns int
	// ReserveConns are the connections of a server that a database
	// already running a statement may not take: they are kept for the
	// other databases' first statements (sandbox.Admission). 0 means a
	// quarter of MaxConns; it is at most MaxConns - 1.
	ReserveConns int
	// MaxSQLBytes bounds a statement's text; 0 means DefaultMaxSQLBytes.
	MaxSQLBytes int
	// DefaultTimeout replaces a zero env.Limits.Timeout; 0 means
	// DefaultTimeout.
	DefaultTimeout time.Duration
	// MaxResultRows and MaxResultBytes bound a result whose env.Limits
	// leave rows or bytes unlimited; 0 means DefaultMaxResultRows and
	// DefaultMaxResultBytes.
	MaxResultRows  int
	MaxResultBytes int
	// MaxSessionMemory bounds the memory one session holds on a MariaDB
	// server (max_session_mem_used): past it the statement fails with
	// env.ErrTooLarge. 0 means DefaultMaxSessionMemory. MySQL has no
	// bound a session may set for itself: see docs/engines.md.
	MaxSessionMemory int64
	// MaxTempDiskBytes bounds one temporary table a MariaDB statement
	// writes to disk (a GROUP BY, DISTINCT or derived table past
	// tmp_table_size, tmp_disk_table_size): past it the statement fails
	// with env.ErrTooLarge. 0 means DefaultMaxTempDiskBytes. A sort's
	// own files are bounded by the statement's time alone, and MySQL has
	// no such bound a session may set: see docs/engines.md.
	MaxTempDiskBytes int64
}

// withDefaults returns cfg with every zero field set to its default.
func (cfg Config) withDefaults() Config {
	set := func(p *int, d int) {
		if *p <= 0 {
			*p = d
		}
	}
	if cfg.Account == "" {
		cfg.Account = DefaultAccount
	}
	set(&cfg.MaxConns, DefaultMaxConns)
	set(&cfg.MaxDBConns, DefaultMaxDBConns)
	cfg.MaxDBConns = min(cfg.MaxDBConns, cfg.MaxConns)
	if cfg.ReserveConns <= 0 {
		cfg.ReserveConns = cfg.MaxConns / 4
	}
	cfg.ReserveConns = min(cfg.ReserveConns, cfg.MaxConns-1)
	set(&cfg.MaxSQLBytes, DefaultMaxSQLBytes)
	set(&cfg.MaxResultRows, DefaultMaxResultRows)
	set(&cfg.MaxResultBytes, DefaultMaxResultBytes)
	if cfg.MaxSessionMemory <= 0 {
		cfg.MaxSessionMemory = DefaultMaxSessionMemory
	}
	if cfg.MaxTempDiskBytes <= 0 {
		cfg.MaxTempDiskBytes = DefaultMaxTempDiskBytes
	}
	if cfg.DefaultTimeout <= 0 {
		cfg.DefaultTimeout = DefaultTimeout
	}
	return cfg
}
