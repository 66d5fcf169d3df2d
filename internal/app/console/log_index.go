package console

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// DefaultIndexEpisodes bounds the episodes a LogIndex keeps: past it the
// oldest leave the index, and list pages that reach past what it keeps
// read the store instead. An entry costs about 260 bytes of heap plus
// its SQL (BenchmarkLogListPageOfAMillion): some 260 MB at this default
// for episodes of short SQL, the size of the server's other default
// memory bounds (--recent-bytes, --max-live-bytes), and the million
// episodes the list is measured on.
const DefaultIndexEpisodes = 1_000_000

// maxEntryText bounds the SQL text one index entry keeps for the text
// search: the first 4 KiB of the episode's SQL, lowercased.
const maxEntryText = 4 << 10

// LogIndex is the list's index of a store with no indexes of its own
// (the file log): one compact entry per ended episode, newest last,
// built by one read of the store (Build) and kept current by the
// episodes that end afterwards (through Live's tap). Strings repeated
// across episodes (tasks, outcomes, tags) are kept once.
type LogIndex struct {
	ReaderStore
	max int

	mu      sync.RWMutex
	ready   bool
	dropped int // entries that left the index (the oldest)
	entries []entry
	ids     map[string]int // id -> position in entries, shifted by dropped
	tasks   map[taskKey]*taskInfo
	strs    map[string]string
	tagSets map[string][]string // a Tags value's list, interned: episodes of a run share one

	active atomic.Bool // the index is being built and kept: Ended adds to it
	once   sync.Once
	start  func() // BuildOnFirstUse's build, run once by the first page
}

// maxTagSets bounds the distinct Tags values whose lists the index keeps
// parsed; past it the set starts anew.
const maxTagSets = 4096

// taskKey names a task: its dataset and id.
type taskKey struct{ dataset, id string }

// taskInfo is a task as the index keeps it once for all its episodes:
// its view and its question lowercased, for the text search.
type taskInfo struct {
	schemas.TaskView
	question string
}

// entry is one episode in the index.
type entry struct {
	id      string
	task    *taskInfo
	outcome string
	text    string   // the SQL of its calls, lowercased, NUL-separated, at most maxEntryText bytes
	tags    []string // "key=text", interned, sorted
	reward  float64
	started int64 // Unix nanoseconds
	turns   int32
}

// NewLogIndex indexes r, keeping at most max episodes (0: DefaultIndexEpisodes).
func NewLogIndex(r trajlog.Reader, max int) *LogIndex {
	if max <= 0 {
		max = DefaultIndexEpisodes
	}
	return &LogIndex{ReaderStore: ReaderStore{R: r}, max: max, ids: map[string]int{},
		tasks: map[taskKey]*taskInfo{}, strs: map[string]string{}, tagSets: map[string][]string{}}
}

// Build reads the store once into the index. Until it returns, list
// pages read the store.
func (x *LogIndex) Build(ctx context.Context) error {
	err := x.R.Episodes(ctx, trajlog.Filter{}, func(r *trajlog.Record) error {
		x.add(&r.Trajectory)
		return nil
	})
	if err != nil {
		return fmt.Errorf("indexing the trajectory log: %w", err)
	}
	x.mu.Lock()
	x.ready = true
	x.mu.Unlock()
	return nil
}

// BuildOnFirstUse defers the index to the first page that reads it: that
// page starts Build in the background (its error, if any, to failed) and
// reads the store meanwhile; from then on Ended keeps the index current.
// A server whose console nobody opens thus spends nothing on the index,
// neither its build nor a step's share of it (docs/console.md).
func (x *LogIndex) BuildOnFirstUse(ctx context.Context, failed func(error)) {
	x.start = func() {
		x.active.Store(true)
		go func() {
			if err := x.Build(ctx); err != nil {
				failed(err)
			}
		}()
	}
}

// Ready reports whether the index has been built: its pages no longer
// read the store (unless they reach past what it keeps).
func (x *LogIndex) Ready() bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.ready
}

// use starts the deferred build, once, if there is one.
func (x *LogIndex) use() {
	if x.start != nil {
		x.once.Do(x.start)
	}
}

// Ended adds an episode that has just ended (Live's tap calls it), once
// the index is in use.
func (x *LogIndex) Ended(t *schemas.Trajectory) {
	if x.start == nil || x.active.Load() {
		x.add(t)
	}
}

func (x *LogIndex) add(t *schemas.Trajectory) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.ids[t.EpisodeID]; ok {
		return
	}
	key := taskKey{t.Task.Dataset, t.Task.TaskID}
	task := x.tasks[key]
	if task == nil || task.TaskView != t.Task {
		task = &taskInfo{TaskView: t.Task, question: strings.ToLower(t.Task.Question)}
		x.tasks[key] = task
	}
	tags := x.tagSet(t.Tags)
	x.ids[t.EpisodeID] = x.dropped + len(x.entries)
	x.entries = append(x.entries, entry{id: t.EpisodeID, task: task, outcome: x.intern(t.Outcome), tags: tags, text: sqlText(t.Steps),
		reward: t.TotalReward, started: t.StartedAt.UnixNano(), turns: int32(len(t.Steps))})
	if len(x.entries) > x.max {
		drop := max(1, len(x.entries)/8) // an eighth at once: the copy is paid rarely
		for _, e := range x.entries[:drop] {
			delete(x.ids, e.id)
		}
		x.entries = append(x.entries[:0:0], x.entries[drop:]...)
		x.dropped += drop
	}
}

