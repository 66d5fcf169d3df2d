package reward

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

func TestResolveMerges(t *testing.T) {
	base := schemas.DefaultRewardSpec()
	tests := []struct {
		name     string
		override string
		want     func(s *schemas.RewardSpec)
	}{
		{"empty", ``, func(*schemas.RewardSpec) {}},
		{"null", `null`, func(*schemas.RewardSpec) {}},
		{"empty object", `{}`, func(*schemas.RewardSpec) {}},
		{"match only", `{"match":"spider"}`, func(s *schemas.RewardSpec) { s.Match = schemas.MatchSpider }},
		{"one nested key keeps its siblings", `{"final":{"correct":2}}`, func(s *schemas.RewardSpec) { s.Final.Correct = 2 }},
		{"several keys", `{"match":"tolerant","float_tolerance":0.01,"keep_distinct":true,"turn":{"cap":0.5,"ok":0.01}}`,
			func(s *schemas.RewardSpec) {
				s.Match, s.FloatTolerance, s.KeepDistinct = schemas.MatchTolerant, 0.01, true
				s.Turn.Cap, s.Turn.OK = 0.5, 0.01
			}},
		{"zero replaces a default", `{"final":{"no_submit":0}}`, func(s *schemas.RewardSpec) { s.Final.NoSubmit = 0 }},
		{"exponent", `{"final":{"correct":1e1}}`, func(s *schemas.RewardSpec) { s.Final.Correct = 10 }},
		{"the keys JSON leaves out when zero", `{"final":{"table_jaccard":0.5,"requires_table_read":false,"length":-0.1,"length_tokens":100},"turn":{"format_ok":0.2}}`,
			func(s *schemas.RewardSpec) {
				s.Final.TableJaccard, s.Final.RequiresTableRead, s.Turn.FormatOK = 0.5, false, 0.2
				s.Final.Length, s.Final.LengthTokens = -0.1, 100
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(base, json.RawMessage(tt.override))
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			want := base
			tt.want(&want)
			if got != want {
				t.Errorf("Resolve = %+v\nwant %+v", got, want)
			}
		})
	}
	if base != schemas.DefaultRewardSpec() {
		t.Error("Resolve changed its base")
	}
}

func TestResolveErrors(t *testing.T) {
	tests := []struct{ override, want string }{
		{`{"final":{"corect":1}}`, "reward.final.corect: unknown key"},
		{`{"mtch":"bird"}`, "reward.mtch: unknown key"},
		{`{"final":{"length":-0.1}}`, "reward.final.length_tokens: must be > 0 when final.length is not 0, got 0"},
		{`{"final":{"nonempty":"yes"}}`, "reward.final.nonempty: want a number, got a string"},
		{`{"turn":{"cap":"big"}}`, "reward.turn.cap: want a number, got a string"},
		{`{"turn":{"cap":null}}`, "reward.turn.cap: want a number, got null"},
		{`{"final":3}`, "reward.final: want an object, got a number"},
		{`{"final":[1]}`, "reward.final: want an object, got an array"},
		{`{"keep_distinct":"yes"}`, "reward.keep_distinct: want a boolean, got a string"},
		{`{"match":1}`, "reward.match: want a string, got a number"},
		{`{"match":"exact"}`, `reward.match: unknown match mode "exact"`},
		{`{"turn":{"cap":-1}}`, "reward.turn.cap: must be >= 0"},
		{`{"float_tolerance":-0.5}`, "reward.float_tolerance: must be >= 0"},
		{`{"final":{"empty_gold_scale":-1}}`, "reward.final.empty_gold_scale: must be >= 0"},
		{`{"final":{"correct":1e999}}`, "reward.final.correct: number out of range"},
		{`[1]`, "reward: want an object, got an array"},
		{`{"match":`, "reward:"},
		{`{} {}`, "reward: trailing data"},
	}
	for _, tt := range tests {
		_, err := Resolve(schemas.DefaultRewardSpec(), json.RawMessage(tt.override))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Resolve(%s) error = %v, want one containing %q", tt.override, err, tt.want)
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		edit func(s *schemas.RewardSpec)
		want string // "" for valid
	}{
		{"default", func(*schemas.RewardSpec) {}, ""},
		{"negative weights are fine", func(s *schemas.RewardSpec) { s.Final.Correct = -1 }, ""},
		{"empty match", func(s *schemas.RewardSpec) { s.Match = "" }, "reward.match"},
		{"NaN weight", func(s *schemas.RewardSpec) { s.Turn.OK = math.NaN() }, "reward.turn.ok: must be a finite number"},
		{"infinite weight", func(s *schemas.RewardSpec) { s.Final.Efficiency = math.Inf(1) }, "reward.final.efficiency: must be a finite number"},
		{"negative cap", func(s *schemas.RewardSpec) { s.Turn.Cap = -0.1 }, "reward.turn.cap: must be >= 0"},
	}
	for _, tt := range tests {
		s := schemas.DefaultRewardSpec()
		tt.edit(&s)
		err := Validate(s)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: Validate = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestLoadSpec(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(good, []byte(`{"match": "spider", "final": {"executes": 0}}`), 0o644)
	os.WriteFile(bad, []byte(`{"final": {"corect": 1}}`), 0o644)
	got, err := LoadSpec(good)
	if err != nil {
		t.Fatal(err)
	}
	want := schemas.DefaultRewardSpec()
	want.Match, want.Final.Executes = schemas.MatchSpider, 0
	if got != want {
		t.Errorf("LoadSpec = %+v, want %+v", got, want)
	}
	if _, err := LoadSpec(bad); err == nil || !strings.Contains(err.Error(), "reward.final.corect: unknown key") {
		t.Errorf("LoadSpec(bad) error = %v, want the unknown key named", err)
	}
	if _, err := LoadSpec(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("LoadSpec(missing) succeeded")
	}
}

func TestHash(t *testing.T) {
	base := schemas.DefaultRewardSpec()
	a, _ := Resolve(base, json.RawMessage(`{"match":"spider","turn":{"ok":0.01,"cap":0.3}}`))
	b, _ := Resolve(base, json.RawMessage(`{"turn":{"cap":0.3,"ok":0.01},"match":"spider"}`))
	c, _ := Resolve(base, json.RawMessage(`{"match":"spider","turn":{"ok":0.01,"cap":0.31}}`))
	if Hash(a) != Hash(b) {
		t.Errorf("same spec, keys in another order: %s != %s", Hash(a), Hash(b))
	}
	if Hash(a) == Hash(c) {
		t.Errorf("different specs hash alike: %s", Hash(a))
	}
	if Hash(base) != Hash(schemas.DefaultRewardSpec()) {
		t.Error("Hash is not stable across calls")
	}
	h := Hash(base)
	if !strings.HasPrefix(h, "sha256:") || len(h) != len("sha256:")+16 {
		t.Errorf("Hash = %q, want sha256: and 16 hex digits", h)
	}
}

// TestHashKeepsOldSpecs: a spec that uses none of the fields added later
// hashes as it did before they existed (the default spec before
// requires_table_read, as README.md showed it), so recorded hashes stay
// meaningful.
func TestHashKeepsOldSpecs(t *testing.T) {
	old := schemas.DefaultRewardSpec()
	old.Final.RequiresTableRead = false
	if got, want := Hash(old), "sha256:74a01971bec1916a"; got != want {
		t.Errorf("Hash = %s, want %s", got, want)
	}
	if Hash(schemas.DefaultRewardSpec()) == Hash(old) {
		t.Error("requires_table_read does not change the hash")
	}
}
