package episodes_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestTagsPastTheLimitAreRefused: a reset's tags are held with the
// episode, so tags past --max-tags-bytes are -32602 naming the limit.
func TestTagsPastTheLimitAreRefused(t *testing.T) {
	h := newHarness(t, options{cfg: func(c *episodes.Config) { c.MaxTagsBytes = 1 << 10 }})
	c := h.dial()
	big := []byte(`{"pad":"` + strings.Repeat("x", 2<<10) + `"}`)
	_, err := c.Reset(context.Background(), schemas.ResetParams{TaskID: "t/count", Tags: big})
	if rpcCode(err) != schemas.CodeInvalidParams || !strings.Contains(err.Error(), "--max-tags-bytes") {
		t.Fatalf("tags of %d bytes: %v, want -32602 naming --max-tags-bytes", len(big), err)
	}
	small := []byte(`{"group":7}`)
	if _, err := c.Reset(context.Background(), schemas.ResetParams{TaskID: "t/count", Tags: small}); err != nil {
		t.Fatalf("small tags: %v", err)
	}
}

// TestEndedEpisodesAreBoundedByBytes: ended episodes are kept whole only
// within --recent-bytes; an older one's episode.get says where its record
// lives, its close still answers, and a step on it is still -32002.
func TestEndedEpisodesAreBoundedByBytes(t *testing.T) {
	const limit = 64 << 10
	h := newHarness(t, options{cfg: func(c *episodes.Config) {
		c.RecentBytes = limit
		c.TrajectoryStore = "the log under /srv/sqlgym/trajectories"
	}})
	c := h.dial()
	long := execSQL("SELECT '" + strings.Repeat("y", 8<<10) + "'")
	var ids []string
	for range 12 {
		ep := reset(t, c, schemas.ResetParams{TaskID: "t/count"}).EpisodeID
		for range 2 {
			step(t, c, ep, long)
		}
		if _, err := c.CloseEpisode(context.Background(), ep); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ep)
		if held := metric(t, h.mgr.Metrics().Registry, "sqlgym_recent_trajectory_bytes"); held > limit || held == 0 {
			t.Fatalf("%v bytes of ended trajectories held, want some and at most --recent-bytes %d", held, limit)
		}
	}
	ctx := context.Background()
	if _, err := c.Episode(ctx, ids[len(ids)-1]); err != nil {
		t.Fatalf("the newest ended episode: %v", err)
	}
	_, err := c.Episode(ctx, ids[0])
	if rpcCode(err) != schemas.CodeEpisodeNotFound || !strings.Contains(err.Error(), "/srv/sqlgym/trajectories") {
		t.Fatalf("episode.get of a dropped record: %v, want -32001 naming the trajectory store", err)
	}
	if r, err := c.CloseEpisode(ctx, ids[0]); err != nil || r.Outcome != schemas.OutcomeNoSubmit || r.Turns != 2 {
		t.Fatalf("close of a dropped record: %+v, %v; want its summary", r, err)
	}
	if _, err := c.Step(ctx, ids[0], execSQL("SELECT 1")); rpcCode(err) != schemas.CodeEpisodeEnded {
		t.Fatalf("step of a dropped record: %v, want -32002", err)
	}
}

// TestDeeplyNestedTagsAreRefused: tags nested past episodes.MaxTagsDepth
// (5,000 deep fit in 64 KiB, and Python's json cannot read them back) are
// -32602 naming the bound, and nothing is started; tags at the bound are
// recorded.
func TestDeeplyNestedTagsAreRefused(t *testing.T) {
	h := newHarness(t, options{})
	c := h.dial()
	ctx := context.Background()
	nested := func(depth int) []byte {
		return []byte(strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth))
	}
	_, err := c.Reset(ctx, schemas.ResetParams{TaskID: "t/count", Tags: nested(5000)})
	if rpcCode(err) != schemas.CodeInvalidParams || !strings.Contains(err.Error(), "nested 5000 deep, at most 32") {
		t.Fatalf("tags nested 5000 deep: %v, want -32602 naming the depth and its bound", err)
	}
	arrays := []byte(`{"a":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`)
	if _, err := c.Reset(ctx, schemas.ResetParams{TaskID: "t/count", Tags: arrays}); rpcCode(err) != schemas.CodeInvalidParams {
		t.Fatalf("tags holding arrays 40 deep: %v, want -32602", err)
	}
	if live := metric(t, h.mgr.Metrics().Registry, "sqlgym_live_episodes"); live != 0 {
		t.Fatalf("%v live episodes after refused resets", live)
	}
	ep := reset(t, c, schemas.ResetParams{TaskID: "t/count", Tags: nested(episodes.MaxTagsDepth)}).EpisodeID
	got, err := c.Episode(ctx, ep)
	if err != nil || string(got.Tags) != string(nested(episodes.MaxTagsDepth)) {
		t.Fatalf("episode.get: %v; want the tags at the bound kept", err)
	}
}
