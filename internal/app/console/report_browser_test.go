package console_test

import (
	"context"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sqlgym/sqlgym/env"
)

// The report pages' browser tests: two runs of Spider-dev tasks on
// databases with long names, read at 1280 px wide.

// runDBs are the databases of the runs' tasks: Spider-dev's longest names.
var runDBs = []string{"student_transcripts_tracking", "employee_hire_evaluation", "cre_Doc_Template_Mgt", "concert_singer"}

// The two runs' scripts, a letter per task: G submits the gold, W a wrong
// answer, E a query that fails. base gets 4 of 8 right, tuned 6 of 8:
// tasks 2, 4 and 8 flip wrong → right, task 3 right → wrong.
const (
	scriptBase  = "GWGWGWGE"
	scriptTuned = "GGWGGWGG"
)

// playRuns records runs base and tuned on two tasks of each of runDBs,
// and returns the tasks that flipped each way.
func (rec *recorded) playRuns(t *testing.T) (wrongToRight, rightToWrong []string) {
	t.Helper()
	var tasks []*env.Task
	for _, db := range runDBs {
		n := 0
		for i := range rec.Dataset.Tasks {
			if task := &rec.Dataset.Tasks[i]; task.DBID == db && n < 2 {
				tasks, n = append(tasks, task), n+1
			}
		}
	}
	sqlOf := map[byte]func(*env.Task) string{
		'G': func(task *env.Task) string { return task.GoldSQL },
		'W': func(*env.Task) string { return "SELECT 'no such answer'" },
		'E': func(*env.Task) string { return "SELECT no_such_column FROM no_such_table" },
	}
	for i, task := range tasks {
		episode(t, rec.Client, task, `{"run":"base"}`, nil, sqlOf[scriptBase[i]](task))
		episode(t, rec.Client, task, `{"run":"tuned"}`, nil, sqlOf[scriptTuned[i]](task))
		switch a, b := scriptBase[i] == 'G', scriptTuned[i] == 'G'; {
		case !a && b:
			wrongToRight = append(wrongToRight, task.ID)
		case a && !b:
			rightToWrong = append(rightToWrong, task.ID)
		}
	}
	slices.Sort(wrongToRight)
	slices.Sort(rightToWrong)
	return wrongToRight, rightToWrong
}

// fullShot saves a screenshot of the whole page, as PNG, into
// $SQLGYM_CONSOLE_SHOTS when it is set.
func fullShot(name string) chromedp.Action[chromedp.Void] {
	return saveShot(name, chromedp.FullScreenshot(100))
}

// unfitJS lists what a page does not lay out whole: a chart's label
// outside its chart, cut short or over another label, a text element
// whose content is wider than its box, a page wider than the window.
const unfitJS = `(() => {
	const bad = [];
	const over = (r, q) => r.left < q.right && q.left < r.right && r.top < q.bottom && q.top < r.bottom;
	for (const svg of document.querySelectorAll("#charts svg")) {
		const box = svg.getBoundingClientRect();
		const texts = [...svg.querySelectorAll("text")];
		const rects = texts.map((e) => e.getBoundingClientRect());
		texts.forEach((e, i) => {
			const r = rects[i];
			if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) bad.push("outside its chart: " + e.textContent);
			if (e.textContent.includes("…") || e.textContent.includes("...")) bad.push("cut: " + e.textContent);
			for (let j = 0; j < i; j++) if (over(r, rects[j])) bad.push("over another: " + e.textContent + " / " + texts[j].textContent);
		});
	}
	for (const e of document.querySelectorAll("main th, main td, main dt, main dd, main figcaption, main li, main p, main strong, main a"))
		if (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).display !== "inline") bad.push("wider than its box: " + e.textContent);
	const doc = document.documentElement;
	if (doc.scrollWidth > doc.clientWidth) bad.push("the page scrolls sideways: " + doc.scrollWidth + " > " + doc.clientWidth);
	return bad;
})()`

// fits fails the test when the page lays something out cut or over
// something else, and checks the charts' labels are each a full name.
func fits(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	if bad := value(t, ctx, chromedp.Evaluate[[]string](unfitJS)); len(bad) > 0 {
		t.Fatalf("%s at 1280 px:\n%s", page, strings.Join(bad, "\n"))
	}
	if n := count(t, ctx, "#charts svg text"); n == 0 {
		t.Fatalf("%s: no chart label drawn", page)
	}
}

// chartWidths are the drawn widths of the report's charts, in pixels.
func chartWidths(t *testing.T, ctx context.Context) []float64 {
	return value(t, ctx, chromedp.Evaluate[[]float64](`[...document.querySelectorAll("#charts svg")].map((s) => s.getBoundingClientRect().width)`))
}

