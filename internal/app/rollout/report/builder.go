package report

import (
	"cmp"
	"context"
	"maps"
	"slices"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// Builder makes a report from episodes given one at a time, in the order
// the store keeps them, keeping no episode: what it holds grows with the
// tasks (a few counters, one entry per distinct answer, one bit per
// sample index) and the breakdowns' groups, not with the episodes.
//
// Of several episodes of one sample that ended by their own steps the
// last counts; a stream cannot know one is the last until it ends, so a
// Builder that saw such repeats (two runs of one name at once, say) asks
// for a second reading of the same episodes: see Again.
type Builder struct {
	o      Options
	tasks  map[string]*taskAgg
	all    *group
	byDiff map[string]*group
	byDB   map[string]*group
	run    commonValue
	model  commonValue
	place  int // episodes given so far: an unsampled episode's order

	repeats map[sampleKey]int // first reading: samples that ended more than once, and how often
	last    map[sampleKey]int // second reading: those counts, so that the last one counts
	endings map[sampleKey]int // second reading: endings of those samples seen so far
}

// sampleKey names a sample of a run.
type sampleKey struct {
	task   string
	sample int
}

// NewBuilder returns an empty Builder that reads what o gives.
func NewBuilder(o Options) *Builder {
	return &Builder{o: o, tasks: map[string]*taskAgg{}, all: newGroup(), byDiff: map[string]*group{},
		byDB: map[string]*group{}, repeats: map[sampleKey]int{}}
}

// Add counts one complete episode. Episodes with a sample tag are a
// sampled run's: each sample counts once, by the last of its episodes
// that ended by its own steps, and a sample none of whose episodes did is
// unfinished. Episodes without one (an RL run's) all count.
func (b *Builder) Add(ctx context.Context, t *schemas.Trajectory) {
	order := b.place
	b.place++
	task := b.task(t)
	tags := trajlog.ParseTags(t.Tags)
	if s, ok := sampleTag(tags); ok {
		if !b.sampleCounts(task, s, t) {
			return
		}
		order = s
	}
	f := newFact(ctx, t, order, b.o)
	task.add(f)
	if f.fail != nil && t.Outcome == schemas.OutcomeMismatch {
		task.gold.need(ctx, b.o.Golds, t)
	}
	for _, g := range []*group{b.all, groupOf(b.byDiff, task.difficulty), groupOf(b.byDB, task.db)} {
		g.add(f, t)
	}
	b.run.see(trajlog.TagText(tags["run"]))
	b.model.see(trajlog.TagText(tags["model"]))
}

// task is the aggregate of t's task, made when first seen.
func (b *Builder) task(t *schemas.Trajectory) *taskAgg {
	a := b.tasks[t.Task.TaskID]
	if a == nil {
		a = &taskAgg{id: t.Task.TaskID, difficulty: orNone(t.Task.Difficulty), db: t.Task.Dataset + "/" + t.Task.DBID}
		b.tasks[t.Task.TaskID] = a
	}
	return a
}

// sampleCounts notes an episode of sample s and reports whether it is
// the one that counts for its sample.
func (b *Builder) sampleCounts(task *taskAgg, s int, t *schemas.Trajectory) bool {
	task.seen.add(s)
	if !EndedByStep(t) {
		return false
	}
	k := sampleKey{task.id, s}
	if n, repeated := b.last[k]; repeated {
		b.endings[k]++
		if b.endings[k] < n {
			return false
		}
	}
	if !task.ended.add(s) {
		b.repeats[k] = max(b.repeats[k], 1) + 1
		return false
	}
	return true
}

// Again is nil when every sample ended at most once; otherwise a new
// Builder to give the same episodes again, in the same order, which
// counts the last ending of each repeated sample.
func (b *Builder) Again() *Builder {
	if len(b.repeats) == 0 || b.last != nil {
		return nil
	}
	nb := NewBuilder(b.o)
	nb.last, nb.endings = b.repeats, map[sampleKey]int{}
	return nb
}

// Report is the report of the episodes given.
func (b *Builder) Report() *Report {
	vote := voteKind(b.o)
	tasks := slices.SortedFunc(maps.Values(b.tasks), func(x, y *taskAgg) int { return cmp.Compare(x.id, y.id) })
	whole := b.all.stats(tasks, nil, vote)
	ks := shownKs(whole.PassAtK)
	r := &Report{Run: b.run.value(), Model: b.model.value(), Stats: *whole, NoTableReadCheck: tableCheckKind(b.o),
		ByDifficulty: b.breakdown(b.byDiff, tasks, ks, vote, func(t *taskAgg) string { return t.difficulty }),
		ByDB:         b.breakdown(b.byDB, tasks, ks, vote, func(t *taskAgg) string { return t.db })}
	r.ConstantAnswers = []ConstantAnswer{}
	r.FailedTasks = []FailedTask{}
	for _, t := range tasks {
		if t.constant != nil {
			r.ConstantAnswers = append(r.ConstantAnswers, *t.constant)
		}
		if ft := t.failedTask(); ft != nil {
			r.FailedTasks = append(r.FailedTasks, *ft)
		}
	}
	slices.SortFunc(r.FailedTasks, compareFailed)
	return r
}

// breakdown is the stats of each group, with the k of the whole run's
// pass@k; a group whose samples are all unfinished is there too.
func (b *Builder) breakdown(groups map[string]*group, tasks []*taskAgg, ks []int, vote string, by func(*taskAgg) string) map[string]*Stats {
	of := map[string][]*taskAgg{}
	for _, t := range tasks {
		of[by(t)] = append(of[by(t)], t)
	}
	out := map[string]*Stats{}
	for name, ts := range of {
		out[name] = groupOf(groups, name).stats(ts, ks, vote)
	}
	return out
}

func voteKind(o Options) string {
	if o.Voter != nil {
		return "result_set"
	}
	return "sql_text"
}

func tableCheckKind(o Options) string {
	if o.Tables != nil {
		return CheckTablesRead
	}
	return CheckSQLText
}

// commonValue is the value every episode shares, or "" once two differ.
type commonValue struct {
	val         string
	set, differ bool
}

func (c *commonValue) see(v string) {
	switch {
	case !c.set:
		c.val, c.set = v, true
	case v != c.val:
		c.differ = true
	}
}

func (c *commonValue) value() string {
	if c.differ {
		return ""
	}
	return c.val
}
