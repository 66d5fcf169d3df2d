package sandbox

import (
	"context"
	"fmt"
	"sync"
)

// Shares are the bounds an Admission keeps among the statements of one
// server's (or one engine's) databases.
type Shares struct {
	// Max bounds the statements running at once on the server.
	Max int
	// Reserve is how many of Max a statement that is not a first one may
	// not take: they are kept for the first statements of databases
	// running nothing, and of holders running nothing on theirs while a
	// group holds several on the server.
	Reserve int
	// PerDB bounds the statements running at once on one database.
	PerDB int
	// HolderReserve is how many of PerDB a holder (env.WithHolder) that
	// already runs a statement on the database may not take: they are
	// kept for other holders' first statements there. Statements with no
	// holder are not counted by holder.
	HolderReserve int
}

// Sayings are how an engine names its two hard bounds in the error of a
// statement that waited for them: fmt formats taking the bound.
type Sayings struct {
	Server string // e.g. "all %d connections to the server stayed busy with other statements"
	DB     string // e.g. "all %d connections to this database stayed busy with other statements"
}

// Admission decides which statements of one server's databases may run.
// A database runs at most PerDB statements at once, and the server Max.
// A statement that is not a first one (of a database running nothing, or
// of a holder running nothing on its database while another holder runs
// several on the server) may run only while more than Reserve of the server's Max are
// free; and a holder already running a statement on a database may take
// another only while more than HolderReserve of that database's PerDB
// are free. So runaway statements (a GRPO group of sleeping submits) on
// a few databases leave room for every other database's first
// statement, and on one database for every other episode's. It is safe
// for concurrent use.
type Admission struct {
	shares Shares
	say    Sayings

	mu       sync.Mutex
	inUse    int
	waiting  int // statements waiting for a turn
	byDB     map[string]*dbUse
	byHolder map[string]int // statements running by holder, on every database
	changed  chan struct{}  // closed, and replaced, when a statement ends
}

// dbUse is what runs on one database: statements, and by holder.
type dbUse struct {
	n        int
	byHolder map[string]int
}

// NewAdmission returns the admission of one server with shares s, whose
// waits are explained in the words of say.
func NewAdmission(s Shares, say Sayings) *Admission {
	return &Admission{shares: s, say: say, byDB: map[string]*dbUse{}, byHolder: map[string]int{}, changed: make(chan struct{})}
}

// Acquire waits until a statement of holder on db may run, or ctx ends;
// then its error is a *WaitError saying which bound kept it waiting. A
// nil error must be followed by Release with the same db and holder.
func (a *Admission) Acquire(ctx context.Context, db, holder string) error {
	for {
		a.mu.Lock()
		why := a.blocked(db, holder)
		if why == "" {
			a.take(db, holder)
			a.mu.Unlock()
			return nil
		}
		changed := a.changed
		a.waiting++
		a.mu.Unlock()
		select {
		case <-changed:
			a.doneWaiting()
		case <-ctx.Done():
			a.doneWaiting()
			return &WaitError{Err: ctx.Err(), Why: why}
		}
	}
}

// TryAcquire admits a statement of holder on db if it may run now, and
// reports whether it did; true must be followed by Release.
func (a *Admission) TryAcquire(db, holder string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.blocked(db, holder) != "" {
		return false
	}
	a.take(db, holder)
	return true
}

// blocked is why a statement of holder on db may not run now, or "".
func (a *Admission) blocked(db, holder string) string {
	s, u := a.shares, a.byDB[db]
	n, h := 0, 0
	if u != nil {
		n, h = u.n, u.byHolder[holder]
	}
	// A first statement: of a database running nothing, or of a holder
	// running nothing on its database while some holder runs several on
	// the server (a group taking more than one turn). Ungrouped episodes
	// each hold one, so a flood of them is not let into the reserve one
	// by one.
	first := n == 0 || (holder != "" && h == 0 && a.topHolder() > 1)
	switch {
	case n >= s.PerDB:
		return fmt.Sprintf(a.say.DB, s.PerDB)
	case a.inUse >= s.Max:
		return fmt.Sprintf(a.say.Server, s.Max)
	case !first && a.inUse >= s.Max-s.Reserve:
		return fmt.Sprintf("this database ran %d statements and the server's last %d are kept for other databases' and episode groups' first", n, s.Reserve)
	case holder != "" && h > 0 && n >= s.PerDB-s.HolderReserve:
		return fmt.Sprintf("this episode group ran %d statements on this database and its last %d are kept for other episodes", h, s.HolderReserve)
	}
	return ""
}

// topHolder is the most statements one holder runs on the server.
func (a *Admission) topHolder() int {
	most := 0
	for _, k := range a.byHolder {
		most = max(most, k)
	}
	return most
}

// take counts a statement of holder on db as running.
func (a *Admission) take(db, holder string) {
	a.inUse++
	u := a.byDB[db]
	if u == nil {
		u = &dbUse{byHolder: map[string]int{}}
		a.byDB[db] = u
	}
	u.n++
	if holder != "" {
		u.byHolder[holder]++
		a.byHolder[holder]++
	}
}

// doneWaiting counts a wait that ended.
func (a *Admission) doneWaiting() {
	a.mu.Lock()
	a.waiting--
	a.mu.Unlock()
}

// Counts are the statements running and waiting.
func (a *Admission) Counts() (running, waiting int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.inUse, a.waiting
}

// Release ends a statement of holder on db and wakes the waiting ones.
func (a *Admission) Release(db, holder string) {
	a.mu.Lock()
	a.inUse--
	u := a.byDB[db]
	u.n--
	if holder != "" {
		if u.byHolder[holder]--; u.byHolder[holder] == 0 {
			delete(u.byHolder, holder)
		}
		if a.byHolder[holder]--; a.byHolder[holder] == 0 {
			delete(a.byHolder, holder)
		}
	}
	if u.n == 0 {
		delete(a.byDB, db)
	}
	close(a.changed)
	a.changed = make(chan struct{})
	a.mu.Unlock()
}

// WaitError is a statement that got no turn before its context ended.
type WaitError struct {
	Err error  // the context's
	Why string // which bound kept it waiting
}

func (e *WaitError) Error() string { return e.Why + ": " + e.Err.Error() }
func (e *WaitError) Unwrap() error { return e.Err }

// QuarterOf is the reserve an engine keeps by default out of n: a
// quarter, and at least one whenever n is two or more, so that a bound
// of a few still keeps one for others.
func QuarterOf(n int) int {
	if n < 2 {
		return 0
	}
	return max(1, n/4)
}

// WhyWaited is the Why of err when it is a *WaitError, else "".
func WhyWaited(err error) string {
	if we, ok := err.(*WaitError); ok {
		return we.Why
	}
	return ""
}
