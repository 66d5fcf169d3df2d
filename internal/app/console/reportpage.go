package console

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/internal/app/rollout"
	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
)

// reportView is what the report page shows.
type reportView struct {
	frame
	Form    url.Values
	Error   string
	Rep     *report.Report
	Charts  []chart
	Cmp     *report.Comparison
	Flipped []flipList // the tasks that flipped, as the CLI lists them
	Failed  []report.FailedTask
	Episode string  // the episode link's prefix
	Runs    *runSet // the runs a report without a run blends; nil when it names one
}

// reportQuery is what a report covers: the episodes the filter passes,
// or two runs compared.
type reportQuery struct {
	Filter  trajlog.Filter
	Compare []string // two run names, or none
}

func (c *Console) reportPage(w http.ResponseWriter, r *http.Request) {
	v := reportView{frame: frame{Title: "Report"}, Form: r.URL.Query(), Episode: Prefix + "/episodes/"}
	q, err := parseReportQuery(r.URL.Query(), c.cfg.MaxOffset)
	if err != nil {
		v.Error = err.Error()
		c.render(w, http.StatusBadRequest, "report", v)
		return
	}
	select {
	case c.reports <- struct{}{}:
		defer func() { <-c.reports }()
	default:
		c.fail(w, http.StatusServiceUnavailable, fmt.Sprintf("Busy: the console computes at most %d reports at once "+
			"(each reads the whole store); try again when one is done.", c.cfg.MaxReports))
		return
	}
	ctx, cancel := withTimeout(r.Context())
	defer cancel()
	if err := fillReport(ctx, &v, c.cfg.Store.Reader(), q, c.cfg.Report); err != nil {
		v.Error = err.Error()
	}
	c.render(w, http.StatusOK, "report", v)
}

// parseReportQuery reads the list's filters, a run, and compare=A,B.
func parseReportQuery(v url.Values, maxOffset int) (reportQuery, error) {
	lq, err := parseQuery(v, maxOffset)
	if err != nil {
		return reportQuery{}, err
	}
	q := reportQuery{Filter: lq.Filter}
	if run := strings.TrimSpace(v.Get("run")); run != "" {
		if q.Filter.Tags == nil {
			q.Filter.Tags = map[string]string{}
		}
		q.Filter.Tags[rollout.TagRun] = run
	}
	if s := strings.TrimSpace(v.Get("compare")); s != "" {
		a, b, ok := strings.Cut(s, ",")
		if !ok || strings.TrimSpace(a) == "" || strings.TrimSpace(b) == "" {
			return q, fmt.Errorf("compare %q: want two run names, A,B", s)
		}
		q.Compare = []string{strings.TrimSpace(a), strings.TrimSpace(b)}
	}
	return q, nil
}

// fillReport computes the report (or the comparison) and its charts.
func fillReport(ctx context.Context, v *reportView, rd trajlog.Reader, q reportQuery, o report.Options) error {
	if len(q.Compare) == 2 {
		return fillComparison(ctx, v, rd, q, o)
	}
	var runs *runSet
	if q.Filter.Tags[rollout.TagRun] == "" {
		runs = newRunSet()
	}
	b, err := buildReport(ctx, rd, q.Filter, o, runs)
	if err != nil {
		return err
	}
	rep := b.Report()
	if rep.Episodes == 0 {
		return fmt.Errorf("no recorded episode matches these filters")
	}
	v.Rep, v.Failed, v.Runs = rep, rep.FailedTasks, runs
	v.Charts = reportCharts(rep)
	return nil
}

