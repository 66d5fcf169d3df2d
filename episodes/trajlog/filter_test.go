package trajlog

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/schemas"
)

func TestFilterMatch(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := &Record{Complete: true, Trajectory: schemas.Trajectory{
		Task: schemas.TaskView{Dataset: "spider-dev", TaskID: "spider-dev/4"}, Outcome: "correct",
		TotalReward: 0.9, StartedAt: t0, Tags: json.RawMessage(`{"policy":"step-120","group":7}`),
	}}
	lo, hi := 0.5, 0.95
	tooHigh := 1.0
	tests := []struct {
		name string
		f    Filter
		want bool
	}{
		{"zero filter", Filter{}, true},
		{"dataset", Filter{Dataset: "spider-dev"}, true},
		{"other dataset", Filter{Dataset: "bird"}, false},
		{"task", Filter{TaskID: "spider-dev/4"}, true},
		{"outcome", Filter{Outcome: "mismatch"}, false},
		{"reward range", Filter{MinReward: &lo, MaxReward: &hi}, true},
		{"reward below min", Filter{MinReward: &tooHigh}, false},
		{"string tag", Filter{Tags: map[string]string{"policy": "step-120"}}, true},
		{"number tag", Filter{Tags: map[string]string{"group": "7"}}, true},
		{"wrong tag", Filter{Tags: map[string]string{"group": "8"}}, false},
		{"missing tag", Filter{Tags: map[string]string{"seed": "1"}}, false},
		{"exclude string tag", Filter{ExcludeTags: []Tag{{"policy", "step-120"}}}, false},
		{"exclude other value", Filter{ExcludeTags: []Tag{{"policy", "step-121"}}}, true},
		{"exclude number tag as JSON", Filter{ExcludeTags: []Tag{{"group", "7"}}}, false},
		{"exclude missing key", Filter{ExcludeTags: []Tag{{"bench", "true"}}}, true},
		{"exclude any of several", Filter{ExcludeTags: []Tag{{"bench", "true"}, {"group", "7"}}}, false},
		{"wanted and excluded", Filter{Tags: map[string]string{"group": "7"}, ExcludeTags: []Tag{{"policy", "step-120"}}}, false},
		{"since", Filter{Since: t0}, true},
		{"until excludes", Filter{Until: t0}, false},
	}
	for _, tt := range tests {
		if got := tt.f.Match(r); got != tt.want {
			t.Errorf("%s: Match = %v, want %v", tt.name, got, tt.want)
		}
	}
	r.Complete = false
	if (&Filter{}).Match(r) || !(&Filter{Incomplete: true}).Match(r) {
		t.Error("incomplete episodes must pass only with Incomplete")
	}
}

// TestFilterExcludeTagValues pins how an excluded tag's value compares
// with each kind of JSON value: strings unquoted, the rest as their JSON
// text as recorded; and that an episode without tags is kept.
func TestFilterExcludeTagValues(t *testing.T) {
	tests := []struct {
		tags  string
		value string
		kept  bool
	}{
		{`{"bench":true}`, "true", false},
		{`{"bench":"true"}`, "true", false},
		{`{"bench":false}`, "true", true},
		{`{"bench":"True"}`, "true", true},
		{`{"bench":1}`, "1", false},
		{`{"bench":1.0}`, "1", true}, // the JSON text, not the number
		{`{"bench":null}`, "null", false},
		{`{"bench":"sqlgym bench"}`, "sqlgym bench", false},
		{`{"bench":"a\u0020b"}`, "a b", false},
		{`{"bench":[1,2]}`, "[1,2]", false},
		{`{"bench":{"a":1}}`, `{"a":1}`, false},
		{`{"other":true}`, "true", true},
		{``, "true", true},
		{`null`, "true", true},
	}
	for _, tt := range tests {
		r := &Record{Complete: true, Trajectory: schemas.Trajectory{Tags: json.RawMessage(tt.tags)}}
		f := Filter{ExcludeTags: []Tag{{"bench", tt.value}}}
		if got := f.Match(r); got != tt.kept {
			t.Errorf("tags %s, --exclude-tag bench=%s: kept %v, want %v", tt.tags, tt.value, got, tt.kept)
		}
	}
}
