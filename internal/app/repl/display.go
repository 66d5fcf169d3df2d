package repl

import (
	"fmt"
	"strings"
)

// Vertical display modes, as psql's \x: off prints a result as a table,
// on prints each row as a record (a line per column), auto prints
// records when the table would be wider than the terminal.
const (
	verticalOff  = "off"
	verticalOn   = "on"
	verticalAuto = "auto"
)

// display is how results are shown: their layout and the pager.
type display struct {
	vertical string // verticalOff, verticalOn or verticalAuto
	pager    string // the command results taller than the terminal go through; "" for none
	paging   bool   // .pager on (the default when there is a pager)
}

// showResult prints a result's rows, as a table fitted to the terminal or
// as records (.vertical), then how many rows there were and what cut
// them; through the pager when it is taller than the terminal. It
// becomes the last result, which .csv and .json write.
func (s *session) showResult(res *rawResult) {
	s.last = res
	if len(res.Columns) == 0 {
		s.out.linef("(the statement returned no columns)")
		return
	}
	s.out.refreshWidth()
	t := resultTable(res.Columns, res.Rows)
	var lines []string
	if s.view.vertical == verticalOn || s.view.vertical == verticalAuto && s.out.width > 0 && t.naturalWidth() > s.out.width {
		lines = t.records(s.out.width)
	} else {
		lines = t.render(s.out.width)
		lines[0] = s.out.paint(styleBold, lines[0])
	}
	lines = append(lines, s.resultFooter(res))
	s.page(lines)
}

// resultFooter says how many rows a result had and what cut them.
func (s *session) resultFooter(res *rawResult) string {
	n := len(res.Rows)
	limit := s.info.Limits.RowLimit
	switch {
	case res.Truncated && (limit == 0 || n >= limit):
		return s.out.paint(styleYellow, fmt.Sprintf("(first %d rows shown; the query returned more, past the row limit; %.2f ms)", n, res.ElapsedMS))
	case res.Truncated:
		return s.out.paint(styleYellow, fmt.Sprintf("(%d rows shown; the result was cut to fit the size limits; %.2f ms)", n, res.ElapsedMS))
	}
	return fmt.Sprintf("(%s, %.2f ms)", plural(n, "row"), res.ElapsedMS)
}

// verticalCmd sets or toggles the vertical display: .vertical
// [on|off|auto], or \x as in psql.
func (s *session) verticalCmd(args []string) {
	switch {
	case len(args) == 0 && s.view.vertical == verticalOn:
		s.view.vertical = verticalOff
	case len(args) == 0:
		s.view.vertical = verticalOn
	case len(args) == 1 && (args[0] == verticalOn || args[0] == verticalOff || args[0] == verticalAuto):
		s.view.vertical = args[0]
	default:
		s.out.errorf("usage: .vertical [on|off|auto] (\\x too)")
		return
	}
	s.out.linef("vertical display is %s", s.view.vertical)
}

// pagerCmd turns the pager on or off: .pager [on|off].
func (s *session) pagerCmd(args []string) {
	switch {
	case len(args) == 1 && args[0] == "off":
		s.view.paging = false
	case len(args) == 1 && args[0] == "on":
		if s.view.pager == "" {
			s.out.errorf("no pager to turn on: PAGER is set empty, or unset with neither less nor more on the PATH")
			return
		}
		s.view.paging = true
	case len(args) != 0:
		s.out.errorf("usage: .pager [on|off]")
		return
	}
	switch {
	case !s.term:
		s.out.linef("no pager: the output is not a terminal")
	case s.view.paging:
		s.out.linef("results taller than the terminal go through the pager: %s", s.view.pager)
	default:
		s.out.linef("the pager is off")
	}
}

// page prints lines, through the pager when they would not fit on the
// terminal with the prompt.
func (s *session) page(lines []string) {
	if s.term && s.view.paging && s.view.pager != "" {
		if _, rows := terminalSize(s.out.w); rows > 0 && len(lines) >= rows {
			shown, err := s.in.runPager(s.view.pager, strings.Join(lines, "\n")+"\n")
			if err != nil {
				s.out.errorf("pager %q: %v (.pager off turns it off)", s.view.pager, err)
			}
			if shown {
				return
			}
		}
	}
	for _, l := range lines {
		s.out.linef("%s", l)
	}
}
