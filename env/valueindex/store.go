package valueindex

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sqlgym/sqlgym/env"
)

// Store keeps the value index of each database it is asked about: found
// on disk when its identity matches, built otherwise, once, and then
// shared. It implements env.ValueSearcher and is safe for concurrent use.
type Store struct {
	cfg  Config
	base context.Context    // builds run under it, not under a caller's context
	stop context.CancelFunc // cancels base, in Close
	bg   sync.WaitGroup     // builds and warm-ups running
	run  *slots             // bounds the searches running at once

	mu       sync.Mutex         // guards dbs, closed and released
	dbs      map[string]*flight // by index file path
	closed   bool               // no flight starts
	released bool               // Close closed the indexes: a flight ending later closes its own
}

// flight is one database's index, being opened or built: ix and err are
// set before done is closed, and only read after.
type flight struct {
	done  chan struct{}
	start time.Time
	ix    *index
	err   error
}

// ErrClosed is the error of a call on a closed Store.
var ErrClosed = errors.New("value index closed")

// New returns a Store with cfg's zero bounds set to the defaults. Its
// directory is made when the first index is built.
func New(cfg Config) (*Store, error) {
	cfg = cfg.withDefaults()
	if cfg.Dir == "" {
		return nil, errors.New("value index: no directory")
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("value index: %w", err)
	}
	cfg.Dir = dir
	base, stop := context.WithCancel(context.Background())
	return &Store{cfg: cfg, base: base, stop: stop, run: newSlots(cfg.MaxSearches), dbs: map[string]*flight{}}, nil
}

// Stats returns the searches' counters.
func (s *Store) Stats() Stats { return s.run.snapshot() }

// SearchValues answers q over database dbID of ds, open as db. A first
// search of a database builds its index (or opens the one on disk); a
// search that stops waiting for it (its ctx ends) gets an env.ErrUnavailable
// *env.QueryError saying the index is still being built, and the build
// goes on. At most Config.MaxSearches searches run at once; one more
// waits for a slot within ctx, then gets an env.ErrUnavailable saying
// the searches are busy.
func (s *Store) SearchValues(ctx context.Context, ds *env.Dataset, dbID string, db env.DB, q env.ValueQuery) (*env.ValueMatches, error) {
	f, err := s.flight(ds, dbID, db)
	if err != nil {
		return nil, err
	}
	select {
	case <-f.done:
	case <-ctx.Done():
		return nil, env.NewQueryError(env.ErrUnavailable, fmt.Sprintf(
			"the value index of this database is still being built (for %s so far); try search_values again in a moment",
			time.Since(f.start).Round(time.Second)))
	}
	if f.err != nil {
		return nil, env.NewQueryError(env.ErrUnavailable, "the value index of this database could not be built: "+f.err.Error())
	}
	if err := s.run.acquire(ctx); err != nil {
		return nil, err
	}
	var w work
	defer s.run.release(ctx, &w)
	return f.ix.search(ctx, q, &w)
}

// Prepare opens or builds the index of database dbID of ds, open as db,
// and waits for it (or for ctx).
func (s *Store) Prepare(ctx context.Context, ds *env.Dataset, dbID string, db env.DB) error {
	f, err := s.flight(ds, dbID, db)
	if err != nil {
		return err
	}
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Warm prepares the index of every database of the datasets, one after
// the other, in the background; open returns a database as the episodes
// use it. Each database's Progress is reported as it is ready. Close
// stops it.
func (s *Store) Warm(datasets []*env.Dataset, open func(ctx context.Context, ds *env.Dataset, dbID string) (env.DB, error)) {
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		for _, ds := range datasets {
			for _, dbID := range sortedIDs(ds) {
				if s.base.Err() != nil {
					return
				}
				s.warmOne(ds, dbID, open)
			}
		}
	}()
}

