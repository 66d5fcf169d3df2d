package console_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/internal/app/console"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// TestBrowserPlaysATaskToACorrectSubmit picks a Spider-dev task by id,
// runs a query and submits the gold by clicking and typing, reads the
// verdict, and finds the episode recorded with the tag origin=console.
func TestBrowserPlaysATaskToACorrectSubmit(t *testing.T) {
	rec := startRecorded(t, "")
	ctx := browser(t)
	id := func(s string) chromedp.ID { return chromedp.ID(s) }
	steps(t, ctx, chromedp.Navigate(rec.URL+"/ui/play"), chromedp.WaitVisible(id("play-task")),
		chromedp.SendKeys(id("play-task"), rec.Task.ID), chromedp.Click(id("play-start")),
		chromedp.WaitVisible(id("play-form")))
	question := value(t, ctx, chromedp.Text(id("question")))
	if question != rec.Task.Question {
		t.Fatalf("playing %s: question %q, want %q", rec.Task.ID, question, rec.Task.Question)
	}
	steps(t, ctx, chromedp.SetValue(id("play-tool"), "execute_sql"), chromedp.SendKeys(id("play-sql"), "SELECT name FROM singer"),
		chromedp.Click(id("play-send")))
	waitfor.Until(t, "the first turn on the page", func() bool { return count(t, ctx, "#turn-1") == 1 })
	if obs := value(t, ctx, chromedp.Text(chromedp.CSS("#turn-1 pre.obs"))); !strings.Contains(obs, "Joe Sharp") {
		t.Fatalf("execute_sql's observation lacks a singer: %q", obs)
	}
	steps(t, ctx, chromedp.SetValue(id("play-tool"), "submit"), chromedp.SendKeys(id("play-sql"), rec.Task.GoldSQL),
		chromedp.Click(id("play-send")))
	waitfor.Until(t, "the verdict", func() bool { return count(t, ctx, "#verdict") == 1 })
	steps(t, ctx, shot("play"))
	if v := value(t, ctx, chromedp.Text(id("verdict"))); !strings.Contains(v, "Ended: correct") {
		t.Fatalf("verdict %q, want Ended: correct", v)
	}
	steps(t, ctx, chromedp.Click(id("recorded")), chromedp.WaitVisible(id("tags")))
	if tags := value(t, ctx, chromedp.Text(id("tags"))); !strings.Contains(tags, "origin=console") {
		t.Fatalf("the played episode's tags: %q, want origin=console", tags)
	}
	page, err := console.ReaderStore{R: rec.Log}.List(context.Background(),
		console.Query{Filter: trajlog.Filter{Tags: map[string]string{"origin": "console"}, Outcome: "correct"}, Limit: 10})
	if err != nil || page.Total != 1 {
		t.Fatalf("correct episodes tagged origin=console: %v %v, want 1", page, err)
	}
}

// TestPlayExplainsBadInput posts an unknown task and arguments that are
// not a JSON object, and reads why each was refused.
func TestPlayExplainsBadInput(t *testing.T) {
	rec := startRecorded(t, "")
	post := func(path string, form url.Values) (*http.Response, string) {
		req, _ := http.NewRequest("POST", rec.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return do(t, req)
	}
	if resp, body := post("/ui/play", url.Values{"task_id": {"spider/no-such-task"}}); resp.StatusCode != 400 || !strings.Contains(body, "could not start") {
		t.Fatalf("unknown task: %s\n%s", resp.Status, body)
	}
	resp, _ := post("/ui/play", url.Values{"task_id": {rec.Task.ID}})
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/ui/play/ep_") {
		t.Fatalf("start: %s to %q", resp.Status, loc)
	}
	resp, body := post(loc+"/step", url.Values{"tool": {"execute_sql"}, "arguments": {"[1]"}})
	if resp.StatusCode != 400 || !strings.Contains(body, "want a JSON object") {
		t.Fatalf("arguments [1]: %s\n%s", resp.Status, body)
	}
}
