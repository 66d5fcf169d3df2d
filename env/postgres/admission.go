package postgres

import (
	"context"
	"fmt"
	"sync"
)

// admission decides which statements of one server's schemas may take a
// connection. A schema runs at most perSchema statements at once; and a
// schema that already runs one may take another only while more than
// reserve of the server's max connections are free, so that runaway
// statements on a few schemas (a GRPO group of pg_sleep submits) leave
// connections for every other schema's first statement.
type admission struct {
	max, reserve, perSchema int

	mu       sync.Mutex
	inUse    int
	waiting  int // statements waiting for a turn
	bySchema map[string]int
	changed  chan struct{} // closed, and replaced, when a statement ends
}

// newAdmission returns the admission of a server of max connections.
func newAdmission(max, reserve, perSchema int) *admission {
	return &admission{max: max, reserve: reserve, perSchema: perSchema,
		bySchema: map[string]int{}, changed: make(chan struct{})}
}

// acquire waits until a statement on schema may run, or ctx ends; then
// its error says which bound kept the statement waiting.
func (a *admission) acquire(ctx context.Context, schema string) error {
	for {
		a.mu.Lock()
		why := a.blocked(schema)
		if why == "" {
			a.inUse++
			a.bySchema[schema]++
			a.mu.Unlock()
			return nil
		}
		changed := a.changed
		a.waiting++
		a.mu.Unlock()
		select {
		case <-changed:
			a.done()
		case <-ctx.Done():
			a.done()
			return &waitError{err: ctx.Err(), why: why}
		}
	}
}

// blocked is why a statement on schema may not run now, or "".
func (a *admission) blocked(schema string) string {
	n := a.bySchema[schema]
	switch {
	case n >= a.perSchema:
		return fmt.Sprintf("%d statements were running on this database, its limit", a.perSchema)
	case a.inUse >= a.max:
		return fmt.Sprintf("all %d connections to the server stayed busy with other statements", a.max)
	case n > 0 && a.inUse >= a.max-a.reserve:
		return fmt.Sprintf("this database ran %d statements and the server's last %d connections are kept for other databases", n, a.reserve)
	}
	return ""
}

// done counts a wait that ended.
func (a *admission) done() {
	a.mu.Lock()
	a.waiting--
	a.mu.Unlock()
}

// counts are the statements running and waiting.
func (a *admission) counts() (running, waiting int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.inUse, a.waiting
}

// release ends a statement on schema and wakes the waiting ones.
func (a *admission) release(schema string) {
	a.mu.Lock()
	a.inUse--
	if a.bySchema[schema]--; a.bySchema[schema] == 0 {
		delete(a.bySchema, schema)
	}
	close(a.changed)
	a.changed = make(chan struct{})
	a.mu.Unlock()
}

// waitError is a statement that got no turn before its context ended.
type waitError struct {
	err error
	why string
}

func (e *waitError) Error() string { return e.why + ": " + e.err.Error() }
func (e *waitError) Unwrap() error { return e.err }
