package console_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sqlgym/sqlgym/internal/testkit/needs"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// chromiumPath is Debian's chromium, installed by scripts/chromium-up
// under CI=true when missing (where a missing browser fails the test);
// elsewhere a missing browser skips the test.
func chromiumPath(t *testing.T) string {
	t.Helper()
	const path = "/usr/bin/chromium"
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if !needs.CI() {
		needs.Missing(t, path+" is missing: run scripts/chromium-up to install it (the browser tests skip without it)")
	}
	out, err := exec.Command("../../../scripts/chromium-up").CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/chromium-up: %v\n%s", err, out)
	}
	return path
}

// browser starts a headless chromium for the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox, chromedp.WindowSize(1280, 900), chromedp.DisableGPU)
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 2*time.Minute) // a bound on a hung browser, not a timing assertion
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	return ctx
}

// shot saves a screenshot of the page into $SQLGYM_CONSOLE_SHOTS (the
// images of docs/console.md), when it is set.
func shot(name string) chromedp.Action[chromedp.Void] {
	return saveShot(name, chromedp.CaptureScreenshot())
}

// saveShot saves the PNG capture takes as name.png in
// $SQLGYM_CONSOLE_SHOTS, when it is set.
func saveShot(name string, capture chromedp.Action[[]byte]) chromedp.Action[chromedp.Void] {
	dir := os.Getenv("SQLGYM_CONSOLE_SHOTS")
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if dir == "" {
			return nil
		}
		png, err := capture(ctx, tg)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
	})
}

// steps runs actions that return nothing, failing the test on an error.
func steps(t *testing.T, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// value runs one action and returns its value, failing the test on an
// error.
func value[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// count is the number of elements the CSS selector matches.
func count(t *testing.T, ctx context.Context, sel string) int {
	t.Helper()
	return value(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+strconv.Quote(sel)+`).length`))
}

// loaded waits until the page whose URL holds part has loaded whole.
func loaded(t *testing.T, ctx context.Context, part string) {
	t.Helper()
	waitfor.Until(t, "a page at a URL holding "+part, func() bool {
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil || !strings.Contains(loc, part) {
			return false
		}
		state, err := chromedp.Run(ctx, chromedp.Evaluate[string]("document.readyState"))
		return err == nil && state == "complete"
	})
}

// TestBrowserLogsInFiltersAndReadsAFailedEpisode logs in by typing the
// token, filters the list to the failed episodes of one database, opens
// the mismatched one and finds its SQL, a result table, the reward
// components and the gold with differing rows marked.
func TestBrowserLogsInFiltersAndReadsAFailedEpisode(t *testing.T) {
	rec := startRecorded(t, "sekret")
	ctx := browser(t)
	id := func(s string) chromedp.ID { return chromedp.ID(s) }
	steps(t, ctx, chromedp.Navigate(rec.URL+"/ui/"), chromedp.WaitVisible(id("token")), shot("login"),
		chromedp.SendKeys(id("token"), "sekret"), chromedp.Click(id("login")),
		chromedp.WaitVisible(id("filters")), shot("episodes"),
		chromedp.SetValue(id("f-db"), rec.DB), chromedp.SetValue(id("f-outcome"), "failed"),
		chromedp.Click(id("apply")))
	loaded(t, ctx, "outcome=failed")
	rows := value(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#episodes tbody tr")].map(r => r.querySelector(".db").textContent + " " + r.querySelector(".outcome").textContent + " " + r.querySelector("a.ep").textContent)`))
	all := strings.Join(rows, "\n")
	if len(rows) == 0 || !strings.Contains(all, rec.Failed) || strings.Contains(all, rec.Correct) {
		t.Fatalf("failed episodes of %s: rows %q, want %s and not %s", rec.DB, rows, rec.Failed, rec.Correct)
	}
	for _, r := range rows {
		if !strings.HasPrefix(r, rec.DB+" ") || strings.Contains(r, " correct ") {
			t.Fatalf("a row of the filtered list is not a failed episode of %s: %q", rec.DB, r)
		}
	}
	steps(t, ctx, chromedp.Click(chromedp.CSS(`a.ep[href="/ui/episodes/`+rec.Failed+`"]`)),
		chromedp.WaitVisible(id("gold-result")), shot("episode"))
	turns := value(t, ctx, chromedp.Text(id("turns")))
	gold := value(t, ctx, chromedp.Text(id("gold")))
	components := value(t, ctx, chromedp.Text(chromedp.CSS(".components")))
	if k := count(t, ctx, "#turns pre.sql span.k"); !strings.Contains(turns, "SELECT name") || !strings.Contains(turns, "FROM singer") || k == 0 {
		t.Fatalf("the turns lack the SQL sent, highlighted (%d keywords):\n%s", k, turns)
	}
	if !strings.Contains(components, "reward") {
		t.Fatalf("no reward components: %q", components)
	}
	if rows, differs := count(t, ctx, "table.result tbody tr"), count(t, ctx, "table.result tr.differs"); !strings.Contains(gold, "Gold") || rows == 0 || differs == 0 {
		t.Fatalf("gold: %d result rows, %d marked as differing:\n%s", rows, differs, gold)
	}
}

// TestBrowserShowsHostileContentAsText opens the pages that show the
// episode whose tags, words and SQL hold markup, a javascript: link and
// bidi overrides: they render them as text, make no element of them, and
// run no script.
func TestBrowserShowsHostileContentAsText(t *testing.T) {
	rec := startRecorded(t, "")
	ctx := browser(t)
	for _, page := range []string{"/ui/episodes", "/ui/episodes?q=pwned", "/ui/episodes/" + rec.Hostile, "/ui/report?run=r3"} {
		steps(t, ctx, chromedp.Navigate(rec.URL+page), chromedp.WaitReady(chromedp.CSS("main")))
		title := value(t, ctx, chromedp.Title())
		scripts, imgs, links := count(t, ctx, "script"), count(t, ctx, "main img"), count(t, ctx, "a[href^='javascript:' i]")
		if strings.Contains(title, "pwned") || scripts+imgs+links > 0 {
			t.Fatalf("%s: title %q, %d scripts, %d images, %d javascript: links", page, title, scripts, imgs, links)
		}
	}
	steps(t, ctx, chromedp.Navigate(rec.URL+"/ui/episodes/"+rec.Hostile), chromedp.WaitVisible(chromedp.ID("tags")), shot("hostile"))
	tags := value(t, ctx, chromedp.Text(chromedp.ID("tags")))
	turns := value(t, ctx, chromedp.Text(chromedp.ID("turns")))
	for _, want := range []string{hostileTag, hostileLink} {
		if !strings.Contains(tags, want) {
			t.Fatalf("tags lack %q as text: %q", want, tags)
		}
	}
	// The override inside the string literal ends with it: the AS after
	// it is still laid out to the literal's right.
	if !value(t, ctx, chromedp.Evaluate[bool](`(() => { const pre = document.querySelector("#gold pre.sql");
		const lit = [...pre.querySelectorAll("span.s")].find(e => e.textContent.includes("pwned-sql"));
		const as = [...pre.querySelectorAll("span.k")].find(e => e.textContent === "AS");
		return lit.getBoundingClientRect().right <= as.getBoundingClientRect().left; })()`)) {
		t.Fatalf("a bidi override in a SQL literal reorders the SQL after it")
	}
	for _, want := range []string{`<img src=x onerror=`, `<script>document.title="pwned-sql"</script>`, "\u202e"} {
		if !strings.Contains(turns, want) {
			t.Fatalf("turns lack %q as text:\n%s", want, turns)
		}
	}
}
