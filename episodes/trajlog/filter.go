package trajlog

import "encoding/json"

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
// episode's tag value as text (TagText).
func (f *Filter) matchTags(raw json.RawMessage) bool {
	if len(f.Tags) == 0 && len(f.ExcludeTags) == 0 {
		return true
	}
	tags := ParseTags(raw)
	if tags == nil && len(f.Tags) > 0 {
		return false // no tags: an exclusion alone keeps the episode
	}
	for k, want := range f.Tags {
		v, ok := tags[k]
		if !ok || TagText(v) != want {
			return false
		}
	}
	for _, x := range f.ExcludeTags {
		if v, ok := tags[x.Key]; ok && TagText(v) == x.Value {
			return false
		}
	}
	return true
}
