package rollout

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym/schemas"
)

// Progress shows a rollout's progress: a bar (episodes done, accuracy
// so far, tokens/s) redrawn on a terminal, one plain line per episode in
// a pipe or a log.
type Progress struct {
	w              io.Writer
	term           bool
	total, done    int
	correct        int
	tokens         int
	start, redrawn time.Time
	now            func() time.Time // the clock: time.Now but in tests
}

// NewProgress shows the progress of total episodes on w: as a bar when w
// is a terminal (term), else in plain lines; now is the clock (nil:
// time.Now).
func NewProgress(w io.Writer, term bool, total int, now func() time.Time) *Progress {
	if now == nil {
		now = time.Now
	}
	return &Progress{w: w, term: term, total: total, start: now(), now: now}
}

// RedrawEvery is how often the bar is redrawn at most (the last
// episode always redraws it).
const RedrawEvery = 100 * time.Millisecond

// Add counts an ended episode and shows it. Calls are serialized by the
// caller (Config.OnResult).
func (p *Progress) Add(res Result) {
	p.done++
	p.tokens += res.Usage.CompletionTokens
	if res.Outcome == schemas.OutcomeCorrect {
		p.correct++
	}
	stats := fmt.Sprintf("accuracy %.1f%%, %.0f tokens/s", 100*float64(p.correct)/float64(p.done),
		float64(p.tokens)/max(p.now().Sub(p.start).Seconds(), 1e-3))
	if !p.term {
		what := fmt.Sprintf("%s (%d steps)", res.Outcome, res.Steps)
		if res.Err != nil {
			what = "closed early: " + res.Err.Error()
		}
		fmt.Fprintf(p.w, "%d/%d %s sample %d %s: %s; %s\n", p.done, p.total, res.Sample.TaskID, res.Sample.Index,
			res.EpisodeID, what, stats)
		return
	}
	if p.now().Sub(p.redrawn) < RedrawEvery && p.done < p.total {
		return
	}
	p.redrawn = p.now()
	const width = 30
	fill := p.done * width / p.total
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d episodes, %s ", strings.Repeat("=", fill), strings.Repeat(" ", width-fill),
		p.done, p.total, stats)
}

// Finish ends the bar's line.
func (p *Progress) Finish() {
	if p.term && p.done > 0 {
		fmt.Fprintln(p.w)
	}
}
