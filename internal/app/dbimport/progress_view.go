package dbimport

import (
	"fmt"
	"io"

	"github.com/sqlgym/sqlgym/base/progress"
)

// ProgressView shows an import's progress: a bar per stage on a
// terminal, plain lines (each database, every tenth of the golds) in a
// pipe or a log.
type ProgressView struct {
	stderr   io.Writer
	terminal bool
	stage    string
	bar      *progress.Bar
	tenth    int // the last tenth of the golds reported in plain lines
}

// NewProgressView shows an import's progress on stderr, a terminal when
// terminal is set.
func NewProgressView(stderr io.Writer, terminal bool) *ProgressView {
	return &ProgressView{stderr: stderr, terminal: terminal}
}

// Update shows where the import is (Config.Progress): a new stage
// starts a bar of its own.
func (p *ProgressView) Update(s Progress) {
	if s.Stage != p.stage {
		p.Finish()
		p.stage, p.tenth = s.Stage, 0
		p.bar = progress.NewBar(p.stderr, p.terminal, s.Stage)
	}
	if p.bar.Terminal() {
		p.bar.Update(s.Done, s.Total)
		return
	}
	switch {
	case s.Stage == "copy" || s.Stage == "suites":
		fmt.Fprintf(p.stderr, "%s %d/%d: %s\n", s.Stage, s.Done, s.Total, s.Item)
	case s.Done*10/s.Total > p.tenth:
		p.tenth = s.Done * 10 / s.Total
		fmt.Fprintf(p.stderr, "verify %d/%d golds\n", s.Done, s.Total)
	}
}

// Finish ends the current stage's bar.
func (p *ProgressView) Finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}
