package sqlite

/*
struct sqlite3;
void sqlite3_interrupt(struct sqlite3 *db);
static void gym_interrupt(void *db) { sqlite3_interrupt((struct sqlite3 *)db); }
*/
import "C"

import (
	"context"
	"reflect"
	"time"
	"unsafe"

	"github.com/mattn/go-sqlite3"
)

// interruptEvery is how often a statement whose context has ended is
// interrupted again, until it returns.
const interruptEvery = 20 * time.Millisecond

// watchInterrupt interrupts the statements c runs once ctx ends, again
// and again until release is called, which waits for the last interrupt:
// no interrupt of this call reaches the connection's next one.
//
// The driver interrupts a statement when its context ends, but only once
// and only while it is stepping: a context that ends between the
// driver's last check and its first step (a deadline passing at that
// moment on a loaded machine) is never acted on, and the statement runs
// on past every bound (seen as a cross join running for fifteen minutes
// past a one-minute timeout). sqlite3_interrupt on a connection running
// nothing is harmless: SQLite clears the flag when its next statement
// starts.
func watchInterrupt(ctx context.Context, c *sqlite3.SQLiteConn) (release func()) {
	db := handle(c)
	if db == nil {
		return func() {}
	}
	done, ended := make(chan struct{}), make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(ended)
		t := time.NewTicker(interruptEvery)
		defer t.Stop()
		for {
			C.gym_interrupt(db)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() {
		if stop() {
			return // ctx never ended: nothing ran
		}
		close(done)
		<-ended
	}
}

// handle is the sqlite3* of a driver connection, which the driver keeps
// unexported; nil if the driver's layout is not the one this reads (the
// driver's own interrupt is then all there is).
func handle(c *sqlite3.SQLiteConn) unsafe.Pointer {
	f := reflect.ValueOf(c).Elem().FieldByName("db")
	if !f.IsValid() || f.Kind() != reflect.Pointer {
		return nil
	}
	return f.UnsafePointer()
}
