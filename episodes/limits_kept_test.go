package episodes_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/schemas"
)

// bigText is a hermes text action of about n bytes: reasoning, then one
// small call.
func bigText(n int) schemas.Action {
	text := "<think>" + strings.Repeat("x", n) + "</think>\n" +
		`<tool_call>{"name": "execute_sql", "arguments": {"sql": "SELECT 1"}}</tool_call>`
	return schemas.Action{Text: &text}
}

const keptMetric = "sqlgym_live_episode_bytes"

// bigMessage is an assistant-message action of about n bytes: text
// beside the call, and the call's arguments as a JSON string (the OpenAI
// shape), which the server decodes for the record.
func bigMessage(n int) schemas.Action {
	text := strings.Repeat("y", n/2)
	args, _ := json.Marshal(`{"sql": "SELECT '` + strings.Repeat("z", n/2) + `'"}`)
	return schemas.Action{Message: &schemas.AssistantMessage{Role: "assistant", Content: &text,
		ToolCalls: []schemas.ToolCall{{Function: schemas.FunctionCall{Name: "execute_sql", Arguments: args}}}}}
}

// bigCall is a parsed execute_sql call of about n bytes.
func bigCall(n int) schemas.Action { return execSQL("SELECT '" + strings.Repeat("w", n) + "'") }

// TestBigActionsFillAnEpisodesShare: 40 KB actions of each shape fill an
// episode's --max-episode-bytes without the bytes kept ever passing it;
// the step past it is -32602 naming the flag, runs and records nothing,
// and the episode stays usable for a short action. The bytes kept go
// back to 0 once the episode ends.
func TestBigActionsFillAnEpisodesShare(t *testing.T) {
	const share = 512 << 10
	for name, big := range map[string]func(int) schemas.Action{"text": bigText, "message": bigMessage, "call": bigCall} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, options{cfg: func(c *episodes.Config) { c.MaxEpisodeBytes = share }})
			c := h.dial()
			ctx := context.Background()
			reg := h.mgr.Metrics().Registry
			ep := reset(t, c, schemas.ResetParams{TaskID: "t/count", MaxTurns: new(40)}).EpisodeID
			accepted := 0
			var err error
			for ; accepted < 40; accepted++ {
				if _, err = c.Step(ctx, ep, big(40<<10)); err != nil {
					break
				}
				if kept := metric(t, reg, keptMetric); kept > share || kept < float64((accepted+1)*40<<10) {
					t.Fatalf("after %d steps of 40 KB the server keeps %v bytes, want at least theirs and at most --max-episode-bytes %d",
						accepted+1, kept, share)
				}
			}
			if rpcCode(err) != schemas.CodeInvalidParams || !strings.Contains(err.Error(), "--max-episode-bytes") || accepted == 0 {
				t.Fatalf("after %d big steps: %v, want some accepted and then -32602 naming --max-episode-bytes", accepted, err)
			}
			t.Logf("%d steps of 40 KB accepted, %v bytes kept; then: %v", accepted, metric(t, reg, keptMetric), err)
			if r := step(t, c, ep, execSQL("SELECT 2")); r.Info.Turn != accepted+1 {
				t.Fatalf("a short step after the refusal is turn %d, want %d: the refused one took no turn", r.Info.Turn, accepted+1)
			}
			got, err := c.Episode(ctx, ep)
			if err != nil || len(got.Steps) != accepted+1 {
				t.Fatalf("episode.get: %v; want the %d accepted steps and the short one, nothing of the refused one", err, accepted)
			}
			if refused := metric(t, reg, "sqlgym_episode_bytes_refused_total"); refused != 1 {
				t.Errorf("%v steps counted refused at the episode's share, want 1", refused)
			}
			if _, err := c.CloseEpisode(ctx, ep); err != nil {
				t.Fatal(err)
			}
			if kept := metric(t, reg, keptMetric); kept != 0 {
				t.Errorf("%v bytes kept once the only episode ended, want 0", kept)
			}
		})
	}
}

