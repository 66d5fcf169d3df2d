package sqlite

import (
	"container/list"
	"database/sql"
	"errors"
	"sync"
)

// errDBClosed is the error of a call on a database after its Close.
var errDBClosed = errors.New("database closed")

// openSet is the engine's databases whose connection pool is open, most
// recently used first. It keeps at most max of them open: using a
// database past that closes the pool of the least recently used one that
// no call holds, and a database whose pool was closed opens a new one
// on its next call. Databases that calls hold are never closed, so while
// more than max are in use at once, that many are open.
//
// Why a bound: go-sqlite3 walks a map of every open connection's
// callback handles on each close (deleteHandles), and SQLite's unix VFS
// walks a list of every open file on each open (findInodeInfo), so with
// every database kept open, opening and closing N databases took time
// quadratic in N; and each open database holds its schema, page cache
// and prepared statements. With at most max open, both walks are bounded
// by max, and so are the memory and file descriptors of idle databases.
type openSet struct {
	max   int
	pools *pools // the engine's statistics, which count each open pool
	mu    sync.Mutex
	lru   list.List // of *db, most recently used at the front; guarded by mu
}

// use returns d's connection pool, opening one when d has none, and
// marks d most recently used. A nil error must be followed by done(d).
func (s *openSet) use(d *db) (*sql.DB, error) {
	s.mu.Lock()
	if d.pool == nil && !d.closed {
		s.mu.Unlock()
		if err := d.file.unchanged(); err != nil { // outside the lock: a stat
			return nil, err
		}
		s.mu.Lock()
	}
	if d.closed {
		s.mu.Unlock()
		return nil, errDBClosed
	}
	if d.pool == nil {
		d.pool = d.newPool()
		s.pools.add(d.pool)
		d.elem = s.lru.PushFront(d)
	} else {
		s.lru.MoveToFront(d.elem)
	}
	d.users++
	pool := d.pool
	evicted := s.evictLocked()
	s.mu.Unlock()
	s.closeAll(evicted)
	return pool, nil
}

// done ends a call that use let in, closing what it kept over the bound.
func (s *openSet) done(d *db) {
	s.mu.Lock()
	d.users--
	evicted := s.evictLocked()
	s.mu.Unlock()
	s.closeAll(evicted)
}

// remove takes d out of the set for good (its Close) and returns its
// pool, nil when it had none open. Calls still running on the pool end
// normally; the pool's Close closes their connections when they do.
func (s *openSet) remove(d *db) *sql.DB {
	s.mu.Lock()
	defer s.mu.Unlock()
	d.closed = true
	return s.detachLocked(d)
}

// idle closes d's pool unless a call holds it.
func (s *openSet) idle(d *db) {
	s.mu.Lock()
	var pool *sql.DB
	if d.users == 0 {
		pool = s.detachLocked(d)
	}
	s.mu.Unlock()
	if pool != nil {
		s.closeAll([]*sql.DB{pool})
	}
}

// open is how many databases have a pool open.
func (s *openSet) open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lru.Len()
}

// evictLocked detaches the least recently used databases that no call
// holds until at most max are open (or every one left is in use), and
// returns their pools for closeAll.
func (s *openSet) evictLocked() []*sql.DB {
	var out []*sql.DB
	for e := s.lru.Back(); e != nil && s.lru.Len() > s.max; {
		d := e.Value.(*db)
		e = e.Prev()
		if d.users == 0 {
			out = append(out, s.detachLocked(d))
		}
	}
	return out
}

// detachLocked takes d's pool out of the set and returns it.
func (s *openSet) detachLocked(d *db) *sql.DB {
	if d.elem != nil {
		s.lru.Remove(d.elem)
		d.elem = nil
	}
	pool := d.pool
	d.pool = nil
	return pool
}

// closeAll closes pools detached from the set, without its lock: closing
// a connection is a cgo call and a walk of go-sqlite3's handle map.
func (s *openSet) closeAll(evicted []*sql.DB) {
	for _, pool := range evicted {
		s.pools.close(pool) // nothing to report: no call holds it, and the file is read-only
	}
}
