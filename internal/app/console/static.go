package console

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/sqlgym/sqlgym/base/atomicfile"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
)

// WriteReportHTML writes the report page of the episodes f selects (or,
// with two run names in compare, their comparison) into dir as static
// files a person can open or publish: index.html and static/style.css.
// It returns the path of index.html.
func WriteReportHTML(ctx context.Context, dir string, rd trajlog.Reader, f trajlog.Filter, compare []string, o report.Options) (string, error) {
	pages, err := parsePages()
	if err != nil {
		return "", err
	}
	v := reportView{frame: frame{Title: "Report", Base: "static/", Static: true}, Form: url.Values{}}
	if err := fillReport(ctx, &v, rd, reportQuery{Filter: f, Compare: compare}, o); err != nil {
		return "", err
	}
	var b strings.Builder
	if err := pages["report"].ExecuteTemplate(&b, "page", v); err != nil {
		return "", fmt.Errorf("rendering the report: %w", err)
	}
	css, err := fs.ReadFile(webFS, "web/static/style.css")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Join(dir, "static"), 0o755); err != nil {
		return "", fmt.Errorf("--html: %w", err)
	}
	if err := writeFile(filepath.Join(dir, "static", "style.css"), string(css)); err != nil {
		return "", err
	}
	index := filepath.Join(dir, "index.html")
	return index, writeFile(index, b.String())
}

func writeFile(path, text string) error {
	return atomicfile.Write(path, atomicfile.Options{Perm: 0o644}, func(w *bufio.Writer) error {
		_, err := w.WriteString(text)
		return err
	})
}
