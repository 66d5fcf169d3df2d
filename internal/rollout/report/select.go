package report

import (
	"encoding/json"

	"github.com/sqlgym/sqlgym/schemas"
)

// sampleKey names a sample of a run.
type sampleKey struct {
	task   string
	sample int
}

// selectEpisodes picks the episodes the numbers count. Episodes with a
// sample tag are a sampled run's: of several episodes of one sample (a
// sample played again after a resume) the last one that ended by its
// own steps counts, and a sample none of whose episodes did is
// unfinished (and comes back as its last episode). Episodes without one
// (an RL run's) all count. Each kept episode comes with its order: its
// sample index, or its place.
func selectEpisodes(eps []*schemas.Trajectory) (kept []*schemas.Trajectory, order []int, unfinished []*schemas.Trajectory) {
	best := map[sampleKey]int{} // index in kept
	seen := map[sampleKey]*schemas.Trajectory{}
	var keys []sampleKey // in the order first seen
	for i, t := range eps {
		s, ok := SampleOf(t)
		if !ok {
			kept, order = append(kept, t), append(order, i)
			continue
		}
		k := sampleKey{t.Task.TaskID, s}
		if seen[k] == nil {
			keys = append(keys, k)
		}
		seen[k] = t
		if !EndedByStep(t) {
			continue
		}
		if j, dup := best[k]; dup {
			kept[j] = t
			continue
		}
		best[k] = len(kept)
		kept, order = append(kept, t), append(order, s)
	}
	for _, k := range keys {
		if _, ok := best[k]; !ok {
			unfinished = append(unfinished, seen[k])
		}
	}
	return kept, order, unfinished
}

// SampleOf returns the sample index an episode's tags hold, and whether
// they hold one.
func SampleOf(t *schemas.Trajectory) (int, bool) {
	var tags struct {
		Sample *int `json:"sample"`
	}
	if json.Unmarshal(t.Tags, &tags) != nil || tags.Sample == nil {
		return 0, false
	}
	return *tags.Sample, true
}

// EndedByStep reports whether the episode ended by a submit or by its
// turns running out, rather than by a close or an idle timeout: only
// those count as a sample done.
func EndedByStep(t *schemas.Trajectory) bool {
	n := len(t.Steps)
	return t.Outcome != "" && n > 0 && t.Steps[n-1].Outcome == t.Outcome
}