// warmOne prepares one database's index for Warm and waits for it. A
// failure to open the database or to start the build is reported here;
// the build's own outcome, failure included, load reports.
func (s *Store) warmOne(ds *env.Dataset, dbID string, open func(ctx context.Context, ds *env.Dataset, dbID string) (env.DB, error)) {
	db, err := open(s.base, ds, dbID)
	var f *flight
	if err == nil {
		f, err = s.flight(ds, dbID, db)
	}
	if err != nil {
		if s.base.Err() == nil {
			s.cfg.Progress(Progress{Dataset: ds.Name, DBID: dbID, Err: err})
		}
		return
	}
	select {
	case <-f.done:
	case <-s.base.Done():
	}
}

// flight returns the database's flight, starting it when there is none.
// A failed build stays failed until the Store is made again: it is
// reported once, not retried on every search.
func (s *Store) flight(ds *env.Dataset, dbID string, db env.DB) (*flight, error) {
	id, path, err := identify(ds, dbID, s.cfg)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if f, ok := s.dbs[path]; ok {
		return f, nil
	}
	f := &flight{done: make(chan struct{}), start: time.Now()}
	s.dbs[path] = f
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		ix, err := s.load(ds, dbID, db, id, path)
		// Under mu, so Close either sees the flight done and closes its
		// index, or has released the others and this one closes its own.
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.released && ix != nil {
			ix.close()
			ix, err = nil, ErrClosed
		}
		f.ix, f.err = ix, err
		close(f.done)
	}()
	return f, nil
}

// load opens the index at path when its identity is id, and builds it
// otherwise; it reports the database's Progress.
func (s *Store) load(ds *env.Dataset, dbID string, db env.DB, id identity, path string) (*index, error) {
	start := time.Now()
	p := Progress{Dataset: ds.Name, DBID: dbID, Path: path}
	ix, err := openIndex(path, id)
	if err == nil {
		p.Reused, p.Values, p.Partial, p.Elapsed = true, ix.values, ix.partial(), time.Since(start)
		s.cfg.Progress(p)
		return ix, nil
	}
	if nr := (*notRegularError)(nil); errors.As(err, &nr) {
		p.Err, p.Elapsed = err, time.Since(start)
		s.cfg.Progress(p)
		return nil, err
	}
	ctx, cancel := context.WithTimeout(s.base, s.cfg.BuildTimeout)
	defer cancel()
	if err := build(ctx, db, ds.Dialect, id, path, s.cfg); err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("%w (the build stops at --value-index-build-timeout, %s)", err, s.cfg.BuildTimeout)
		}
		p.Err, p.Elapsed = err, time.Since(start)
		s.cfg.Progress(p)
		return nil, err
	}
	if ix, err = openIndex(path, id); err != nil {
		p.Err = err
		s.cfg.Progress(p)
		return nil, err
	}
	p.Values, p.Partial, p.Elapsed = ix.values, ix.partial(), time.Since(start)
	s.cfg.Progress(p)
	return ix, nil
}

// Close stops the builds under way and waits for them, at most
// Config.CloseTimeout, then closes every index ready. A build still
// running then is named in the error and closes its index when it ends.
func (s *Store) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.stop()
	stopped := make(chan struct{})
	go func() { s.bg.Wait(); close(stopped) }()
	timer := s.cfg.Clock.NewTimer(s.cfg.CloseTimeout)
	defer timer.Stop()
	var errs []error
	select {
	case <-stopped:
	case <-timer.Chan():
		errs = append(errs, fmt.Errorf("value index: closed with builds still running after %s: %s",
			s.cfg.CloseTimeout, strings.Join(s.running(), ", ")))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.released = true
	for _, f := range s.dbs {
		select {
		case <-f.done:
			if f.ix != nil {
				errs = append(errs, f.ix.close())
			}
		default:
		}
	}
	return errors.Join(errs...)
}

// running are the index files whose build has not ended.
func (s *Store) running() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for path, f := range s.dbs {
		select {
		case <-f.done:
		default:
			out = append(out, path)
		}
	}
	sort.Strings(out)
	return out
}
