package console

import (
	"encoding/json"
	"math"
	"slices"
	"sync"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

// The live page's counts: per series (a tag key and value; the key ""
// is every episode), what happened since the last tick. The episode
// server's hot path takes one short lock per event here and nothing
// else; ticks read and reset the counts on the hub's own goroutine.

const (
	maxTagKeys   = 8  // tags of one episode counted as series: the first by name
	latBuckets   = 64 // the step latency histogram's buckets
	latBase      = 0.01
	latGrowth    = 1.3
	otherValue   = "(other)"
	allSeriesKey = ""
)

// seriesKey names a series: a tag key and its value.
type seriesKey struct{ Key, Value string }

// window is what one series saw since the last tick.
type window struct {
	steps     int
	lat       [latBuckets]int
	ended     int
	outcomes  map[string]int
	rewardSum float64
}

// stats are the counts, bounded: at most maxSeries series; a value past
// that counts under (other).
type stats struct {
	mu        sync.Mutex
	maxSeries int
	eps       map[string][]seriesKey // live episodes and their series
	inFlight  map[seriesKey]int
	cur       map[seriesKey]*window
	sets      map[string][]seriesKey // a Tags value's series, parsed once (maxTagSets)
}

func newStats(maxSeries int) *stats {
	return &stats{maxSeries: maxSeries, eps: map[string][]seriesKey{}, inFlight: map[seriesKey]int{},
		cur: map[seriesKey]*window{}, sets: map[string][]seriesKey{}}
}

// seriesSet is seriesOf(raw), parsed once for every episode that carries
// the same Tags value. The caller holds mu; the slice is never changed.
func (s *stats) seriesSet(raw json.RawMessage) []seriesKey {
	if ks, ok := s.sets[string(raw)]; ok {
		return ks
	}
	ks := s.seriesOf(raw)
	if len(s.sets) >= maxTagSets {
		clear(s.sets)
	}
	s.sets[string(raw)] = ks
	return ks
}

// seriesOf are the series an episode of these tags counts in.
func (s *stats) seriesOf(raw json.RawMessage) []seriesKey {
	out := []seriesKey{{allSeriesKey, ""}}
	tags := trajlog.ParseTags(raw)
	var keys []string
	for k := range tags {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys[:min(len(keys), maxTagKeys)] {
		out = append(out, seriesKey{k, trajlog.TagText(tags[k])})
	}
	return out
}

// admit returns k, or its key's (other) series when k is new and the
// series are at their bound. The caller holds mu.
func (s *stats) admit(k seriesKey) seriesKey {
	if _, ok := s.inFlight[k]; ok {
		return k
	}
	if len(s.inFlight) >= s.maxSeries {
		return seriesKey{k.Key, otherValue}
	}
	return k
}

func (s *stats) begin(id string, tags json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set := s.seriesSet(tags)
	ks := make([]seriesKey, len(set))
	for i, k := range set {
		ks[i] = s.admit(k)
		s.inFlight[ks[i]]++
	}
	s.eps[id] = ks
}

func (s *stats) step(id string, ms float64) {
	b := latBucket(ms)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range s.eps[id] {
		w := s.window(k)
		w.steps++
		w.lat[b]++
	}
}

func (s *stats) end(id, outcome string, reward float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ks, ok := s.eps[id]
	if !ok {
		return
	}
	delete(s.eps, id)
	for _, k := range ks {
		s.inFlight[k]--
		w := s.window(k)
		w.ended++
		w.rewardSum += reward
		if w.outcomes == nil {
			w.outcomes = map[string]int{}
		}
		w.outcomes[outcome]++
	}
}

// window is k's current window. The caller holds mu.
func (s *stats) window(k seriesKey) *window {
	w := s.cur[k]
	if w == nil {
		w = &window{}
		s.cur[k] = w
	}
	return w
}

// tick takes the windows since the last tick and the episodes in
// flight, and starts new windows; series with nothing in flight and
// nothing counted are forgotten.
func (s *stats) tick() (map[seriesKey]*window, map[seriesKey]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, fl := s.cur, make(map[seriesKey]int, len(s.inFlight))
	s.cur = map[seriesKey]*window{}
	for k, n := range s.inFlight {
		if n == 0 && cur[k] == nil {
			delete(s.inFlight, k)
			continue
		}
		fl[k] = n
	}
	return cur, fl
}

// latBucket is the histogram bucket of a latency in milliseconds.
func latBucket(ms float64) int {
	if ms <= latBase {
		return 0
	}
	return min(latBuckets-1, int(math.Ceil(math.Log(ms/latBase)/math.Log(latGrowth))))
}

// latQuantile is the upper bound of the bucket holding quantile q, in
// milliseconds; 0 with no step.
func latQuantile(h *[latBuckets]int, q float64) float64 {
	n := 0
	for _, c := range h {
		n += c
	}
	if n == 0 {
		return 0
	}
	want, seen := int(math.Ceil(q*float64(n))), 0
	for i, c := range h {
		if seen += c; seen >= want {
			return latBase * math.Pow(latGrowth, float64(i))
		}
	}
	return latBase * math.Pow(latGrowth, latBuckets-1)
}
