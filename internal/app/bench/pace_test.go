package bench

import (
	"context"
	"testing"
	"time"
)

// TestPacerDueTimes checks the schedule: slot i is due at start + i/rate,
// and a slot already past is handed out at once with its own due time,
// not the time it was claimed, so the wait for it counts in latency.
func TestPacerDueTimes(t *testing.T) {
	start := time.Now().Add(-time.Second)
	p := newPacer(start, 10) // slots 0..10 are past
	for i := range 11 {
		due, err := p.wait(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if want := start.Add(time.Duration(i) * 100 * time.Millisecond); !due.Equal(want) {
			t.Errorf("slot %d due %v, want %v", i, due.Sub(start), want.Sub(start))
		}
	}
	var none *pacer
	if due, err := none.wait(context.Background()); !due.IsZero() || err != nil {
		t.Errorf("no pacer: wait = %v, %v; want zero, nil", due, err)
	}
}

// TestPacerCancel returns from a wait for a slot far ahead when the
// context ends.
func TestPacerCancel(t *testing.T) {
	p := newPacer(time.Now().Add(time.Hour), 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.wait(ctx); err == nil {
		t.Error("a cancelled wait for a slot an hour ahead returned no error")
	}
}

// TestRunRate paces a run: it never sends more steps than came due, every
// step sent was answered, and each step's latency, timed from its due
// time, holds its send lag.
func TestRunRate(t *testing.T) {
	srv := startServer(t, serverOptions{})
	for _, tt := range []struct {
		name    string
		sockets int
		rate    float64
	}{
		{"under capacity", 2, 300},
		{"over capacity", 1, 1e6}, // one episode in flight cannot keep up: steps queue behind their slots
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Run(context.Background(), Config{URL: srv.URL, Sockets: tt.sockets, EpisodesPerSocket: 1,
				Duration: 300 * time.Millisecond, Script: ScriptExplore, Rate: tt.rate})
			if err != nil {
				t.Fatal(err)
			}
			checkCounts(t, rep)
			p := rep.Pacing
			if p == nil {
				t.Fatal("a paced run reported no pacing")
			}
			due := int64(tt.rate*rep.Elapsed) + 1
			if p.Sent != rep.Steps || p.Sent > p.Offered || p.Offered != due || rep.Steps == 0 {
				t.Errorf("sent %d, answered %d, offered %d (%d due in %.3f s); want sent = answered <= offered = due, above 0",
					p.Sent, rep.Steps, p.Offered, due, rep.Elapsed)
			}
			if p.OfferedPerS != tt.rate || p.AchievedPerS != rep.StepsPerS || p.Lag.Count != p.Sent {
				t.Errorf("pacing %+v, want offered %v, achieved %v, a lag per step sent", p, tt.rate, rep.StepsPerS)
			}
			if step := rep.Latency[keyStep]; step.Max < p.Lag.Max || step.P50 < p.Lag.P50 {
				t.Errorf("step latency %+v below the send lag %+v: latency must count from the due time", step, p.Lag)
			}
		})
	}
	rep, err := Run(context.Background(), Config{URL: srv.URL, Sockets: 1, Episodes: 3})
	if err != nil || rep.Pacing != nil {
		t.Errorf("an unpaced run: %v, pacing %+v; want none", err, rep.Pacing)
	}
}

// TestPacerSleepsOncePerTick: slots closer together than a tick are
// handed out a tick at a time, each with its own due time and never
// before it: the pacer sleeps about once a tick, not once a slot.
func TestPacerSleepsOncePerTick(t *testing.T) {
	const slots, every = 50, 100 * time.Microsecond // 5 ticks of slots
	p := newPacer(time.Now().Add(10*time.Millisecond), float64(time.Second/every))
	sleeps := 0
	for i := range slots {
		before := p.woke
		due, err := p.wait(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if p.woke != before {
			sleeps++
		}
		if want := p.start.Add(time.Duration(i) * every); !due.Equal(want) || time.Now().Before(due) {
			t.Fatalf("slot %d due %v, want %v, handed out no earlier", i, due.Sub(p.start), want.Sub(p.start))
		}
	}
	if sleeps > slots*int(every)/int(pacerTick)+1 {
		t.Errorf("%d sleeps for %d slots %v apart, want about one a tick (%v)", sleeps, slots, every, pacerTick)
	}
}
