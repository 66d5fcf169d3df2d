package tools

import (
	"context"
	"reflect"
	"sync"

	"github.com/sqlgym/sqlgym/env"
)

// DefaultSchemaCacheBytes is the default of Config.SchemaCacheBytes: the
// inspect_schema text kept per database.
const DefaultSchemaCacheBytes = 1 << 20

// entryOverhead is what a kept text costs beyond its bytes and its key's:
// the map entry, the flight and the string headers, rounded up.
const entryOverhead = 128

// schemaCache keeps the text inspect_schema shows of each immutable
// database, once it has been read, for every caller of the Runner: the
// table list, each table's description, and the list of table names an
// unknown table's error adds. A text is read once however many callers
// ask for it at the same moment (the first reads, the others wait), and
// kept only when it is a success and fits within the database's share of
// bytes; anything else is read afresh by the next call, as without a
// cache. Texts are never evicted: a database's content cannot change
// while it is open.
type schemaCache struct {
	maxBytes int // per database; < 0: nothing is kept

	mu      sync.Mutex
	flights map[cacheKey]*flight // guarded by mu: kept texts and fills under way
	used    map[env.DB]int       // guarded by mu: bytes kept per database
	waiting int                  // guarded by mu: callers waiting on a fill
}

// cacheKey names one text of one database.
type cacheKey struct {
	db    env.DB
	kind  textKind
	name  string       // of a table, folded; "" for the other kinds
	notes *env.DBNotes // the descriptions shown with a table, nil for none
}

// textKind is what a kept text shows.
type textKind uint8

const (
	kindList  textKind = iota // every table with its columns
	kindNames                 // the names an unknown table's error lists
	kindTable                 // one table's description
)

// flight is one text: being read until done is closed, then kept (or
// failed, and already gone from the map).
type flight struct {
	done chan struct{}
	text string // set before done is closed
	ok   bool   // the fill succeeded; set before done is closed
}

func newSchemaCache(maxBytes int) *schemaCache {
	return &schemaCache{maxBytes: maxBytes, flights: map[cacheKey]*flight{}, used: map[env.DB]int{}}
}

// fillFunc reads a text the uncached way, leaving the caller's own result
// where the caller can find it, and reports whether the text may be kept
// and shared with other callers (a success).
type fillFunc func() (text string, keep bool)

// load returns the text of k: the one kept, the one a concurrent
// caller's fill produced, or else the one of fill, which this caller then
// ran itself (ran is true, and the caller's own result is what counts).
// A caller waits for another's fill until its own context ends; a fill
// that failed leaves each waiting caller to run its own.
func (c *schemaCache) load(ctx context.Context, k cacheKey, fill fillFunc) (text string, ran bool) {
	if !c.cacheable(k.db) {
		text, _ = fill()
		return text, true
	}
	c.mu.Lock()
	f, found := c.flights[k]
	switch {
	case found && closed(f.done): // kept: failed fills leave the map as they end
		c.mu.Unlock()
		return f.text, false
	case found:
		c.waiting++
		c.mu.Unlock()
		if text, ok := c.wait(ctx, f); ok {
			return text, false
		}
		text, _ = fill()
		return text, true
	}
	f = &flight{done: make(chan struct{})}
	c.flights[k] = f
	c.mu.Unlock()
	f.text, f.ok = fill()
	c.settle(k, f)
	return f.text, true
}

func closed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// wait waits for f's fill or the end of ctx, and returns f's text when
// the fill succeeded.
func (c *schemaCache) wait(ctx context.Context, f *flight) (string, bool) {
	defer func() {
		c.mu.Lock()
		c.waiting--
		c.mu.Unlock()
	}()
	select {
	case <-f.done:
		return f.text, f.ok
	case <-ctx.Done():
		return "", false
	}
}

// settle keeps f's text when its fill succeeded and the database's share
// has room for it, drops it otherwise, and wakes the callers waiting.
func (c *schemaCache) settle(k cacheKey, f *flight) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer close(f.done)
	if !f.ok || !c.room(k, f.text) {
		delete(c.flights, k)
	}
}

// keep keeps text as k's, as a successful fill would, unless a text is
// kept or being read for k already.
func (c *schemaCache) keep(k cacheKey, text string) {
	if !c.cacheable(k.db) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.flights[k]; dup || !c.room(k, text) {
		return
	}
	f := &flight{done: make(chan struct{}), text: text, ok: true}
	close(f.done)
	c.flights[k] = f
}

// room counts text against its database's share when it fits there,
// and reports whether it did. The caller holds mu.
func (c *schemaCache) room(k cacheKey, text string) bool {
	size := entryOverhead + len(k.name) + len(text)
	if c.used[k.db]+size > c.maxBytes {
		return false
	}
	c.used[k.db] += size
	return true
}

// cacheable holds for databases whose content is fixed, when the cache
// keeps anything at all.
func (c *schemaCache) cacheable(db env.DB) bool {
	if c.maxBytes < 0 {
		return false
	}
	im, ok := db.(env.Immutable)
	return ok && im.Immutable() && reflect.TypeOf(db).Comparable()
}

// bytes is what the cache keeps of db, in bytes as it counts them.
func (c *schemaCache) bytes(db env.DB) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used[db]
}
