package filelog

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/sqlgym/sqlgym/base/atomicfile"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

// indexVersion is the format of the sidecar files; a reader ignores an
// index of another version and parses the segment instead.
const indexVersion = 1

// index is a sealed segment's sidecar (traj-NNNNNN.idx): enough for a
// reader to skip the segment without parsing it, and for recovery to carry
// the live episodes into the next one. Episodes count every episode with
// an event in the segment, including those begun earlier and still live
// when it opened; Datasets and the started range cover the same set.
type index struct {
	Version      int              `json:"version"`
	Segment      int              `json:"segment"`
	Bytes        int64            `json:"bytes"`
	Lines        int64            `json:"lines"`
	SessionStart bool             `json:"session_start"`
	Episodes     int              `json:"episodes"`
	Datasets     []string         `json:"datasets"`
	StartedMin   time.Time        `json:"started_min"`
	StartedMax   time.Time        `json:"started_max"`
	Begins       int64            `json:"begins"`
	Steps        int64            `json:"steps"`
	Ends         int64            `json:"ends"`
	Outcomes     map[string]int64 `json:"outcomes"`
	LiveAtEnd    []liveEntry      `json:"live_at_end"`
	// Damaged counts the damaged lines recovery found when it built the
	// index: the counts above then leave out what those lines held.
	Damaged int64 `json:"damaged,omitempty"`
}

// liveEntry is an episode that has begun and not ended, as the writer and
// the indexes track it.
type liveEntry struct {
	Ep        string    `json:"ep"`
	StartedAt time.Time `json:"started_at"`
	Dataset   string    `json:"dataset"`
	Steps     int       `json:"steps"`
}

// summary accumulates a segment's index as its lines are written (or,
// in recovery, read).
type summary struct {
	idx      index
	datasets map[string]bool
	live     map[string]*liveEntry // episodes begun and not ended
}

// newSummary starts segment n's summary with the episodes still live.
func newSummary(n int, live map[string]*liveEntry) *summary {
	s := &summary{idx: index{Version: indexVersion, Segment: n, Outcomes: map[string]int64{}},
		datasets: map[string]bool{}, live: live}
	for _, e := range live {
		s.cover(e)
	}
	return s
}

// cover counts e as an episode with an event in the segment.
func (s *summary) cover(e *liveEntry) {
	s.idx.Episodes++
	s.datasets[e.Dataset] = true
	if s.idx.StartedMin.IsZero() || e.StartedAt.Before(s.idx.StartedMin) {
		s.idx.StartedMin = e.StartedAt
	}
	if e.StartedAt.After(s.idx.StartedMax) {
		s.idx.StartedMax = e.StartedAt
	}
}

// add counts one line of n bytes.
func (s *summary) add(n int) {
	s.idx.Bytes += int64(n)
	s.idx.Lines++
}

// open marks the segment, whose first line this is, as the start of a
// writer session: every episode live before it will never end, so none
// of them has an event here.
func (s *summary) open() {
	s.idx.SessionStart = true
	s.idx.Episodes = 0
	s.idx.StartedMin, s.idx.StartedMax = time.Time{}, time.Time{}
	clear(s.datasets)
	clear(s.live)
}

func (s *summary) begin(ep string, startedAt time.Time, dataset string) {
	s.idx.Begins++
	e := &liveEntry{Ep: ep, StartedAt: startedAt, Dataset: dataset}
	s.live[ep] = e
	s.cover(e)
}

// step counts a step and returns how many steps of ep are logged (-1 for
// an episode whose begin is not).
func (s *summary) step(ep string) int {
	s.idx.Steps++
	e, ok := s.live[ep]
	if !ok {
		return -1
	}
	e.Steps++
	return e.Steps
}

// end counts an episode's end. An episode whose begin the log never
// took (its end line then carries the whole record) is covered here.
func (s *summary) end(ep, outcome string, startedAt time.Time, dataset string) {
	if !s.ended(ep, outcome) {
		s.cover(&liveEntry{Ep: ep, StartedAt: startedAt, Dataset: dataset})
	}
}

// endSlim counts the end of a slim end line, which names no dataset or
// start. Its begin is always logged; when recovery finds none (lost to
// damage), the episode still counts as one of the segment's, with no
// dataset or start for a filter to want: no reader hands it over.
func (s *summary) endSlim(ep, outcome string) {
	if !s.ended(ep, outcome) {
		s.idx.Episodes++
	}
}

// ended counts an end and reports whether ep was live.
func (s *summary) ended(ep, outcome string) bool {
	s.idx.Ends++
	s.idx.Outcomes[outcome]++
	_, ok := s.live[ep]
	delete(s.live, ep)
	return ok
}

// seal returns the finished index.
func (s *summary) seal() *index {
	x := s.idx
	for d := range s.datasets {
		x.Datasets = append(x.Datasets, d)
	}
	slices.Sort(x.Datasets)
	x.LiveAtEnd = make([]liveEntry, 0, len(s.live))
	for _, e := range s.live {
		x.LiveAtEnd = append(x.LiveAtEnd, *e)
	}
	slices.SortFunc(x.LiveAtEnd, func(a, b liveEntry) int { return a.StartedAt.Compare(b.StartedAt) })
	return &x
}

// liveMap turns an index's LiveAtEnd back into the map a summary carries.
func (x *index) liveMap() map[string]*liveEntry {
	m := make(map[string]*liveEntry, len(x.LiveAtEnd))
	for i := range x.LiveAtEnd {
		e := x.LiveAtEnd[i]
		m[e.Ep] = &e
	}
	return m
}

// mayHold reports whether the segment can hold an event of an episode
// that passes f: false only when the index proves it cannot.
func (x *index) mayHold(f *trajlog.Filter) bool {
	switch {
	case x.Episodes == 0,
		f.Dataset != "" && !slices.Contains(x.Datasets, f.Dataset),
		!f.Since.IsZero() && x.StartedMax.Before(f.Since),
		!f.Until.IsZero() && !x.StartedMin.Before(f.Until):
		return false
	}
	return true
}

// writeIndex writes x beside its segment, whole or not at all, so a reader
// sees a whole index or none; with sync, the file and the directory are
// fsynced.
func writeIndex(dir string, x *index, sync bool) error {
	b, err := json.Marshal(x)
	if err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	opt := atomicfile.Options{Perm: 0o644, SyncDir: sync, NoSync: !sync}
	err = atomicfile.Write(indexPath(dir, x.Segment), opt, func(w *bufio.Writer) error {
		_, err := w.Write(b)
		return err
	})
	if err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	return nil
}

// readIndex reads segment n's index; ok is false when there is none or it
// cannot be used (another version, unreadable).
func readIndex(dir string, n int) (*index, bool) {
	x, err := loadIndex(dir, n)
	return x, x != nil && err == nil
}

// loadIndex reads segment n's index: nil and no error when there is none,
// an error saying what is wrong with one that cannot be used.
func loadIndex(dir string, n int) (*index, error) {
	b, err := os.ReadFile(indexPath(dir, n))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var x index
	switch {
	case json.Unmarshal(b, &x) != nil:
		return nil, errors.New("not an index (bad JSON)")
	case x.Version != indexVersion:
		return nil, fmt.Errorf("index version %d, this reader knows %d", x.Version, indexVersion)
	case x.Segment != n:
		return nil, fmt.Errorf("index of segment %d", x.Segment)
	}
	return &x, nil
}
