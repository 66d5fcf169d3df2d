package postgres

import "time"

// Defaults for the zero fields of Config.
const (
	DefaultRole           = "sqlgym_reader"
	DefaultMaxConns       = 32
	DefaultMaxSchemaConns = 24
	DefaultMaxSQLBytes    = 1 << 20
	DefaultMaxValueBytes  = 8 << 20
	DefaultTimeout        = 5 * time.Second
	DefaultMaxResultRows  = 1_000_000
	DefaultMaxResultBytes = 256 << 20
	// DefaultMaxStatementMemory bounds the private memory of the server
	// process running a statement (memwatch.go).
	DefaultMaxStatementMemory = 256 << 20
)

// fetchBatch is how many rows one Execute asks for when the call wants
// more: each batch is a round trip, and rows past a stop are read and
// dropped only up to the end of the batch.
const fetchBatch = 1024

// cancelGrace is how long a cancelled call waits for the server to
// confirm the cancel before the connection is cut.
const cancelGrace = 2 * time.Second

// Config configures an Engine. The zero value is usable: every zero field
// takes the default named beside it.
type Config struct {
	// Role is the role every connection logs in as: one that reads
	// nothing itself, and switches per call to the schema's own role
	// (SchemaRole; EnsureReader creates both). The user in a
	// source's URL is replaced by it, and its password dropped unless
	// the URL's user is this role. "" means DefaultRole.
	Role string
	// MaxConns bounds the connections to one server, so the statements
	// running on it at once, across all its schemas; 0 means
	// DefaultMaxConns.
	MaxConns int
	// MaxSchemaConns bounds the statements running at once on one
	// schema; 0 means DefaultMaxSchemaConns, at most MaxConns.
	MaxSchemaConns int
	// ReserveConns are the connections of a server that a schema already
	// running a statement may not take: they are kept for the other
	// schemas' first statements (sandbox.Admission). 0 means a quarter of
	// MaxConns; it is at most MaxConns - 1.
	ReserveConns int
	// MaxSQLBytes bounds a statement's text; 0 means DefaultMaxSQLBytes.
	MaxSQLBytes int
	// MaxValueBytes bounds one row as it comes over the wire (a message
	// of the protocol); a longer row fails the call with env.ErrTooLarge
	// and the connection is dropped. 0 means DefaultMaxValueBytes.
	MaxValueBytes int
	// DefaultTimeout replaces a zero env.Limits.Timeout; 0 means
	// DefaultTimeout.
	DefaultTimeout time.Duration
	// MaxResultRows and MaxResultBytes bound a result whose env.Limits
	// leave rows or bytes unlimited; 0 means DefaultMaxResultRows and
	// DefaultMaxResultBytes.
	MaxResultRows  int
	MaxResultBytes int
	// MaxStatementMemory bounds the private memory of the server process
	// running a statement, where that process is on this host: past it
	// the statement is cancelled and fails with env.ErrTooLarge. 0 means
	// DefaultMaxStatementMemory; negative, no bound.
	MaxStatementMemory int64
	// Mutable, when set, declares that the served schemas may change
	// while they are served: the databases then do not implement
	// env.Immutable truthfully (they report false), and what
	// inspect_schema shows is read again on every call.
	Mutable bool
}

// withDefaults returns cfg with every zero field set to its default.
func (cfg Config) withDefaults() Config {
	set := func(p *int, d int) {
		if *p <= 0 {
			*p = d
		}
	}
	if cfg.Role == "" {
		cfg.Role = DefaultRole
	}
	set(&cfg.MaxConns, DefaultMaxConns)
	set(&cfg.MaxSchemaConns, DefaultMaxSchemaConns)
	cfg.MaxSchemaConns = min(cfg.MaxSchemaConns, cfg.MaxConns)
	if cfg.ReserveConns <= 0 {
		cfg.ReserveConns = cfg.MaxConns / 4
	}
	cfg.ReserveConns = min(cfg.ReserveConns, cfg.MaxConns-1)
	set(&cfg.MaxSQLBytes, DefaultMaxSQLBytes)
	set(&cfg.MaxValueBytes, DefaultMaxValueBytes)
	set(&cfg.MaxResultRows, DefaultMaxResultRows)
	set(&cfg.MaxResultBytes, DefaultMaxResultBytes)
	if cfg.MaxStatementMemory == 0 {
		cfg.MaxStatementMemory = DefaultMaxStatementMemory
	}
	if cfg.DefaultTimeout <= 0 {
		cfg.DefaultTimeout = DefaultTimeout
	}
	return cfg
}
