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
	"github.com/sqlgym/sqlgym/internal/rollout"
	"github.com/sqlgym/sqlgym/internal/rollout/report"
)

// reportView is what the report page shows.
type reportView struct {
	frame
	Form    url.Values
	Error   string
	Rep     *report.Report
	Charts  []chart
	Cmp     *report.Comparison
	Failed  []report.FailedTask
	Episode string // the episode link's prefix
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
	b, err := buildReport(ctx, rd, q.Filter, o)
	if err != nil {
		return err
	}
	rep := b.Report()
	if rep.Episodes == 0 {
		return fmt.Errorf("no recorded episode matches these filters")
	}
	v.Rep, v.Failed = rep, rep.FailedTasks
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
		b, err := buildReport(ctx, rd, f, o)
		if err != nil {
			return err
		}
		if b.Report().Episodes == 0 {
			return fmt.Errorf("run %q has no recorded episode under these filters", run)
		}
		bs[i] = b
	}
	v.Cmp = report.Compare(bs[0], bs[1], q.Compare[0], q.Compare[1])
	var a, b []named
	for _, m := range v.Cmp.Metrics {
		a = append(a, named{Name: m.Metric, Value: m.A})
		b = append(b, named{Name: m.Metric, Value: m.B})
	}
	v.Charts = []chart{groupedChart("Two runs compared over their shared tasks", [][]named{a, b}, q.Compare)}
	return nil
}

// buildReport streams the episodes into a report's Builder, twice when
// some sample ended more than once (report.Builder.Again).
func buildReport(ctx context.Context, rd trajlog.Reader, f trajlog.Filter, o report.Options) (*report.Builder, error) {
	b := report.NewBuilder(o)
	feed := func(b *report.Builder) error {
		return rd.Episodes(ctx, f, func(r *trajlog.Record) error { b.Add(ctx, &r.Trajectory); return nil })
	}
	if err := feed(b); err != nil {
		return nil, fmt.Errorf("reading the episodes: %w", err)
	}
	if again := b.Again(); again != nil {
		if err := feed(again); err != nil {
			return nil, fmt.Errorf("reading the episodes: %w", err)
		}
		b = again
	}
	return b, nil
}

// reportCharts are the charts of one report.
func reportCharts(rep *report.Report) []chart {
	var passk []named
	for _, k := range slices.SortedFunc(maps.Keys(rep.PassAtK), func(a, b string) int { return cmp.Compare(atoi(a), atoi(b)) }) {
		passk = append(passk, named{Name: "k=" + k, Value: rep.PassAtK[k]})
	}
	repair := []named{{Name: "first shot", Value: rep.FirstShotAccuracy}, {Name: "after repair", Value: rep.AfterRepairAccuracy}}
	var outs []named
	for _, o := range slices.Sorted(maps.Keys(rep.Outcomes)) {
		n := rep.Outcomes[o]
		outs = append(outs, named{Name: o, Value: float64(n) / float64(max(1, rep.Episodes)), Shown: strconv.Itoa(n)})
	}
	return []chart{
		lineChart("pass@k", passk),
		barChart("Accuracy by difficulty", accuracies(rep.ByDifficulty, difficultyOrder)),
		barChart("Accuracy by database", accuracies(rep.ByDB, strings.Compare)),
		barChart("First shot and after repair", repair),
		barChart("Outcomes (share of episodes)", outs),
	}
}

// accuracies are the mean accuracy of each group, in order.
func accuracies(m map[string]*report.Stats, order func(a, b string) int) []named {
	var out []named
	for _, k := range slices.SortedFunc(maps.Keys(m), order) {
		s := m[k]
		out = append(out, named{Name: k, Value: s.MeanAccuracy,
			Shown: strconv.FormatFloat(s.MeanAccuracy, 'f', 3, 64) + " (" + strconv.Itoa(s.Episodes) + ")"})
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
