package report

import (
	"encoding/json"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// SampleOf returns the sample index an episode's tags hold, and whether
// they hold one.
func SampleOf(t *schemas.Trajectory) (int, bool) {
	return sampleTag(trajlog.ParseTags(t.Tags))
}

// sampleTag is the sample index of parsed tags: an integer "sample".
func sampleTag(tags map[string]json.RawMessage) (int, bool) {
	var s *int
	if json.Unmarshal(tags["sample"], &s) != nil || s == nil {
		return 0, false
	}
	return *s, true
}

// EndedByStep reports whether the episode ended by a submit or by its
// turns running out, rather than by a close or an idle timeout: only
// those count as a sample done.
func EndedByStep(t *schemas.Trajectory) bool {
	n := len(t.Steps)
	return t.Outcome != "" && n > 0 && t.Steps[n-1].Outcome == t.Outcome
}