// TestBrowserReportPagesAt1280 reads a run's report, every run blended
// and two runs compared at 1280 by 800 px, on real Spider-dev runs whose
// databases have long names: no label is cut or laid over another, the
// charts use the page's width, each axis says what it counts, the run
// shown is named, the differences are signed percentage points as
// sqlgym report --compare prints them, and the flipped tasks are listed.
func TestBrowserReportPagesAt1280(t *testing.T) {
	rec := startRecorded(t, "")
	wrongToRight, rightToWrong := rec.playRuns(t)
	ctx := browser(t)
	steps(t, ctx, chromedp.EmulateViewport(1280, 800),
		chromedp.Navigate(rec.URL+"/ui/report?run=tuned"), chromedp.WaitVisible(chromedp.ID("charts")), fullShot("report"))
	fits(t, ctx, "the report of run tuned")
	if run := value(t, ctx, chromedp.Text(chromedp.ID("run-name"))); run != "tuned" {
		t.Fatalf("the report of run tuned names the run %q", run)
	}
	widths := chartWidths(t, ctx)
	if len(widths) != 5 || slices.Min(widths) < 560 {
		t.Fatalf("charts drawn %v px wide at 1280 px: want 5, two a row, each at least 560 px", widths)
	}
	labels := value(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#charts text.label")].map((e) => e.textContent)`))
	for _, db := range runDBs {
		if !slices.Contains(labels, "spider/"+db) {
			t.Fatalf("the database chart lacks the whole label spider/%s: %q", db, labels)
		}
	}
	titles := value(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#charts figure")].map((f) => f.querySelector("figcaption").textContent + ": " + [...f.querySelectorAll("text.title")].map((e) => e.textContent).join(", ") + " | " + [...f.querySelectorAll("text.axis")].map((e) => e.textContent).join(" "))`))
	outcomes := titles[len(titles)-1]
	if !strings.HasPrefix(outcomes, "Outcomes: episodes | 0 ") || strings.Contains(outcomes, "%") {
		t.Fatalf("the outcomes chart's axis: %q, want counts of episodes", outcomes)
	}
	for _, c := range titles[:len(titles)-1] {
		if !strings.Contains(c, "share") && !strings.Contains(c, "accuracy") || !strings.Contains(c, " 100%") {
			t.Fatalf("a chart of shares: %q, want a share axis to 100%%, titled", c)
		}
	}

	steps(t, ctx, chromedp.Navigate(rec.URL+"/ui/report"), chromedp.WaitVisible(chromedp.ID("runs")), shot("report-all"))
	fits(t, ctx, "every run blended")
	runs := value(t, ctx, chromedp.Text(chromedp.ID("runs")))
	links := value(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#runs a.run")].map((a) => a.textContent + " " + a.getAttribute("href"))`))
	if !strings.Contains(runs, "Every run blended") || len(links) != 5 || !slices.Contains(links, "tuned ?run=tuned") {
		t.Fatalf("the report of no run: %q, links %q; want it to say it blends every run and link each of r1, r2, r3, base, tuned", runs, links)
	}

	steps(t, ctx, chromedp.Navigate(rec.URL+"/ui/report?compare="+url.QueryEscape("base,tuned")),
		chromedp.WaitVisible(chromedp.ID("comparison")), fullShot("compare"))
	fits(t, ctx, "base and tuned compared")
	named := value(t, ctx, chromedp.Text(chromedp.ID("compare-runs")))
	if !strings.Contains(named, "Run B tuned against run A base over the 8 tasks both ran") {
		t.Fatalf("the compare page names %q", named)
	}
	deltas := value(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#comparison tbody tr")].map((r) => r.cells[0].textContent + " " + r.cells[3].textContent)`))
	signed := regexp.MustCompile(`^\S+ ([+-]\d+\.\d|0\.0) pp$`)
	for _, d := range deltas {
		if !signed.MatchString(d) {
			t.Fatalf("a difference %q: want it signed, in pp", d)
		}
	}
	if !slices.Contains(deltas, "mean_accuracy +25.0 pp") {
		t.Fatalf("differences %q: want mean_accuracy +25.0 pp (4 of 8 right, then 6 of 8)", deltas)
	}
	steps(t, ctx, chromedp.EmulateViewport(560, 800), chromedp.Reload())
	fits(t, ctx, "base and tuned compared on a narrow screen")
	steps(t, ctx, chromedp.EmulateViewport(1280, 800))
	for id, want := range map[string][]string{"flips-wrong-right": wrongToRight, "flips-right-wrong": rightToWrong} {
		listed := value(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#`+id+` a.task")].map((a) => a.textContent)`))
		if !slices.Equal(listed, want) {
			t.Fatalf("%s lists %q, want %q", id, listed, want)
		}
	}
}
