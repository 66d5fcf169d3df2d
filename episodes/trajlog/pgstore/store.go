// Package pgstore keeps trajectories in PostgreSQL: a table of episodes
// and a table of steps, written by pgx in batches, so that several server
// replicas can share one store. A Store is both a trajlog.Writer and a
// trajlog.Reader.
//
// Writes are group-committed: Begin and Step queue their rows and return;
// one goroutine writes whatever is queued in a single transaction (a
// pgx.Batch sent in one round trip); End waits until its episode's rows
// are committed. A failed write fails the episode: the next Step or its End
// returns the error, so nothing is dropped silently. Whether a commit
// waits for PostgreSQL's WAL flush follows Config.Durability.
//
// PostgreSQL cannot store the NUL character in text or jsonb: a record
// holding one is refused with ErrNUL before it reaches the server.
package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

// ErrClosed is returned by writes to a closed Store.
var ErrClosed = errors.New("pgstore: store is closed")

// ErrNUL is returned for a record holding the NUL character, which
// PostgreSQL text and jsonb cannot hold.
var ErrNUL = errors.New("pgstore: PostgreSQL cannot store the NUL character")

// Config configures a Store; zero fields take their defaults.
type Config struct {
	// URL is the connection string, postgres://user@host:port/db?....
	// A search_path parameter in it selects the schema the tables live in,
	// created if missing.
	URL string
	// Schema, when set, overrides the URL's search_path.
	Schema string
	// MaxBatch bounds the rows written by one transaction (1000).
	MaxBatch int
	// QueueSize is how many rows may wait to be written before Begin and
	// Step block (8192).
	QueueSize int
	// FlushTimeout bounds one transaction (30s).
	FlushTimeout time.Duration
	// PageSize is how many episodes the reader fetches at a time (256).
	PageSize int
	// Durability sets the connections' synchronous_commit: on for
	// DurabilityEpisode (the zero value), so that an End that returned is
	// in PostgreSQL's fsynced WAL; off for DurabilityInterval and
	// DurabilityNone, so that a commit returns before its WAL is flushed
	// (PostgreSQL's WAL writer flushes it within three times
	// wal_writer_delay). End waits for the commit in every mode. It
	// overrides a synchronous_commit parameter in URL.
	Durability trajlog.Durability
	// Replica, when set, makes the store shared by replicas
	// (trajlog.Shared, replica.go): this replica's id, its heartbeat
	// written every third of LeaseTTL; Begin and Step return once their
	// row is committed, and writes are fenced by the episode's replica.
	Replica string
	// LeaseTTL is how old a replica's heartbeat may grow before another
	// replica may claim its episodes (DefaultLeaseTTL).
	LeaseTTL time.Duration
}

func (c *Config) setDefaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.MaxBatch, 1000)
	def(&c.QueueSize, 8192)
	def(&c.PageSize, 256)
	if c.FlushTimeout <= 0 {
		c.FlushTimeout = 30 * time.Second
	}
	if c.LeaseTTL <= 0 {
		c.LeaseTTL = DefaultLeaseTTL
	}
}

// Store is the PostgreSQL trajectory store. It is safe for concurrent use.
type Store struct {
	cfg  Config
	pool *pgxpool.Pool
	ops  chan op // rows waiting for the flusher

	base     context.Context    // the flusher's context, cancelled by Close
	cancel   context.CancelFunc // cancels base
	stopped  chan struct{}      // closed when the flusher has returned
	beatStop context.CancelFunc // stops the heartbeat (HandBack), before Close
	beatDone chan struct{}      // closed when the heartbeat has returned (closed at once when not shared)

	mu     sync.RWMutex // guards closed; held for reading while sending on ops
	closed bool

	failMu sync.Mutex       // guards failed
	failed map[string]error // episodes a write failed for, until their End
}

var (
	_ trajlog.Writer = (*Store)(nil)
	_ trajlog.Reader = (*Store)(nil)
)

// Open connects to the store at url, creating its tables if missing.
func Open(ctx context.Context, url string) (*Store, error) {
	return OpenConfig(ctx, Config{URL: url})
}

// OpenConfig connects to the store cfg describes, creating its schema and
// tables if missing.
func OpenConfig(ctx context.Context, cfg Config) (*Store, error) {
	cfg.setDefaults()
	pcfg, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	if cfg.Schema != "" {
		pcfg.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{cfg.Schema}.Sanitize()
	}
	sc, err := synchronousCommit(cfg.Durability)
	if err != nil {
		return nil, err
	}
	pcfg.ConnConfig.RuntimeParams["synchronous_commit"] = sc
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: connect: %w", err)
	}
	if err := migrate(ctx, pool, firstSchema(pcfg.ConnConfig.RuntimeParams["search_path"])); err != nil {
		pool.Close()
		return nil, err
	}
	base, cancel := context.WithCancel(context.WithoutCancel(ctx))
	beating, beatStop := context.WithCancel(base)
	s := &Store{
		cfg: cfg, pool: pool, ops: make(chan op, cfg.QueueSize),
		base: base, cancel: cancel, stopped: make(chan struct{}),
		beatStop: beatStop, beatDone: make(chan struct{}), failed: map[string]error{},
	}
	if !s.shared() {
		close(s.beatDone)
	} else if err := s.beat(ctx); err != nil {
		cancel()
		pool.Close()
		return nil, err
	} else {
		go s.heartbeat(beating)
	}
	go s.run()
	return s, nil
}

// Close writes what is queued, stops the flusher and closes the
// connections. Writes after Close fail with ErrClosed.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.ops)
	s.mu.Unlock()
	<-s.stopped
	s.cancel()
	<-s.beatDone
	s.pool.Close()
	return nil
}

// synchronousCommit is the synchronous_commit setting of a durability.
func synchronousCommit(d trajlog.Durability) (string, error) {
	switch d {
	case trajlog.DurabilityEpisode:
		return "on", nil
	case trajlog.DurabilityInterval, trajlog.DurabilityNone:
		return "off", nil
	}
	return "", fmt.Errorf("pgstore: unknown %v", d)
}

// firstSchema is the first schema of a search_path value as PostgreSQL
// reads it (quotes removed, unquoted names folded to lower case); "" for
// none or for the per-user "$user" schema.
func firstSchema(searchPath string) string {
	first, _, _ := strings.Cut(searchPath, ",")
	first = strings.TrimSpace(first)
	if len(first) >= 2 && first[0] == '"' && first[len(first)-1] == '"' {
		return strings.ReplaceAll(first[1:len(first)-1], `""`, `"`)
	}
	if first == "$user" {
		return ""
	}
	return strings.ToLower(first)
}