func fillComparison(ctx context.Context, v *reportView, rd trajlog.Reader, q reportQuery, o report.Options) error {
	var bs [2]*report.Builder
	for i, run := range q.Compare {
		f := q.Filter
		f.Tags = maps.Clone(f.Tags)
		if f.Tags == nil {
			f.Tags = map[string]string{}
		}
		f.Tags[rollout.TagRun] = run
		b, err := buildReport(ctx, rd, f, o, nil)
		if err != nil {
			return err
		}
		if b.Report().Episodes == 0 {
			return fmt.Errorf("run %q has no recorded episode under these filters", run)
		}
		bs[i] = b
	}
	v.Cmp = report.Compare(bs[0], bs[1], q.Compare[0], q.Compare[1])
	if v.Cmp.PairedTasks == 0 {
		return fmt.Errorf("runs %q and %q share no task with a counted episode", q.Compare[0], q.Compare[1])
	}
	v.Flipped = flipLists(v.Cmp, !v.Static)
	var a, b []named
	for _, m := range v.Cmp.Metrics {
		a = append(a, named{Name: m.Metric, Value: m.A})
		b = append(b, named{Name: m.Metric, Value: m.B})
	}
	ax := valueAxis{Title: fmt.Sprintf("share of the %d shared tasks", v.Cmp.PairedTasks)}
	v.Charts = []chart{groupedChart("Each metric of both runs", [][]named{a, b}, q.Compare, ax)}
	return nil
}

// buildReport streams the episodes into a report's Builder, twice when
// some sample ended more than once (report.Builder.Again); runs, when
// given, counts the first reading's episodes by run.
func buildReport(ctx context.Context, rd trajlog.Reader, f trajlog.Filter, o report.Options, runs *runSet) (*report.Builder, error) {
	b := report.NewBuilder(o)
	feed := func(b *report.Builder, runs *runSet) error {
		return rd.Episodes(ctx, f, func(r *trajlog.Record) error {
			b.Add(ctx, &r.Trajectory)
			runs.add(r.Trajectory.Tags)
			return nil
		})
	}
	if err := feed(b, runs); err != nil {
		return nil, fmt.Errorf("reading the episodes: %w", err)
	}
	if again := b.Again(); again != nil {
		if err := feed(again, nil); err != nil {
			return nil, fmt.Errorf("reading the episodes: %w", err)
		}
		b = again
	}
	return b, nil
}

// reportCharts are the charts of one report: shares on share axes,
// counts on a count axis, each axis titled.
func reportCharts(rep *report.Report) []chart {
	var passk []named
	for _, k := range slices.SortedFunc(maps.Keys(rep.PassAtK), func(a, b string) int { return cmp.Compare(atoi(a), atoi(b)) }) {
		passk = append(passk, named{Name: k, Value: rep.PassAtK[k]})
	}
	repair := []named{{Name: "first shot", Value: rep.FirstShotAccuracy}, {Name: "after repair", Value: rep.AfterRepairAccuracy}}
	var outs []named
	for _, o := range slices.Sorted(maps.Keys(rep.Outcomes)) {
		outs = append(outs, named{Name: o, Value: float64(rep.Outcomes[o])})
	}
	accuracy := valueAxis{Title: "mean accuracy (episodes in brackets)"}
	return []chart{
		lineChart("pass@k", passk, "share of tasks", "k (samples drawn per task)"),
		barChart("Accuracy by difficulty", accuracies(rep.ByDifficulty, difficultyOrder), accuracy),
		barChart("Accuracy by database", accuracies(rep.ByDB, strings.Compare), accuracy),
		barChart("First shot and after repair", repair, valueAxis{Title: "share of episodes"}),
		barChart("Outcomes", outs, valueAxis{Count: true, Title: "episodes"}),
	}
}

// accuracies are the mean accuracy of each group, in order.
func accuracies(m map[string]*report.Stats, order func(a, b string) int) []named {
	var out []named
	for _, k := range slices.SortedFunc(maps.Keys(m), order) {
		s := m[k]
		out = append(out, named{Name: k, Value: s.MeanAccuracy, Shown: report.Pct(s.MeanAccuracy) + " (" + strconv.Itoa(s.Episodes) + ")"})
	}
	return out
}

// difficultyOrder puts Spider's and BIRD's levels in their order, others
// after them by name.
func difficultyOrder(a, b string) int {
	rank := func(s string) int {
		if i := slices.Index([]string{"easy", "simple", "medium", "moderate", "hard", "challenging", "extra"}, s); i >= 0 {
			return i
		}
		return 100
	}
	return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(a, b))
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
