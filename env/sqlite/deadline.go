package sqlite

/*
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

struct sqlite3;
void sqlite3_progress_handler(struct sqlite3 *db, int ops, int (*cb)(void *), void *arg);

// gym_deadline is a connection's statement deadline, CLOCK_MONOTONIC
// nanoseconds; 0 when none.
typedef struct { int64_t at; } gym_deadline;

static int64_t gym_now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// gym_progress is SQLite's progress handler: non-zero stops the
// statement with SQLITE_INTERRUPT.
static int gym_progress(void *p) {
	int64_t at = __atomic_load_n(&((gym_deadline *)p)->at, __ATOMIC_RELAXED);
	return at != 0 && gym_now() >= at;
}

static gym_deadline *gym_deadline_new(struct sqlite3 *db, int ops) {
	gym_deadline *d = calloc(1, sizeof *d);
	if (d) sqlite3_progress_handler(db, ops, gym_progress, d);
	return d;
}

static void gym_deadline_set(gym_deadline *d, int64_t in) {
	__atomic_store_n(&d->at, in > 0 ? gym_now() + in : (in < 0 ? 1 : 0), __ATOMIC_RELAXED);
}

static void gym_deadline_free(struct sqlite3 *db, gym_deadline *d) {
	sqlite3_progress_handler(db, 0, 0, 0);
	free(d);
}
*/
import "C"

import (
	"time"
	"unsafe"

	"github.com/mattn/go-sqlite3"
)

// progressOps is how many virtual-machine instructions SQLite runs
// between two looks at a statement's deadline: a few microseconds of
// work, and a clock read (vDSO, tens of nanoseconds) each time.
const progressOps = 1000

// deadline is a statement deadline SQLite checks itself, from its
// progress handler, while a statement runs. watchInterrupt stops a
// statement from outside with sqlite3_interrupt, which does nothing when
// it lands before the statement has started stepping (SQLite clears the
// flag when its first statement starts): a deadline the engine reads
// cannot be lost that way. A call that ends without a deadline (its
// parent context cancelled) is still watchInterrupt's.
type deadline struct {
	db unsafe.Pointer
	d  *C.gym_deadline
}

// newDeadline installs a deadline on c's handle; nil when the handle
// cannot be read (watchInterrupt is then all there is).
func newDeadline(c *sqlite3.SQLiteConn) *deadline {
	db := handle(c)
	if db == nil {
		return nil
	}
	d := C.gym_deadline_new((*C.struct_sqlite3)(db), progressOps)
	if d == nil {
		return nil
	}
	return &deadline{db: db, d: d}
}

// set makes statements stop once in has passed: none for 0, at once for
// a negative in (a deadline already behind).
func (d *deadline) set(in time.Duration) {
	if d != nil {
		C.gym_deadline_set(d.d, C.int64_t(in))
	}
}

// free uninstalls the deadline; the connection is closing.
func (d *deadline) free() {
	if d != nil {
		C.gym_deadline_free((*C.struct_sqlite3)(d.db), d.d)
		d.d = nil
	}
}
