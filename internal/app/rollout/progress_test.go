package rollout

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/schemas"
)

// TestProgressBar draws the bar on a terminal with a clock the test
// moves: each redraw shows the episodes done, the accuracy so far and
// the completion tokens per second, a redraw sooner than RedrawEvery
// after the last is skipped unless it is the last episode's, and the bar
// ends its line.
func TestProgressBar(t *testing.T) {
	var b strings.Builder
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	p := NewProgress(&b, true, 3, func() time.Time { return now })
	ended := func(after time.Duration, outcome string, tokens int) {
		now = start.Add(after)
		p.Add(Result{Sample: Sample{TaskID: "demo/x"}, Outcome: outcome, Usage: Usage{CompletionTokens: tokens}})
	}
	ended(2*time.Second, schemas.OutcomeCorrect, 100)
	ended(2*time.Second+RedrawEvery/2, schemas.OutcomeMismatch, 100) // too soon: not drawn
	ended(4*time.Second, schemas.OutcomeCorrect, 200)
	p.Finish()
	want := "\r[==========                    ] 1/3 episodes, accuracy 100.0%, 50 tokens/s " +
		"\r[==============================] 3/3 episodes, accuracy 66.7%, 100 tokens/s \n"
	if b.String() != want {
		t.Errorf("the bar shows\n%q\nwant\n%q", b.String(), want)
	}
}

// TestProgressLines: in a pipe, one line per episode, naming its task,
// sample and episode, its outcome or why it closed early; no bar.
func TestProgressLines(t *testing.T) {
	var b strings.Builder
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	p := NewProgress(&b, false, 2, func() time.Time { return now })
	now = start.Add(2 * time.Second)
	p.Add(Result{Sample: Sample{TaskID: "demo/a", Index: 1}, EpisodeID: "ep_1", Outcome: schemas.OutcomeCorrect, Steps: 3,
		Usage: Usage{CompletionTokens: 40}})
	p.Add(Result{Sample: Sample{TaskID: "demo/b"}, EpisodeID: "ep_2", Err: errors.New("model gone")})
	p.Finish()
	want := "1/2 demo/a sample 1 ep_1: correct (3 steps); accuracy 100.0%, 20 tokens/s\n" +
		"2/2 demo/b sample 0 ep_2: closed early: model gone; accuracy 50.0%, 20 tokens/s\n"
	if b.String() != want {
		t.Errorf("the lines\n%q\nwant\n%q", b.String(), want)
	}
}
