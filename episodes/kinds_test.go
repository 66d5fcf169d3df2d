package episodes_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/base/fairshare"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/schemas"
)

// kinds are the kinds of failure that are not Internal.
var kinds = []episodes.Kind{episodes.InvalidArgument, episodes.TaskNotFound, episodes.NotFound,
	episodes.Ended, episodes.Busy, episodes.Capacity}

// TestKindsInProcess: each failure of a call on the Manager in process
// is an *episodes.Error of its kind, matched by errors.Is and KindOf, and
// the same call over the socket fails with the kind's code (PROTOCOL.md,
// "Errors") and the very same message.
func TestKindsInProcess(t *testing.T) {
	h := newHarness(t, options{cfg: func(c *episodes.Config) { c.MaxEpisodes = 1 }})
	c := h.dial()
	// The calls in process count as the socket's client (its address),
	// so that both are refused past --max-episodes with the same words.
	ctx := fairshare.WithClient(context.Background(), "127.0.0.1")
	live, err := h.mgr.Reset(ctx, schemas.ResetParams{TaskID: "t/count"})
	if err != nil {
		t.Fatal(err)
	}
	none := schemas.StepParams{EpisodeID: "ep_none", Action: submitSQL("SELECT 1")}
	calls := []struct {
		name      string
		kind      episodes.Kind
		code      int
		inProcess func() error
		wire      func() error
	}{
		{"reset of no task", episodes.TaskNotFound, schemas.CodeTaskNotFound,
			func() error { _, err := h.mgr.Reset(ctx, schemas.ResetParams{TaskID: "t/none"}); return err },
			func() error { _, err := c.Reset(ctx, schemas.ResetParams{TaskID: "t/none"}); return err }},
		{"reset of 500 turns", episodes.InvalidArgument, schemas.CodeInvalidParams,
			func() error { _, err := h.mgr.Reset(ctx, schemas.ResetParams{MaxTurns: new(500)}); return err },
			func() error { _, err := c.Reset(ctx, schemas.ResetParams{MaxTurns: new(500)}); return err }},
		{"reset past --max-episodes", episodes.Capacity, schemas.CodeCapacity,
			func() error { _, err := h.mgr.Reset(ctx, schemas.ResetParams{TaskID: "t/count"}); return err },
			func() error { _, err := c.Reset(ctx, schemas.ResetParams{TaskID: "t/count"}); return err }},
		{"tasks page too long", episodes.InvalidArgument, schemas.CodeInvalidParams,
			func() error { _, err := h.mgr.ListTasks(schemas.TasksListParams{Limit: 10001}); return err },
			func() error { _, err := c.Tasks(ctx, schemas.TasksListParams{Limit: 10001}); return err }},
		{"step of no episode", episodes.NotFound, schemas.CodeEpisodeNotFound,
			func() error { _, err := h.mgr.Step(ctx, none); return err },
			func() error { _, err := c.StepParams(ctx, none); return err }},
		{"step with 10^12 tokens", episodes.InvalidArgument, schemas.CodeInvalidParams,
			func() error {
				_, err := h.mgr.Step(ctx, schemas.StepParams{EpisodeID: live.EpisodeID, Action: execSQL("SELECT 1"),
					Usage: &schemas.Usage{CompletionTokens: 1e12}})
				return err
			},
			func() error {
				_, err := c.StepParams(ctx, schemas.StepParams{EpisodeID: live.EpisodeID, Action: execSQL("SELECT 1"),
					Usage: &schemas.Usage{CompletionTokens: 1e12}})
				return err
			}},
		{"close of no episode", episodes.NotFound, schemas.CodeEpisodeNotFound,
			func() error { _, err := h.mgr.Close(ctx, "ep_none"); return err },
			func() error { _, err := c.CloseEpisode(ctx, "ep_none"); return err }},
		{"get of no episode", episodes.NotFound, schemas.CodeEpisodeNotFound,
			func() error { _, err := h.mgr.Get("ep_none"); return err },
			func() error { _, err := c.Episode(ctx, "ep_none"); return err }},
	}
	for _, tt := range calls {
		got := tt.inProcess()
		checkKind(t, tt.name, got, tt.kind)
		wire := tt.wire()
		var re *schemas.Error
		if !errors.As(wire, &re) || re.Code != tt.code || got == nil || re.Message != got.Error() {
			t.Errorf("%s over the socket: %v; want code %d and the message %q", tt.name, wire, tt.code, got)
		}
	}
	if _, err := h.mgr.Step(ctx, schemas.StepParams{EpisodeID: live.EpisodeID, Action: submitSQL("SELECT count(*) FROM items")}); err != nil {
		t.Fatal(err)
	}
	_, err = h.mgr.Step(ctx, schemas.StepParams{EpisodeID: live.EpisodeID, Action: submitSQL("SELECT 1")})
	checkKind(t, "step after the end", err, episodes.Ended)
}

