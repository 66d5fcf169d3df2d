package console_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// TestBrowserIdleLivePageSaysSo opens the live page of a server doing
// nothing: after an update (whose series are null: none ran) it says it
// is idle and what will appear; once an episode runs, the note goes and
// the charts show it, episodes in flight on an axis of whole counts.
func TestBrowserIdleLivePageSaysSo(t *testing.T) {
	rec := startRecorded(t, "")
	// The first tick counts the episodes startRecorded played; the
	// second is taken only once the first is done.
	now := time.Now()
	rec.Ticks <- now
	rec.Ticks <- now
	ctx := browser(t)
	steps(t, ctx, chromedp.Navigate(rec.URL+"/ui/live"), chromedp.WaitVisible(chromedp.ID("live-status")))
	waitfor.Until(t, "the live page to subscribe", func() bool { return rec.Live.Subscribers() == 1 })
	rec.Ticks <- now
	updated := func() bool {
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("live-status")))
		return err == nil && strings.HasPrefix(s, "Updated")
	}
	waitfor.Until(t, "the first update drawn", updated)
	steps(t, ctx, shot("live-idle"))
	idle := value(t, ctx, chromedp.Evaluate[string](`(() => { const e = document.getElementById("live-idle"); return e.hidden ? "" : e.textContent; })()`))
	if !strings.HasPrefix(idle, "Idle: no episode is in flight") || !strings.Contains(idle, "steps per second") {
		t.Fatalf("the idle live page says %q: want that it is idle and what it will draw", idle)
	}
	task := &rec.Dataset.Tasks[0]
	episode(t, rec.Client, task, `{"run":"live-run"}`, nil, task.GoldSQL)
	rec.Ticks <- now.Add(time.Second)
	waitfor.Until(t, "the idle note to go once an episode ran", func() bool {
		hidden, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("live-idle").hidden`))
		return err == nil && hidden
	})
	if n := count(t, ctx, `#live-charts figure[data-metric="steps_per_s"] circle.pt`); n == 0 {
		t.Fatalf("an episode ran: no steps per second drawn")
	}
	ticks := value(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#live-charts figure[data-metric="in_flight"] text.axis')].map((e) => e.textContent)`))
	if strings.Join(ticks, " ") != "0 1 2 3 4" {
		t.Fatalf("episodes in flight on an axis of %q, want whole counts 0 to 4", ticks)
	}
}
