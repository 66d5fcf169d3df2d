package console_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// TestBrowserLivePageDrawsEpisodesSplitByTag opens the live page split
// by the run tag, plays an episode of a new run, and finds that run's
// lines drawn and its outcome counted, pushed by the server.
func TestBrowserLivePageDrawsEpisodesSplitByTag(t *testing.T) {
	rec := startRecorded(t, "")
	ctx := browser(t)
	resp, _ := get(t, rec.URL+"/ui/live")
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self';") || strings.Contains(csp, "unsafe") {
		t.Fatalf("the live page's policy %q: want its own scripts only", csp)
	}
	steps(t, ctx, chromedp.Navigate(rec.URL+"/ui/live?tag=run"), chromedp.WaitVisible(chromedp.ID("live-status")))
	waitfor.Until(t, "the live page to subscribe", func() bool { return rec.Live.Subscribers() == 1 })
	task := &rec.Dataset.Tasks[0]
	now := time.Now()
	for i := 0; i < 3; i++ { // three updates, an episode of the new run in each
		episode(t, rec.Client, task, `{"run":"live-run"}`, nil, task.GoldSQL)
		if i == 1 { // a failed one too: that update's mix has two outcomes
			episode(t, rec.Client, task, `{"run":"live-run"}`, nil, "SELECT 1")
		}
		if i == 2 { // and a run named with markup, to be drawn as text
			tags, _ := json.Marshal(map[string]string{"run": hostileTag})
			episode(t, rec.Client, task, string(tags), nil, "SELECT 1")
		}
		now = now.Add(time.Second)
		rec.Ticks <- now
	}
	waitfor.Until(t, "the live page to draw run=live-run", func() bool {
		legend, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll("#live-charts .legend")].map(e => e.textContent).join("|")`))
		points, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#live-charts figure[data-metric="steps_per_s"] circle.pt').length`))
		return err == nil && strings.Contains(legend, "run=live-run") && points >= 3
	})
	steps(t, ctx, shot("live"))
	value(t, ctx, chromedp.Evaluate[bool](`(document.getElementById("live-mix-title").scrollIntoView(), true)`))
	steps(t, ctx, shot("live-mix"))
	if n := count(t, ctx, `#live-charts figure[data-metric="steps_per_s"] polyline`); n == 0 {
		t.Fatalf("no steps-per-second line drawn")
	}
	if n := count(t, ctx, `#live-charts figure[data-metric="mean_reward"] circle.pt`); n == 0 {
		t.Fatalf("no mean reward drawn")
	}
	// The outcome mix over time: a bar per update for run=live-run, the
	// second update's split into two outcomes.
	mix := `#live-mix figure[data-metric="outcomes"][data-series="live-run"] rect.bar`
	bars := value(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(`+strconv.Quote(mix)+`)].map(r => r.getAttribute("class") + " " + r.getAttribute("x") + " " + r.getAttribute("height"))`))
	xs, kinds := map[string]bool{}, map[string]bool{}
	for _, b := range bars {
		f := strings.Fields(b)
		kinds[f[1]], xs[f[2]] = true, true
		if h, err := strconv.ParseFloat(f[3], 64); err != nil || h <= 0 {
			t.Fatalf("outcome mix bar %q has no height", b)
		}
	}
	if len(xs) != 3 || len(kinds) != 2 || len(bars) != 4 {
		t.Fatalf("outcome mix of run=live-run: bars %q, want 4 over 3 updates in 2 outcomes", bars)
	}
	captions := value(t, ctx, chromedp.Text(chromedp.ID("live-mix")))
	if title := value(t, ctx, chromedp.Title()); !strings.Contains(captions, hostileTag) || strings.Contains(title, "pwned") ||
		count(t, ctx, "main script") != 1 || count(t, ctx, "main img") != 0 {
		t.Fatalf("the run named with markup: title %q, mix captions %q, want the markup as text and no element of it", title, captions)
	}
	outcomes := value(t, ctx, chromedp.Text(chromedp.ID("live-outcomes")))
	if !strings.Contains(outcomes, "run=live-run") || !strings.Contains(outcomes, "correct") {
		t.Fatalf("outcome mix lacks run=live-run's correct episode: %q", outcomes)
	}
}

// TestLiveSubscribersAreBounded holds the live stream's bound (2 in
// these tests) and finds one more refused with the flag named.
func TestLiveSubscribersAreBounded(t *testing.T) {
	rec := startRecorded(t, "")
	for i := 0; i < 2; i++ {
		resp, err := http.Get(rec.URL + "/ui/live/events")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("subscriber %d: %s %q", i, resp.Status, resp.Header.Get("Content-Type"))
		}
	}
	waitfor.Until(t, "two subscribers", func() bool { return rec.Live.Subscribers() == 2 })
	resp, body := get(t, rec.URL+"/ui/live/events")
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "--console-max-live") {
		t.Fatalf("a third subscriber: %s %q, want 503 naming --console-max-live", resp.Status, body)
	}
}
