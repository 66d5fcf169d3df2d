package sandbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

var testSayings = Sayings{Server: "server full at %d", DB: "database full at %d"}

// take admits n statements of holder on db, failing t if one is refused.
func take(t *testing.T, a *Admission, db, holder string, n int) {
	t.Helper()
	for i := range n {
		if !a.TryAcquire(db, holder) {
			t.Fatalf("statement %d of %q on %s refused: %s", i+1, holder, db, a.blocked(db, holder))
		}
	}
}

// A group's statements on one database stop short of the database's
// last HolderReserve; another group's, and an episode's with no group,
// still start there; and a group's first statement on a database may
// take the server's reserve.
func TestAdmissionKeepsRoomForOtherHolders(t *testing.T) {
	a := NewAdmission(Shares{Max: 8, Reserve: 2, PerDB: 4, HolderReserve: 1}, testSayings)
	take(t, a, "a", "g1", 3)
	if a.TryAcquire("a", "g1") {
		t.Fatal("a group took its database's last connection")
	}
	if why := a.blocked("a", "g1"); !strings.Contains(why, "kept for other episodes") {
		t.Errorf("why = %q", why)
	}
	take(t, a, "b", "g1", 3) // six running: the server's reserve starts
	take(t, a, "c", "", 1)   // a database's first statement: the reserve's first
	if a.TryAcquire("c", "") {
		t.Error("a database running one statement took the server's reserve")
	}
	take(t, a, "a", "g2", 1) // a first statement of its group on a: the reserve's last
	if running, _ := a.Counts(); running != 8 {
		t.Fatalf("running = %d, want 8", running)
	}
	if why := a.blocked("d", "g3"); why != "server full at 8" {
		t.Errorf("a ninth statement: why = %q", why)
	}
}

// The per-database bound holds for every holder, and statements of no
// holder are not counted by holder.
func TestAdmissionPerDatabase(t *testing.T) {
	a := NewAdmission(Shares{Max: 16, Reserve: 0, PerDB: 4, HolderReserve: 1}, testSayings)
	take(t, a, "a", "", 4)
	if why := a.blocked("a", "g"); why != "database full at 4" {
		t.Errorf("why = %q", why)
	}
	a.Release("a", "")
	take(t, a, "a", "g", 1)
}

// A waiting statement starts when one ends, and one whose context ends
// first says which bound kept it waiting.
func TestAdmissionWaits(t *testing.T) {
	a := NewAdmission(Shares{Max: 1, PerDB: 1}, testSayings)
	take(t, a, "a", "", 1)
	got := make(chan error, 1)
	go func() { got <- a.Acquire(context.Background(), "b", "g") }()
	waitfor.Until(t, "one statement waiting", func() bool { _, w := a.Counts(); return w == 1 })
	a.Release("a", "")
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := a.Acquire(ctx, "c", "")
	var we *WaitError
	if !errors.As(err, &we) || we.Why != "server full at 1" || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if running, waiting := a.Counts(); running != 1 || waiting != 0 {
		t.Errorf("counts = %d, %d; want 1, 0", running, waiting)
	}
}

// Ungrouped episodes each hold one statement: a flood of them on two
// databases stops at the reserve, as the statements of no holder do,
// and the reserve is left for other databases' first statements.
func TestAdmissionUngroupedFloodLeavesTheReserve(t *testing.T) {
	a := NewAdmission(Shares{Max: 16, Reserve: 4, PerDB: 24, HolderReserve: 6}, testSayings)
	admitted := 0
	for i := range 32 {
		db := []string{"a", "b"}[i%2]
		if a.TryAcquire(db, fmt.Sprintf("episode:%d", i)) {
			admitted++
		}
	}
	if admitted != 12 {
		t.Errorf("a flood of ungrouped episodes got %d of 16, want 12: the reserve of 4 kept", admitted)
	}
	take(t, a, "c", "episode:honest", 1)
}