// TestBusyInProcess: a step whose episode already has StepQueue steps
// waiting is refused at once, as Busy; once the queued steps have run, in
// the order their places were taken, the next step is taken.
func TestBusyInProcess(t *testing.T) {
	h := newHarness(t, options{cfg: func(c *episodes.Config) { c.StepQueue = 1 }})
	r, err := h.mgr.Reset(context.Background(), schemas.ResetParams{TaskID: "t/count"})
	if err != nil {
		t.Fatal(err)
	}
	p := schemas.StepParams{EpisodeID: r.EpisodeID, Action: execSQL("SELECT 1")}
	first, err := h.mgr.Enqueue(&p) // its turn (it would run)
	if err != nil {
		t.Fatal(err)
	}
	second, err := h.mgr.Enqueue(&p) // waits
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.mgr.Enqueue(&p)
	checkKind(t, "third step", err, episodes.Busy)
	if !strings.Contains(fmt.Sprint(err), "already has 1 steps waiting") {
		t.Errorf("busy: %v, want the count of steps waiting", err)
	}
	bad := p // malformed: refused for what it is, before it asks for a place in the full queue
	bad.FinishReason = strings.Repeat("x", schemas.MaxFinishReasonBytes+1)
	_, err = h.mgr.Enqueue(&bad)
	checkKind(t, "malformed step", err, episodes.InvalidArgument)
	for i, st := range []*episodes.StepTicket{first, second} {
		if res, err := h.mgr.StepQueued(context.Background(), st, p); err != nil || res.Info.Turn != i+1 {
			t.Fatalf("queued step %d: %+v, %v", i+1, res, err)
		}
	}
	if res, err := h.mgr.Step(context.Background(), p); err != nil || res.Info.Turn != 3 {
		t.Fatalf("step after the queued ones: %+v, %v; want turn 3", res, err)
	}
}

// checkKind fails the test unless err is an *episodes.Error of kind k,
// found so through a wrapping too.
func checkKind(t *testing.T, what string, err error, k episodes.Kind) {
	t.Helper()
	var e *episodes.Error
	wrapped := fmt.Errorf("wrapped: %w", err)
	if !errors.As(err, &e) || e.Kind != k || !errors.Is(wrapped, k) || episodes.KindOf(wrapped) != k {
		t.Errorf("%s: %v (%T); want an *episodes.Error of kind %v", what, err, err, k)
	}
	for _, other := range kinds {
		if other != k && errors.Is(err, other) {
			t.Errorf("%s: %v is also %v", what, err, other)
		}
	}
}

// TestKindOf: an error that carries no kind is Internal; a Kind wrapped
// bare is its own kind.
func TestKindOf(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want episodes.Kind
	}{
		{nil, episodes.Internal},
		{errors.New("disk full"), episodes.Internal},
		{context.Canceled, episodes.Internal},
		{fmt.Errorf("%w: ep_1", episodes.Ended), episodes.Ended},
		{errors.Join(errors.New("x"), &episodes.Error{Kind: episodes.Busy, Message: "busy"}), episodes.Busy},
	} {
		if got := episodes.KindOf(tt.err); got != tt.want {
			t.Errorf("KindOf(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
	if got := fmt.Sprint(episodes.NotFound); got != "episode not found" {
		t.Errorf("NotFound's text %q, want the one the wire's messages open with", got)
	}
}
