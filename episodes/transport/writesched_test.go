package transport

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
)

// schedAt returns a scheduler brought to state by real events, with
// running more frames started (gathering has one of its own running
// already: a reply waits for it). The gathering timer, on a fake clock
// nobody moves, never fires by itself: a row that says so fires it (fired). The reply delay is 0
// when noGather.
func schedAt(t *testing.T, state writerState, running int, noGather bool) (*writeSched, *int) {
	t.Helper()
	fires := new(int)
	delay := time.Hour
	if noGather {
		delay = 0
	}
	w := newWriteSched(newConnBudget(1<<20, clockwork.NewFakeClock()), delay, clockwork.NewFakeClock(), func() { *fires++ })
	t.Cleanup(w.stopTimer)
	switch state {
	case stateGathering:
		w.start(1)
		c := w.start(1)
		if w.done(c, []byte("r0")) {
			t.Fatal("a reply with another frame running started the writer")
		}
	case stateWriting:
		if !w.stop() {
			t.Fatal("the shutdown on an idle connection did not start the writer")
		}
	case stateFinished:
		w.end()
		for tk, _ := w.next(); tk != taskEnd; tk, _ = w.next() {
		}
	}
	for range running {
		w.start(1)
	}
	if w.state != state {
		t.Fatalf("brought to %s, want %s", w.state, state)
	}
	return w, fires
}

// events are what a row may do to a scheduler; each returns whether the
// one that did it must now run the writer.
var events = map[string]func(w *writeSched) bool{
	"reply":  func(w *writeSched) bool { return w.done(frameReserve, []byte("reply")) },
	"ping":   func(w *writeSched) bool { return w.ping(func() {}) },
	"stop":   func(w *writeSched) bool { return w.stop() },
	"end":    func(w *writeSched) bool { return w.end() },
	"timer":  func(w *writeSched) bool { w.fired(); return false },
	"drain":  func(w *writeSched) bool { drain(w, taskNone); return false },
	"finish": func(w *writeSched) bool { w.end(); drain(w, taskEnd); return false },
}

// drain runs the writer's tasks until it takes last.
func drain(w *writeSched, last task) {
	for tk, _ := w.next(); tk != last; tk, _ = w.next() {
	}
}

// TestWriterTable walks writerState's table: from each state, each
// event brings the scheduler to the state the table says, and makes the
// one the table names the writer; every move of writerMoves is walked.
func TestWriterTable(t *testing.T) {
	rows := []struct {
		from     writerState
		running  int  // other frames running when the event comes
		noGather bool // the reply delay is off
		event    string
		to       writerState
		writes   bool // the event's caller becomes the writer
		fires    bool // the timer's goroutine becomes the writer
	}{
		{stateIdle, 1, false, "reply", stateWriting, true, false}, // the replying frame was the only one running
		{stateIdle, 2, true, "reply", stateWriting, true, false},
		{stateIdle, 2, false, "reply", stateGathering, false, false},
		{stateIdle, 0, false, "ping", stateWriting, true, false},
		{stateIdle, 0, false, "stop", stateWriting, true, false},
		{stateIdle, 0, false, "end", stateWriting, true, false},
		{stateGathering, 2, false, "reply", stateGathering, false, false},
		{stateGathering, 0, false, "reply", stateWriting, true, false}, // the last running frame ends
		{stateGathering, 0, false, "timer", stateWriting, false, true},
		{stateGathering, 1, false, "ping", stateWriting, true, false},
		{stateGathering, 1, false, "stop", stateWriting, true, false},
		{stateGathering, 1, false, "end", stateWriting, true, false},
		{stateWriting, 1, false, "reply", stateWriting, false, false},
		{stateWriting, 0, false, "ping", stateWriting, false, false},
		{stateWriting, 0, false, "end", stateWriting, false, false},
		{stateWriting, 0, false, "drain", stateIdle, false, false},
		{stateWriting, 0, false, "finish", stateFinished, false, false},
		{stateFinished, 1, false, "reply", stateFinished, false, false},
		{stateFinished, 0, false, "ping", stateFinished, false, false},
		{stateFinished, 0, false, "stop", stateFinished, false, false},
		{stateFinished, 0, false, "timer", stateFinished, false, false},
	}
	walked := map[writerState][]writerState{}
	for _, r := range rows {
		name := fmt.Sprintf("%s_%s_%d_running", r.from, r.event, r.running)
		t.Run(name, func(t *testing.T) {
			w, fires := schedAt(t, r.from, r.running, r.noGather)
			writes := events[r.event](w)
			if w.state != r.to || writes != r.writes || (*fires == 1) != r.fires {
				t.Errorf("%s on %s: %s, caller writes %v, timer writes %v; want %s, %v, %v",
					r.event, r.from, w.state, writes, *fires == 1, r.to, r.writes, r.fires)
			}
		})
		if r.to != r.from && !slices.Contains(walked[r.from], r.to) {
			walked[r.from] = append(walked[r.from], r.to)
		}
	}
	for from, tos := range writerMoves {
		for _, to := range tos {
			if !slices.Contains(walked[from], to) {
				t.Errorf("the move from %s to %s is in the table but no row walks it", from, to)
			}
		}
	}
}

// TestWriterRefusesMovesOutsideTheTable: a move the table does not list
// is a bug, and says which.
func TestWriterRefusesMovesOutsideTheTable(t *testing.T) {
	w, _ := schedAt(t, stateFinished, 0, false)
	defer func() {
		if r := recover(); r == nil || fmt.Sprint(r) != "transport: the writer moves from finished to writing, which its table does not allow" {
			t.Errorf("recovered %v; want the move refused", r)
		}
	}()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.move(stateWriting)
}

// TestBudgetCountsFramesAndReplies: a frame counts for at least
// frameReserve while it runs, its reply until it is written; reading
// stops at max, replies that wait with no progress for the stall time
// (on a clock moved by hand) are stalled, and once
// the writer drops replies there is always room.
func TestBudgetCountsFramesAndReplies(t *testing.T) {
	clock := clockwork.NewFakeClock()
	b := newConnBudget(2*frameReserve, clock)
	c1, c2 := b.hold(10), b.hold(3*frameReserve)
	if c1 != frameReserve || c2 != 3*frameReserve || b.hasRoom() {
		t.Fatalf("held %d and %d, room %v; want %d, %d and no room", c1, c2, b.hasRoom(), frameReserve, 3*frameReserve)
	}
	if !b.settle(c2, 100) || !b.settle(c1, 0) || !b.hasRoom() {
		t.Fatal("two frames ended with a 100-byte reply: want it kept and room")
	}
	if stalled, n := b.stalled(0); !stalled || n != 100 {
		t.Errorf("stalled %v with %d bytes waiting; want 100 waiting", stalled, n)
	}
	b.wrote(100, false)
	if stalled, _ := b.stalled(time.Hour); stalled {
		t.Error("stalled within an hour of the last progress")
	}
	clock.Advance(time.Hour)
	if stalled, _ := b.stalled(time.Hour); !stalled {
		t.Error("not stalled an hour after the last progress")
	}
	b.wrote(100, true)
	if stalled, n := b.stalled(0); stalled || n != 0 || b.held != 0 {
		t.Errorf("after the reply was written: stalled %v, %d waiting, %d held; want none", stalled, n, b.held)
	}
	b.hold(4 * frameReserve)
	b.drop(0)
	if !b.hasRoom() || b.settle(frameReserve, 50) {
		t.Error("after a drop: want room, and replies dropped")
	}
}
