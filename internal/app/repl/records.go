package repl

import (
	"fmt"
	"strings"

	"github.com/mattn/go-runewidth"
)

// naturalWidth is how wide the table's lines are when no column is cut.
func (t *table) naturalWidth() int {
	n := 3*len(t.header) - 2
	for _, w := range t.natural() {
		n += w
	}
	return n
}

// records renders the rows one field a line, as psql's expanded display
// does, each row under a "-[ RECORD n ]" rule; values longer than width
// display columns (0: no limit) are cut with "…".
//
//	-[ RECORD 1 ]---------
//	name   | Jane Austen
//	titles | 4
func (t *table) records(width int) []string {
	label := 0
	for _, h := range t.header {
		label = max(label, runewidth.StringWidth(h))
	}
	value := 0
	for _, row := range t.rows {
		for _, c := range row {
			value = max(value, runewidth.StringWidth(c))
		}
	}
	if width > 0 {
		value = max(min(value, width-label-3), minColumn)
	}
	var out []string
	for i, row := range t.rows {
		rule := fmt.Sprintf("-[ RECORD %d ]", i+1)
		out = append(out, rule+strings.Repeat("-", max(label+3+value-runewidth.StringWidth(rule), 0)))
		for j, h := range t.header {
			c := ""
			if j < len(row) {
				c = runewidth.Truncate(row[j], value, "…")
			}
			out = append(out, runewidth.FillRight(h, label)+" | "+c)
		}
	}
	if len(out) == 0 {
		out = append(out, "(no rows)")
	}
	return out
}
