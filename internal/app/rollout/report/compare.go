package report

import (
	"maps"
	"slices"
)

// Comparison sets run B beside run A over the tasks both ran (the
// paired tasks): each metric's delta B - A, with a 95% bootstrap
// interval over the tasks, and the tasks that flipped. It is what
// `compare` in report.json holds (docs/rollout.md).
type Comparison struct {
	A           RunSide       `json:"a"`
	B           RunSide       `json:"b"`
	PairedTasks int           `json:"paired_tasks"`
	Metrics     []MetricDelta `json:"metrics"`
	Flips       Flips         `json:"flips"`
	Bootstrap   Bootstrap     `json:"bootstrap"`
}

// RunSide is one run of a Comparison.
type RunSide struct {
	Run       string `json:"run"`
	Model     string `json:"model"`      // as in Report
	Tasks     int    `json:"tasks"`      // the tasks it ran
	Episodes  int    `json:"episodes"`   // its episodes counted
	OnlyTasks int    `json:"only_tasks"` // its tasks the other run did not run: left out of every number below
}

// MetricDelta is one metric of both runs over the paired tasks: the mean
// over those tasks of each task's value (every task weighs the same, so
// a run's value here can differ from its own report's when its tasks
// have unequal samples or not all of them are paired), the mean of the
// per-task differences B - A, and its 95% confidence interval.
type MetricDelta struct {
	// Metric is pass@K (a task's unbiased estimator), mean_accuracy (its
	// correct episodes over its episodes), sc_accuracy (1 when its
	// majority vote is correct), first_shot_accuracy or
	// after_repair_accuracy (its such episodes over its episodes).
	Metric string  `json:"metric"`
	Tasks  int     `json:"tasks"` // the paired tasks it is over: for pass@k, those with k samples in both runs
	A      float64 `json:"a"`
	B      float64 `json:"b"`
	Delta  float64 `json:"delta"`
	CILow  float64 `json:"ci_low"`
	CIHigh float64 `json:"ci_high"`
}

// Flips counts the paired tasks by whether each run got them right: a
// task is right in a run when more than half of its episodes there were
// correct (with one sample, when it was). The two lists name the tasks
// that flipped, by task id.
type Flips struct {
	WrongToRight      int      `json:"wrong_to_right"`
	RightToWrong      int      `json:"right_to_wrong"`
	BothRight         int      `json:"both_right"`
	BothWrong         int      `json:"both_wrong"`
	WrongToRightTasks []string `json:"wrong_to_right_tasks"`
	RightToWrongTasks []string `json:"right_to_wrong_tasks"`
}

// pair is a task both runs ran.
type pair struct{ a, b *taskAgg }

// Compare compares run b with run a (each a Builder given its own run's
// episodes, second reading done), named runA and runB. It needs only each
// run's per-task aggregates.
func Compare(a, b *Builder, runA, runB string) *Comparison {
	pairs := pairTasks(a.tasks, b.tasks)
	c := &Comparison{A: side(a, runA, len(pairs)), B: side(b, runB, len(pairs)), PairedTasks: len(pairs),
		Metrics: []MetricDelta{}, Bootstrap: bootstrapSettings()}
	for _, m := range metricsOf(pairs) {
		c.Metrics = append(c.Metrics, m.delta(pairs))
	}
	c.Flips = flipsOf(pairs)
	return c
}

// pairTasks are the tasks with counted episodes in both runs, by id.
func pairTasks(a, b map[string]*taskAgg) []pair {
	var out []pair
	for _, id := range slices.Sorted(maps.Keys(a)) {
		x, y := a[id], b[id]
		if x.n > 0 && y != nil && y.n > 0 {
			out = append(out, pair{x, y})
		}
	}
	return out
}

// side sums a run's tasks and episodes.
func side(b *Builder, run string, paired int) RunSide {
	s := RunSide{Run: run, Model: b.model.value()}
	for _, t := range b.tasks {
		if t.n > 0 {
			s.Tasks++
			s.Episodes += t.n
		}
	}
	s.OnlyTasks = s.Tasks - paired
	return s
}

// metric is a per-task value, and which paired tasks have one.
type metric struct {
	name  string
	has   func(*taskAgg) bool
	value func(*taskAgg) float64
}

// metricsOf are the metrics compared: pass@k for each k that at least
// half the paired tasks reach in both runs (the report's rule, over the
// k a report gives), then the accuracies.
func metricsOf(pairs []pair) []metric {
	fewest, most := 0, 0
	for i, p := range pairs {
		n := min(p.a.n, p.b.n)
		if i == 0 || n < fewest {
			fewest = n
		}
		most = max(most, n)
	}
	var ms []metric
	for _, k := range candidateKs(fewest, most) {
		reach := 0
		for _, p := range pairs {
			if min(p.a.n, p.b.n) >= k {
				reach++
			}
		}
		if 2*reach < len(pairs) {
			continue
		}
		ms = append(ms, metric{"pass@" + itoa(k), func(t *taskAgg) bool { return t.n >= k },
			func(t *taskAgg) float64 { return PassAtK(t.n, t.c, k) }})
	}
	all := func(*taskAgg) bool { return true }
	return append(ms,
		metric{"mean_accuracy", all, func(t *taskAgg) float64 { return float64(t.c) / float64(t.n) }},
		metric{"sc_accuracy", all, func(t *taskAgg) float64 { return boolValue(t.scRight()) }},
		metric{"first_shot_accuracy", all, func(t *taskAgg) float64 { return float64(t.first) / float64(t.n) }},
		metric{"after_repair_accuracy", all, func(t *taskAgg) float64 { return float64(t.c-t.first) / float64(t.n) }})
}

// delta is the metric of both runs over the paired tasks that have it.
func (m metric) delta(pairs []pair) MetricDelta {
	var as, diffs []float64
	sumB := 0.0
	for _, p := range pairs {
		if !m.has(p.a) || !m.has(p.b) {
			continue
		}
		va, vb := m.value(p.a), m.value(p.b)
		as = append(as, va)
		sumB += vb
		diffs = append(diffs, vb-va)
	}
	d := MetricDelta{Metric: m.name, Tasks: len(diffs)}
	if len(diffs) == 0 {
		return d
	}
	d.A, d.B, d.Delta = mean(as), sumB/float64(len(diffs)), mean(diffs)
	d.CILow, d.CIHigh = bootstrapCI(diffs)
	return d
}

// flipsOf counts the paired tasks by rightness in each run.
func flipsOf(pairs []pair) Flips {
	f := Flips{WrongToRightTasks: []string{}, RightToWrongTasks: []string{}}
	for _, p := range pairs {
		ra, rb := mostlyRight(p.a), mostlyRight(p.b)
		switch {
		case ra && rb:
			f.BothRight++
		case !ra && !rb:
			f.BothWrong++
		case rb:
			f.WrongToRight++
			f.WrongToRightTasks = append(f.WrongToRightTasks, p.a.id)
		default:
			f.RightToWrong++
			f.RightToWrongTasks = append(f.RightToWrongTasks, p.a.id)
		}
	}
	return f
}

// mostlyRight reports whether more than half of the task's episodes
// were correct.
func mostlyRight(t *taskAgg) bool { return 2*t.c > t.n }

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// mean is the mean of xs, summed in their order.
func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(max(len(xs), 1))
}
