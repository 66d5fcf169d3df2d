package console

import (
	"embed"
	"fmt"
	"html/template"
	"net/url"
	"strconv"
	"time"

	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
)

// webFS holds the templates and the style sheet, built into the binary:
// the console needs nothing from the network or a build step.
//
//go:embed web
var webFS embed.FS

// pageNames are the pages, each web/templates/NAME.html over layout.html.
var pageNames = []string{"login", "error", "list", "episode", "report", "live", "tasks", "play"}

var funcs = template.FuncMap{
	"num": func(f float64) string { return strconv.FormatFloat(f, 'f', 3, 64) },
	"pct": report.Pct,
	// pct0 is a share as a whole percentage: a confidence level, "95%".
	"pct0": func(f float64) string { return strconv.FormatFloat(100*f, 'f', 0, 64) + "%" },
	// pp is a difference of shares in percentage points, signed, as
	// sqlgym report --compare prints it.
	"pp": report.Points,
	"when": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04:05")
	},
	"f1":   func(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) },
	"sub":  func(a, b float64) float64 { return a - b },
	"add":  func(a, b float64) float64 { return a + b },
	"div2": func(a float64) float64 { return a / 2 },
	// seg is a value placed as one segment of a link's path: a recorded
	// id holding "/", "?" or "#" still names its own page.
	"seg": url.PathEscape,
}

func parsePages() (map[string]*template.Template, error) {
	pages := map[string]*template.Template{}
	for _, name := range pageNames {
		t, err := template.New(name).Funcs(funcs).ParseFS(webFS, "web/templates/layout.html", "web/templates/chart.html", "web/templates/parts.html", "web/templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("console: page %s: %w", name, err)
		}
		pages[name] = t
	}
	return pages, nil
}
