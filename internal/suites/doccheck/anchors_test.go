package doccheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	heading   = regexp.MustCompile(`^#{1,6} +(.+?)(?: +#+)? *$`)
	fence     = regexp.MustCompile("^ {0,3}(```|~~~)")
	notAnchor = regexp.MustCompile(`[^\p{L}\p{N}\- _]`)
)

// anchors are the fragments the headings of a Markdown document get,
// as GitHub makes them: the heading's text lowercased, without its
// punctuation and code marks, each space a hyphen, and a repeated one
// numbered (-1, -2, ...). Lines of fenced code blocks are no headings.
func anchors(doc string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	inCode := false
	for _, line := range strings.Split(doc, "\n") {
		if fence.MatchString(line) {
			inCode = !inCode
			continue
		}
		m := heading.FindStringSubmatch(line)
		if inCode || m == nil {
			continue
		}
		a := strings.ReplaceAll(notAnchor.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestAnchorsResolve checks that each link to a heading, in the same
// document (#anchor) or in another one (engines.md#anchor), names a
// heading the target has.
func TestAnchorsResolve(t *testing.T) {
	cache := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := cache[path]; ok {
			return a
		}
		a := anchors(read(t, path))
		cache[path] = a
		return a
	}
	checked := 0
	for _, doc := range documents(t) {
		for _, m := range link.FindAllStringSubmatch(read(t, doc), -1) {
			target, frag, ok := strings.Cut(m[1], "#")
			if !ok || strings.Contains(target, "://") || (target != "" && !strings.HasSuffix(target, ".md")) {
				continue
			}
			path := doc
			if target != "" {
				path = filepath.Join(filepath.Dir(doc), target)
			}
			if _, err := os.Stat(path); err != nil {
				continue // TestLinksResolve reports it
			}
			checked++
			if !anchorsOf(path)[frag] {
				t.Errorf("%s links to %s, but %s has no heading whose anchor is #%s", doc, m[1], filepath.Base(path), frag)
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked %d links to headings; the links were not read", checked)
	}
}

// TestAnchorsAreGitHubs checks the anchors the check above resolves
// against the ones GitHub gives the same headings.
func TestAnchorsAreGitHubs(t *testing.T) {
	doc := "# Benchmarks\n\n## Offline evaluation (`sqlgym eval`)\n### The file log's list index, on the hot path\n" +
		"## Growth: live episodes\n```sh\n# a comment, not a heading\n```\n## Growth: live episodes\n" +
		"## MySQL (MariaDB) beside SQLite and PostgreSQL, one step\n"
	want := []string{"benchmarks", "offline-evaluation-sqlgym-eval", "the-file-logs-list-index-on-the-hot-path",
		"growth-live-episodes", "growth-live-episodes-1", "mysql-mariadb-beside-sqlite-and-postgresql-one-step"}
	got := anchors(doc)
	for _, a := range want {
		if !got[a] {
			t.Errorf("no anchor #%s among %v", a, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("anchors %v, want only %v", got, want)
	}
}

// TestBenchmarksOpenWithCurrentFigures checks the order of
// docs/benchmarks.md for a reader sizing a deployment: its first section
// is the current figures, each group of them linked to the section below
// that measured it, and the history follows under its own heading.
func TestBenchmarksOpenWithCurrentFigures(t *testing.T) {
	doc := read(t, filepath.Join(root, "docs", "benchmarks.md"))
	sections := regexp.MustCompile(`(?m)^##? (.+)$`).FindAllStringSubmatch(doc, 3)
	if len(sections) < 3 || sections[1][1] != "Current figures" || sections[2][1] != "History" {
		t.Fatalf("docs/benchmarks.md's headings open with %v, want Benchmarks, Current figures, History", sections)
	}
	_, current, _ := strings.Cut(doc, "\n## Current figures\n")
	current, _, _ = strings.Cut(current, "\n# History\n")
	links := regexp.MustCompile(`\]\(#[^)]+\)`).FindAllString(current, -1)
	if len(links) < 15 {
		t.Errorf("the current figures link %d times to the sections that measured them, want at least 15", len(links))
	}
}
