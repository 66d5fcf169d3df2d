package console_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/internal/app/console"
	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
)

// TestReportHTMLIsAStaticPageWithCharts writes a run's report as files
// and finds its charts drawn, its style sheet beside it, no link into a
// console, and the hostile run's SQL escaped.
func TestReportHTMLIsAStaticPageWithCharts(t *testing.T) {
	rec := startRecorded(t, "")
	dir := t.TempDir()
	ctx := context.Background()
	index, err := console.WriteReportHTML(ctx, dir, rec.Log, trajlog.Filter{Tags: map[string]string{"run": "r1"}}, nil, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<rect class="bar a"`, `<polyline class="line" points="`, `href="static/style.css"`, rec.Failed} {
		if !strings.Contains(string(page), want) {
			t.Fatalf("report page lacks %q", want)
		}
	}
	if strings.Contains(string(page), `href="/ui/`) {
		t.Fatalf("a static report links into the console")
	}
	if _, err := os.Stat(filepath.Join(dir, "static", "style.css")); err != nil {
		t.Fatal(err)
	}
	index, err = console.WriteReportHTML(ctx, t.TempDir(), rec.Log, trajlog.Filter{Tags: map[string]string{"run": "r3"}}, nil, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	page, _ = os.ReadFile(index)
	if strings.Contains(string(page), "<script>") || !strings.Contains(string(page), "&lt;script&gt;") {
		t.Fatalf("the hostile run's SQL is not escaped in its report page")
	}
	_, err = console.WriteReportHTML(ctx, t.TempDir(), rec.Log, trajlog.Filter{Tags: map[string]string{"run": "none"}}, nil, report.Options{})
	if err == nil || !strings.Contains(err.Error(), "no recorded episode matches") {
		t.Fatalf("a report of no episode: %v", err)
	}
}
