package env

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrCatalogClosed is the error of a DB call on a closed Catalog.
var ErrCatalogClosed = errors.New("catalog closed")

// Catalog opens each database of each dataset once, on first use, and
// hands out the shared handle afterwards. A database is opened without
// the catalog's lock held, so a slow open (a large file, a network
// server) holds up only the calls that want that database.
type Catalog struct {
	engines map[Dialect]Engine // by dialect; set at construction, read-only after

	mu     sync.Mutex          // guards dbs and closed
	dbs    map[string]*opening // by dialect + source
	closed bool
}

// opening is one database, opened or being opened: db and err are set
// before done is closed, and only read after.
type opening struct {
	done chan struct{}
	db   DB
	err  error
}

// NewCatalog returns a catalog that opens databases with the given engines,
// one per dialect.
func NewCatalog(engines ...Engine) *Catalog {
	c := &Catalog{engines: map[Dialect]Engine{}, dbs: map[string]*opening{}}
	for _, e := range engines {
		c.engines[e.Dialect()] = e
	}
	return c
}

// DB returns the database db_id of the dataset, opening it on first use;
// calls that come while it opens wait for that open (or their ctx). A
// failed open is not remembered: the next call tries again.
func (c *Catalog) DB(ctx context.Context, ds *Dataset, dbID string) (DB, error) {
	source, ok := ds.DBs[dbID]
	if !ok {
		return nil, fmt.Errorf("dataset %s: unknown db_id %q", ds.Name, dbID)
	}
	eng, ok := c.engines[ds.Dialect]
	if !ok {
		return nil, fmt.Errorf("dataset %s: no engine for dialect %q", ds.Name, ds.Dialect)
	}
	key := string(ds.Dialect) + "\x00" + source
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrCatalogClosed
	}
	o, found := c.dbs[key]
	if !found {
		o = &opening{done: make(chan struct{})}
		c.dbs[key] = o
	}
	c.mu.Unlock()
	if !found {
		c.open(context.WithoutCancel(ctx), eng, key, source, o) // others may wait for it
	}
	select {
	case <-o.done:
	case <-ctx.Done():
		return nil, fmt.Errorf("open %s/%s: %w", ds.Name, dbID, ctx.Err())
	}
	if o.err != nil {
		return nil, fmt.Errorf("open %s/%s: %w", ds.Name, dbID, o.err)
	}
	return o.db, nil
}

// open opens source for o and publishes the result; a failure, or a
// catalog closed meanwhile, leaves nothing behind.
func (c *Catalog) open(ctx context.Context, eng Engine, key, source string, o *opening) {
	defer close(o.done)
	db, err := eng.Open(ctx, source)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case err != nil:
		o.err = err
		delete(c.dbs, key)
	case c.closed:
		o.err = errors.Join(ErrCatalogClosed, db.Close())
	default:
		o.db = db
	}
}

// Close closes every database the catalog opened; an open still under way
// closes its database when it ends.
func (c *Catalog) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	var errs []error
	for key, o := range c.dbs {
		select {
		case <-o.done:
			if o.db != nil {
				errs = append(errs, o.db.Close())
			}
			delete(c.dbs, key)
		default: // its open closes it
		}
	}
	return errors.Join(errs...)
}