// tagSet is the sorted key=value list of a Tags value, its strings
// interned, parsed once for every episode that carries the same value.
// The caller holds mu; the list is shared and never changed.
func (x *LogIndex) tagSet(raw json.RawMessage) []string {
	if tags, ok := x.tagSets[string(raw)]; ok {
		return tags
	}
	tags := tagList(raw)
	for i, s := range tags {
		tags[i] = x.intern(s)
	}
	if len(x.tagSets) >= maxTagSets {
		clear(x.tagSets)
	}
	x.tagSets[string(raw)] = tags
	return tags
}

func (x *LogIndex) intern(s string) string {
	if v, ok := x.strs[s]; ok {
		return v
	}
	if len(x.strs) < 1<<20 { // a bound on the interned strings themselves
		x.strs[s] = s
	}
	return s
}

// sqlText is the SQL of every call of steps, lowercased and separated by
// NUL, cut at maxEntryText bytes.
func sqlText(steps []schemas.StepRecord) string {
	var b strings.Builder
	for _, st := range steps {
		for _, c := range st.CallList() {
			if sql := sqlOf(c.Arguments); sql != "" && b.Len() < maxEntryText {
				b.WriteString(strings.ToLower(sql[:min(len(sql), maxEntryText-b.Len())]))
				b.WriteByte(0)
			}
		}
	}
	return strings.Clone(b.String()) // no room the builder grew past the text
}

// List reads a page from the index; a page before the index is built,
// past what it keeps, or with unfinished episodes reads the store.
func (x *LogIndex) List(ctx context.Context, q Query) (*Page, error) {
	x.use()
	x.mu.RLock()
	if !x.ready || q.Incomplete {
		x.mu.RUnlock()
		return x.ReaderStore.List(ctx, q)
	}
	page, complete := x.page(q)
	x.mu.RUnlock()
	if !complete {
		return x.ReaderStore.List(ctx, q)
	}
	return page, nil
}

// page walks the index newest first; complete is false when the page
// reaches past the oldest episode the index kept.
func (x *LogIndex) page(q Query) (*Page, bool) {
	p := &Page{}
	countUpTo := q.Offset + 21*q.Limit + 1
	m := matcher{q: &q, text: strings.ToLower(q.Text)}
	for i := len(x.entries) - 1; i >= 0 && p.Total < countUpTo; i-- {
		e := &x.entries[i]
		if !m.match(e) {
			continue
		}
		if p.Total >= q.Offset && len(p.Episodes) < q.Limit {
			p.Episodes = append(p.Episodes, e.summary())
		}
		p.Total++
	}
	p.AtLeast = p.Total == countUpTo || x.dropped > 0
	return p, len(p.Episodes) == q.Limit || x.dropped == 0
}

func (e *entry) summary() Summary {
	return Summary{ID: e.id, Task: e.task.TaskView, Outcome: e.outcome, TotalReward: e.reward,
		StartedAt: time.Unix(0, e.started).UTC(), Turns: int(e.turns), Tags: e.tags, Complete: true}
}

// matcher applies a query to index entries.
type matcher struct {
	q    *Query
	tags []string // the wanted "key=text"
	text string   // q.Text lowercased
}

func (m *matcher) match(e *entry) bool {
	q := m.q
	switch {
	case q.Dataset != "" && e.task.Dataset != q.Dataset,
		q.TaskID != "" && e.task.TaskID != q.TaskID,
		q.DBID != "" && e.task.DBID != q.DBID,
		q.Outcome != "" && e.outcome != q.Outcome,
		q.Failed && (e.outcome == "" || e.outcome == schemas.OutcomeCorrect),
		q.MinReward != nil && e.reward < *q.MinReward,
		q.MaxReward != nil && e.reward > *q.MaxReward,
		!q.Since.IsZero() && e.started < q.Since.UnixNano(),
		!q.Until.IsZero() && e.started >= q.Until.UnixNano():
		return false
	}
	if m.tags == nil && len(q.Tags) > 0 {
		for k, v := range q.Tags {
			m.tags = append(m.tags, k+"="+v)
		}
	}
	for _, want := range m.tags {
		if !hasTag(e.tags, want) {
			return false
		}
	}
	for _, x := range q.ExcludeTags {
		if hasTag(e.tags, x.Key+"="+x.Value) {
			return false
		}
	}
	return m.text == "" || strings.Contains(e.task.question, m.text) || strings.Contains(e.text, m.text)
}

func hasTag(tags []string, want string) bool {
	for _, t := range tags {
		if t == want {
			return true
		}
	}
	return false
}

// Episode reads one episode: through the index, only the log's segments
// whose time range holds its start.
func (x *LogIndex) Episode(ctx context.Context, id string) (*trajlog.Record, error) {
	x.use()
	x.mu.RLock()
	pos, ok := x.ids[id]
	var e entry
	if ok {
		e = x.entries[pos-x.dropped]
	}
	x.mu.RUnlock()
	if !ok {
		return x.ReaderStore.Episode(ctx, id)
	}
	at := time.Unix(0, e.started) // a millisecond either side: what the log stores may be rounded
	f := trajlog.Filter{Dataset: e.task.Dataset, Since: at.Add(-time.Millisecond), Until: at.Add(time.Millisecond)}
	var found *trajlog.Record
	err := x.R.Episodes(ctx, f, func(r *trajlog.Record) error {
		if r.EpisodeID == id {
			found = r
			return errStop
		}
		return nil
	})
	if err != nil && err != errStop {
		return nil, fmt.Errorf("reading the episode: %w", err)
	}
	if found == nil {
		return nil, ErrNotFound
	}
	return found, nil
}