// TestLiveBytesRefuseMoreWork: resets with big tags fill --max-live-bytes;
// then a reset is -32003 naming it, and so is a step that needs more room
// than is left (its episode stays usable). Closing episodes gives the
// bytes back: a reset fits again, and with every episode ended the server
// keeps nothing.
func TestLiveBytesRefuseMoreWork(t *testing.T) {
	const total = 512 << 10
	h := newHarness(t, options{cfg: func(c *episodes.Config) {
		c.MaxLiveBytes, c.MaxEpisodeBytes, c.MaxTagsBytes = total, 1<<20, 128<<10
	}})
	c := h.dial()
	ctx := context.Background()
	reg := h.mgr.Metrics().Registry
	tags := []byte(`{"pad":"` + strings.Repeat("t", 60<<10) + `"}`)
	var eps []string
	var err error
	for len(eps) < 20 {
		var r *schemas.ResetResult
		if r, err = c.Reset(ctx, schemas.ResetParams{TaskID: "t/count", Tags: tags}); err != nil {
			break
		}
		eps = append(eps, r.EpisodeID)
	}
	if rpcCode(err) != schemas.CodeCapacity || !strings.Contains(err.Error(), "--max-live-bytes") || len(eps) < 2 {
		t.Fatalf("after %d resets with 60 KB of tags: %v, want some and then -32003 naming --max-live-bytes", len(eps), err)
	}
	if kept := metric(t, reg, keptMetric); kept > total || kept < float64(len(eps)*60<<10) {
		t.Fatalf("%d episodes keep %v bytes, want at least their tags and at most --max-live-bytes %d", len(eps), kept, total)
	}
	_, err = c.Step(ctx, eps[0], bigText(40<<10))
	if rpcCode(err) != schemas.CodeCapacity || !strings.Contains(err.Error(), "--max-live-bytes") {
		t.Fatalf("a 40 KB step with the live bytes at the bound: %v, want -32003 naming --max-live-bytes", err)
	}
	if got, err := c.Episode(ctx, eps[0]); err != nil || len(got.Steps) != 0 || got.Outcome != "" {
		t.Fatalf("the refused step's episode: %v; want it live with nothing recorded", err)
	}
	before := metric(t, reg, keptMetric)
	if _, err := c.CloseEpisode(ctx, eps[0]); err != nil {
		t.Fatal(err)
	}
	if kept := metric(t, reg, keptMetric); kept > before-60<<10 {
		t.Fatalf("closing an episode left %v bytes kept of %v, want its tags' given back", kept, before)
	}
	eps[0] = reset(t, c, schemas.ResetParams{TaskID: "t/count", Tags: tags}).EpisodeID
	for _, ep := range eps {
		if _, err := c.CloseEpisode(ctx, ep); err != nil {
			t.Fatal(err)
		}
	}
	if kept := metric(t, reg, keptMetric); kept != 0 {
		t.Errorf("%v bytes kept with every episode ended, want 0", kept)
	}
}

// TestExpiredEpisodesGiveTheirBytesBack: an episode abandoned for
// idleness no longer counts in the bytes kept.
func TestExpiredEpisodesGiveTheirBytesBack(t *testing.T) {
	clock := clockwork.NewFakeClock()
	h := newHarness(t, options{cfg: func(c *episodes.Config) { c.IdleTimeout, c.Clock = time.Minute, clock }})
	c := h.dial()
	reg := h.mgr.Metrics().Registry
	ep := reset(t, c, schemas.ResetParams{TaskID: "t/count"}).EpisodeID
	step(t, c, ep, bigText(20<<10))
	if kept := metric(t, reg, keptMetric); kept < 20<<10 {
		t.Fatalf("%v bytes kept after a 20 KB step", kept)
	}
	clock.Advance(2 * time.Minute)
	h.mgr.Expire(context.Background())
	if kept := metric(t, reg, keptMetric); kept != 0 {
		t.Errorf("%v bytes kept once the idle episode was abandoned, want 0", kept)
	}
}

// TestKeptBytesUnderConcurrentSteps: episodes stepping big actions at
// once against a tight --max-live-bytes get replies or -32003, never
// another error, the count never passes the bound, and it is 0 again
// once every episode has ended.
func TestKeptBytesUnderConcurrentSteps(t *testing.T) {
	const total = 1 << 20
	h := newHarness(t, options{cfg: func(c *episodes.Config) { c.MaxLiveBytes, c.MaxEpisodeBytes = total, 512<<10 }})
	c := h.dial()
	ctx := context.Background()
	reg := h.mgr.Metrics().Registry
	var eps []string
	for range 12 {
		eps = append(eps, reset(t, c, schemas.ResetParams{TaskID: "t/count", MaxTurns: new(6)}).EpisodeID)
	}
	errs := make(chan error, len(eps)*6)
	var wg sync.WaitGroup
	for _, ep := range eps {
		wg.Go(func() {
			for range 6 {
				if _, err := c.Step(ctx, ep, bigText(30<<10)); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	refused := 0
	for err := range errs {
		if rpcCode(err) != schemas.CodeCapacity {
			t.Errorf("a concurrent step: %v, want a reply or -32003", err)
		}
		refused++
	}
	if kept := metric(t, reg, keptMetric); kept > total || refused == 0 {
		t.Errorf("%v bytes kept after the steps (%d refused), want at most --max-live-bytes %d and some refused", kept, refused, total)
	}
	for _, ep := range eps {
		if _, err := c.CloseEpisode(ctx, ep); err != nil {
			t.Fatal(err)
		}
	}
	if kept := metric(t, reg, keptMetric); kept != 0 {
		t.Errorf("%v bytes kept with every episode ended, want 0", kept)
	}
}
