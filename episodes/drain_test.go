package episodes_test

import (
	"context"
	"errors"
	"testing"

	"github.com/sqlgym/sqlgym/episodes"
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
