package repl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mattn/go-runewidth"
)

// minColumn is the narrowest a column is squeezed to when a table does
// not fit the terminal.
const minColumn = 4

// table is rows of cells under a header, rendered psql-style:
//
//	 name        | books
//	-------------+-------
//	 Jane Austen |     4
type table struct {
	header []string
	rows   [][]string
	right  []bool // columns aligned right: every cell a number
}

// render returns the table's lines, no longer than width display columns
// (0: no limit): the widest columns are narrowed first, and cut cells end
// with "…".
func (t *table) render(width int) []string {
	widths := t.fit(width)
	out := make([]string, 0, len(t.rows)+2)
	out = append(out, t.line(t.header, widths, nil))
	seps := make([]string, len(widths))
	for i, w := range widths {
		seps[i] = strings.Repeat("-", w+2)
	}
	if n := len(seps); n > 0 {
		seps[n-1] = seps[n-1][:len(seps[n-1])-1] // the last column has no padding after it
	}
	out = append(out, strings.Join(seps, "+"))
	for _, row := range t.rows {
		out = append(out, t.line(row, widths, t.right))
	}
	return out
}

// line renders one row: a leading space, cells padded to their widths and
// separated by " | ", nothing after the last cell.
func (t *table) line(cells []string, widths []int, right []bool) string {
	var b strings.Builder
	for i, w := range widths {
		c := ""
		if i < len(cells) {
			c = runewidth.Truncate(cells[i], w, "…")
		}
		if i > 0 {
			b.WriteString(" |")
		}
		b.WriteByte(' ')
		pad := strings.Repeat(" ", w-runewidth.StringWidth(c))
		switch {
		case right != nil && right[i]:
			b.WriteString(pad + c)
		case i == len(widths)-1:
			b.WriteString(c)
		default:
			b.WriteString(c + pad)
		}
	}
	return b.String()
}

// fit returns each column's width: its widest cell, all capped by the
// largest cap that lets a line fit in width, the columns cut by the cap
// then widened one by one with the columns left over.
func (t *table) fit(width int) []int {
	widths := t.natural()
	if width <= 0 {
		return widths
	}
	fixed := 3*len(widths) - 2 // " " before the first cell, " | " between cells
	lineWidth := func(limit int) int {
		n := fixed
		for _, w := range widths {
			n += min(w, limit)
		}
		return n
	}
	limit := 0
	for _, w := range widths {
		limit = max(limit, w)
	}
	for limit > minColumn && lineWidth(limit) > width {
		limit--
	}
	spare := width - lineWidth(limit)
	for i, w := range widths {
		widths[i] = min(w, limit)
		if w > limit && spare > 0 {
			widths[i]++
			spare--
		}
	}
	return widths
}

// natural returns each column's width: its widest cell or header.
func (t *table) natural() []int {
	widths := make([]int, len(t.header))
	for i, h := range t.header {
		widths[i] = runewidth.StringWidth(h)
	}
	for _, row := range t.rows {
		for i := range widths {
			if i < len(row) {
				widths[i] = max(widths[i], runewidth.StringWidth(row[i]))
			}
		}
	}
	return widths
}

// cell renders one JSON value of a result row: strings without quotes
// and with line breaks and other control characters escaped, NULL for
// null, numbers exactly as the server sent them. isNumber says whether it
// was a number.
func cell(raw json.RawMessage) (text string, isNumber bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "NULL", false
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return escapeControls(s), false
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return string(raw), true
	}
	return escapeControls(string(raw)), false
}

// escapeControls shows control characters as escapes, so a cell stays on
// one line and keeps its width.
func escapeControls(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case isControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// plainTable builds a table of text cells, every column aligned left.
func plainTable(header []string, rows [][]string) *table {
	for i, row := range rows {
		for j, c := range row {
			rows[i][j] = escapeControls(c)
		}
	}
	return &table{header: header, rows: rows}
}

// resultTable builds the table of a result's rows; a column whose cells
// are all numbers (NULLs aside) is aligned right.
func resultTable(columns []string, rows [][]json.RawMessage) *table {
	t := &table{header: make([]string, len(columns)), right: make([]bool, len(columns))}
	for i, c := range columns {
		t.header[i] = escapeControls(c)
		t.right[i] = len(rows) > 0
	}
	for _, raw := range rows {
		row := make([]string, len(columns))
		for i := range columns {
			var num bool
			if i < len(raw) {
				row[i], num = cell(raw[i])
			} else {
				row[i] = "NULL"
			}
			t.right[i] = t.right[i] && (num || row[i] == "NULL")
		}
		t.rows = append(t.rows, row)
	}
	return t
}
