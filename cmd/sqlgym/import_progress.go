package main

import (
	"fmt"
	"io"

	"github.com/sqlgym/sqlgym/internal/app/dbimport"
)

// importProgress shows an import's progress: a bar per stage on a
// terminal, plain lines (each database, every tenth of the golds) in a
// pipe or a log.
type importProgress struct {
	stderr io.Writer
	stage  string
	bar    *progress
	tenth  int // the last tenth of the golds reported in plain lines
}

func newImportProgress(stderr io.Writer) *importProgress {
	return &importProgress{stderr: stderr}
}

func (p *importProgress) update(s dbimport.Progress) {
	if s.Stage != p.stage {
		p.finish()
		p.stage, p.tenth = s.Stage, 0
		p.bar = newProgress(p.stderr, s.Stage)
	}
	if p.bar.w != nil {
		p.bar.update(s.Done, s.Total)
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

// finish ends the current stage's bar.
func (p *importProgress) finish() {
	if p.bar != nil {
		p.bar.finish()
	}
}
