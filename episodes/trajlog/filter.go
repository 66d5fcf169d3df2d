package trajlog

import (
	"encoding/json"
	"strconv"
)

// Match reports whether r passes the filter.
func (f *Filter) Match(r *Record) bool {
	t := &r.Trajectory
	switch {
	case !r.Complete && !f.Incomplete,
		f.Dataset != "" && t.Task.Dataset != f.Dataset,
		f.TaskID != "" && t.Task.TaskID != f.TaskID,
		f.Outcome != "" && t.Outcome != f.Outcome,
		f.MinReward != nil && t.TotalReward < *f.MinReward,
		f.MaxReward != nil && t.TotalReward > *f.MaxReward,
		!f.Since.IsZero() && t.StartedAt.Before(f.Since),
		!f.Until.IsZero() && !t.StartedAt.Before(f.Until):
		return false
	}
	return f.matchTags(t.Tags)
}

// matchTags compares each wanted tag, and each excluded one, with the
// episode's tag value as text: a JSON string unquoted, anything else as
// its JSON.
func (f *Filter) matchTags(raw json.RawMessage) bool {
	if len(f.Tags) == 0 && len(f.ExcludeTags) == 0 {
		return true
	}
	var tags map[string]json.RawMessage
	if json.Unmarshal(raw, &tags) != nil && len(f.Tags) > 0 {
		return false // no tags: an exclusion alone keeps the episode
	}
	for k, want := range f.Tags {
		v, ok := tags[k]
		if !ok || tagText(v) != want {
			return false
		}
	}
	for _, x := range f.ExcludeTags {
		if v, ok := tags[x.Key]; ok && tagText(v) == x.Value {
			return false
		}
	}
	return true
}

func tagText(v json.RawMessage) string {
	if len(v) > 0 && v[0] == '"' {
		if s, err := strconv.Unquote(string(v)); err == nil {
			return s
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	}
	return string(v)
}
