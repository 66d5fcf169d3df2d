package episodes_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestDrainRefusesResetsOnly: once drained, a reset fails with kind
// Draining (-32006 on the wire, the same message) while a live episode
// is still stepped and closed, and LiveEpisodes counts it down.
func TestDrainRefusesResetsOnly(t *testing.T) {
	h := newHarness(t, options{})
	c := h.dial()
	ctx := context.Background()
	live, err := c.Reset(ctx, schemas.ResetParams{TaskID: "t/count"})
	if err != nil {
		t.Fatal(err)
	}
	h.mgr.Drain()
	_, inProcess := h.mgr.Reset(ctx, schemas.ResetParams{TaskID: "t/count"})
	if !errors.Is(inProcess, episodes.Draining) || episodes.KindOf(inProcess) != episodes.Draining {
		t.Fatalf("reset in process while draining: %v", inProcess)
	}
	_, wire := c.Reset(ctx, schemas.ResetParams{TaskID: "t/count"})
	var rpcErr *schemas.Error
	if !errors.As(wire, &rpcErr) || rpcErr.Code != schemas.CodeDraining || rpcErr.Message != inProcess.Error() {
		t.Fatalf("reset over the socket while draining: %v, want -32006 %q", wire, inProcess)
	}
	if _, err := c.Step(ctx, live.EpisodeID, execSQL("SELECT 1")); err != nil {
		t.Fatalf("step of a live episode while draining: %v", err)
	}
	if n := h.mgr.LiveEpisodes(); n != 1 {
		t.Fatalf("LiveEpisodes = %d, want 1", n)
	}
	if _, err := c.CloseEpisode(ctx, live.EpisodeID); err != nil {
		t.Fatal(err)
	}
	if n := h.mgr.LiveEpisodes(); n != 0 {
		t.Fatalf("LiveEpisodes after the close = %d, want 0", n)
	}
}

// TestWaitNoneLive: with an episode live, a wait whose context has ended
// says so; a wait under way looks again at each tick of the Manager's
// clock and returns once the episode has ended; with none live it
// returns at once.
func TestWaitNoneLive(t *testing.T) {
	clock := clockwork.NewFakeClock()
	h := newHarness(t, options{cfg: func(c *episodes.Config) { c.Clock = clock }})
	ctx := context.Background()
	ep, err := h.mgr.Reset(ctx, schemas.ResetParams{TaskID: "t/count"})
	if err != nil {
		t.Fatal(err)
	}
	ended, cancel := context.WithCancel(ctx)
	cancel()
	if h.mgr.WaitNoneLive(ended, time.Hour) {
		t.Fatal("WaitNoneLive says none is live while an episode is")
	}
	done := make(chan bool, 1)
	go func() { done <- h.mgr.WaitNoneLive(ctx, time.Hour) }()
	waitTimers(t, clock, 1) // its ticker
	if _, err := h.mgr.Close(ctx, ep.EpisodeID); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	var none bool
	waitfor.Until(t, "the wait to return", func() bool {
		select {
		case none = <-done:
			return true
		default:
			return false
		}
	})
	if !none || !h.mgr.WaitNoneLive(ended, time.Hour) {
		t.Errorf("WaitNoneLive after the last episode ended = %v, want true", none)
	}
}
