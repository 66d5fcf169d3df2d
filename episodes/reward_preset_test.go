package episodes_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/examples/rewards"
	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestResetRewardPreset: a reset's reward may name a preset, as --reward
// does, and the episode is paid and recorded under the preset's spec; an
// unknown name is -32602 listing the presets.
func TestResetRewardPreset(t *testing.T) {
	h := newHarness(t, options{cfg: func(c *episodes.Config) { c.RewardPreset = rewards.Preset }})
	c := h.dial()
	ctx := context.Background()
	for _, name := range rewards.Names() {
		want, err := rewards.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		r := reset(t, c, schemas.ResetParams{TaskID: "t/count", Reward: json.RawMessage(`"` + name + `"`)})
		got, err := c.Episode(ctx, r.EpisodeID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.RewardSpec, want) || got.RewardSpecHash != reward.Hash(want) {
			t.Errorf("reward %q: episode paid by %+v (%s), want the preset's %+v (%s)",
				name, got.RewardSpec, got.RewardSpecHash, want, reward.Hash(want))
		}
	}
	binary, _ := rewards.Preset("binary")
	r := reset(t, c, schemas.ResetParams{TaskID: "t/count", Reward: json.RawMessage(`"binary"`)})
	if s := step(t, c, r.EpisodeID, submitSQL("SELECT count(*) FROM items")); s.Reward != binary.Final.Correct {
		t.Errorf("a correct submit under binary paid %v, want %v", s.Reward, binary.Final.Correct)
	}
	_, err := c.Reset(ctx, schemas.ResetParams{TaskID: "t/count", Reward: json.RawMessage(`"binar"`)})
	want := `rpc error -32602: reward: no reward preset "binar" (presets: arctic-text2sql-r1, binary, default, retoolsql)`
	if err == nil || err.Error() != want {
		t.Errorf("reset with an unknown preset: %v\nwant %s", err, want)
	}
}

// TestResetRewardErrors: each error of a reset's reward says what was
// wrong once, under its prefix, the same with presets or without.
func TestResetRewardErrors(t *testing.T) {
	cases := []struct{ reward, want string }{
		{`{"final":{"corect":1}}`, "reward.final.corect: unknown key"},
		{`{"turn":{"cap":"big"}}`, "reward.turn.cap: want a number, got a string"},
		{`{"match":"fuzzy"}`, `reward.match: unknown match mode "fuzzy" (want bird, spider or tolerant)`},
		{`{"turn":{"cap":-1}}`, "reward.turn.cap: must be >= 0, got -1"},
		{`7`, "reward: want a partial reward spec (an object) or a preset's name (a string), got a number"},
		{`[{"match":"bird"}]`, "reward: want a partial reward spec (an object) or a preset's name (a string), got an array"},
	}
	noPresets := `reward: this server has no reward presets to name ("binary"); give a partial reward spec (an object)`
	for _, presets := range []bool{true, false} {
		h := newHarness(t, options{cfg: func(c *episodes.Config) {
			if presets {
				c.RewardPreset = rewards.Preset
			}
		}})
		c := h.dial()
		if !presets {
			cases = append(cases, struct{ reward, want string }{`"binary"`, noPresets})
		}
		for _, tt := range cases {
			_, err := c.Reset(context.Background(), schemas.ResetParams{TaskID: "t/count", Reward: json.RawMessage(tt.reward)})
			if want := "rpc error -32602: " + tt.want; err == nil || err.Error() != want {
				t.Errorf("presets %v, reward %s: %v\nwant %s", presets, tt.reward, err, want)
			}
		}
	}
}
