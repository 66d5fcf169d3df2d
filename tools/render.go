package tools

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sqlgym/sqlgym/env"
)

// RenderRows renders a result set compactly for the model: a header line
// "a | b | c", one line per row, then a count line: "(3 rows)";
// "(showing first 50 rows; more were returned)" when the result held more
// than RowLimit rows (or the engine stopped at RowLimit); "(3 rows shown;
// the result was cut to fit the size limits)" when the engine cut values
// or rows short of RowLimit. NULL is NULL, floats take their shortest form
// (see FormatValue), blobs read <blob N bytes>, line breaks in text are
// escaped, and cells longer than CellChars are cut with "…". The whole
// stays within ObservationBytes less room for the turns-left line; rows
// that do not fit are dropped and the count line says so.
func (r *Runner) RenderRows(rs *env.ResultSet) string {
	if len(rs.Columns) == 0 {
		return "(the statement returned no columns)"
	}
	shown := min(len(rs.Rows), r.cfg.RowLimit)
	more := len(rs.Rows) > shown || rs.Truncated && shown == r.cfg.RowLimit
	var b strings.Builder
	tail := len("(1000 rows)") // the count line, unless rows were left out
	if more || rs.Truncated {
		tail = footRoom
	}
	fit := r.grid(&b, rs, shown, r.budget()-footRoom, tail)
	var buf [footRoom]byte
	foot := buf[:0]
	switch {
	case fit < shown && more:
		foot = fmt.Appendf(foot, "(showing first %d rows; output cut at %d bytes; more were returned)", fit, r.cfg.ObservationBytes)
	case fit < shown:
		foot = fmt.Appendf(foot, "(showing first %d of %d rows; output cut at %d bytes)", fit, shown, r.cfg.ObservationBytes)
	case more:
		foot = fmt.Appendf(foot, "(showing first %d rows; more were returned)", fit)
	case rs.Truncated:
		foot = fmt.Appendf(foot, "(%d rows shown; the result was cut to fit the size limits)", fit)
	default:
		foot = appendCountRows(foot, fit)
	}
	b.Write(foot)
	return clip(b.String(), r.budget())
}

// footRoom is the room RenderRows keeps for its count line.
const footRoom = 80

// grid writes the header and up to n rows of rs to b as lines, each
// ending in a line break, stopping before the text passes budget bytes;
// it returns how many rows it wrote. It sizes b once, for as many rows
// as long as the first, within the budget, and tail bytes more for what
// the caller writes after them.
func (r *Runner) grid(b *strings.Builder, rs *env.ResultSet, n, budget, tail int) (fit int) {
	header := make([]string, len(rs.Columns))
	for i, c := range rs.Columns {
		header[i] = r.cell(c)
	}
	cells := make([]string, len(rs.Columns))
	rowSize := 0
	if n > 0 {
		rowSize = r.rowCells(cells, rs.Rows[0]) + 1
	}
	b.Grow(min(lineSize(header)+1+n*rowSize, max(budget, 0)+1) + tail)
	if size := lineSize(header); size > budget {
		b.WriteString(clip(strings.Join(header, " | "), max(budget, 0)))
	} else {
		writeLine(b, header)
	}
	b.WriteByte('\n')
	for i, row := range rs.Rows[:n] {
		size := rowSize - 1
		if i > 0 {
			size = r.rowCells(cells, row)
		}
		if b.Len()+size+1 > budget {
			break
		}
		writeLine(b, cells)
		b.WriteByte('\n')
		fit++
	}
	return fit
}

// rowCells fills cells with the cells of row, as the model sees them
// (a row shorter than the header leaves the rest empty), and returns the
// length of their line.
func (r *Runner) rowCells(cells []string, row []any) int {
	for i := range cells {
		cells[i] = ""
		if i < len(row) {
			cells[i] = r.cell(FormatValue(row[i]))
		}
	}
	return lineSize(cells)
}

// lineSize is the length of cells joined by " | ".
func lineSize(cells []string) int {
	n := 3 * max(len(cells)-1, 0)
	for _, c := range cells {
		n += len(c)
	}
	return n
}

// writeLine writes cells joined by " | ", without a line break.
func writeLine(b *strings.Builder, cells []string) {
	for i, c := range cells {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(c)
	}
}

func countRows(n int) string {
	if n == 1 {
		return "(1 row)"
	}
	return fmt.Sprintf("(%d rows)", n)
}

// appendCountRows appends countRows(n) to dst.
func appendCountRows(dst []byte, n int) []byte {
	if n == 1 {
		return append(dst, "(1 row)"...)
	}
	dst = strconv.AppendInt(append(dst, '('), int64(n), 10)
	return append(dst, " rows)"...)
}

// cell makes s fit one cell: valid UTF-8, line breaks escaped, at most
// CellChars characters and "…".
func (r *Runner) cell(s string) string {
	s = escapeBreaks(strings.ToValidUTF8(s, "\uFFFD"))
	if utf8.RuneCountInString(s) <= r.cfg.CellChars {
		return s
	}
	n := 0
	for i := range s {
		if n == r.cfg.CellChars {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// escapeBreaks writes line breaks and tabs as \n, \r and \t, so a cell
// stays on its line.
func escapeBreaks(s string) string {
	if !strings.ContainsAny(s, "\r\n\t") {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		switch c {
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// FormatValue renders one value as the model sees it: NULL for nil,
// integers in decimal, floats as their shortest round-tripping form with
// ".0" on whole numbers and an exponent outside [1e-4, 1e16) (as Python's
// repr does, so 34.5, 3.0, 1e-05, 1e+16), NaN and ±Inf as NaN, Inf, -Inf,
// text as it is, and blobs as <blob N bytes>.
func FormatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return formatFloat(x)
	case string:
		return x
	case []byte:
		return fmt.Sprintf("<blob %d bytes>", len(x))
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	abs := math.Abs(f)
	if abs != 0 && (abs < 1e-4 || abs >= 1e16) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	var buf [40]byte
	b := strconv.AppendFloat(buf[:0], f, 'f', -1, 64)
	if !slices.Contains(b, '.') {
		b = append(b, ".0"...)
	}
	return string(b)
}

// JSONRows converts rows to values encoding/json can always write: blobs
// become the string "<blob N bytes>" (the same summary the model sees; a
// blob's bytes are never sent), NaN and ±Inf become the strings "NaN",
// "Inf" and "-Inf", text is made valid UTF-8, and nil, int64, float64 and
// bool stay as they are. Any other type becomes its fmt.Sprint string.
// What needs no change is not copied: a row whose values all stay is the
// input's own row, and rows that all stay are the input itself, so
// neither may be changed while the other is in use.
func JSONRows(rows [][]any) [][]any {
	var out [][]any // nil until a row changes
	for i, row := range rows {
		jr := jsonRow(row)
		if out == nil && jr == nil {
			continue
		}
		if out == nil {
			out = make([][]any, len(rows))
			copy(out, rows[:i])
		}
		if jr == nil {
			jr = row
		}
		out[i] = jr
	}
	switch {
	case out != nil:
		return out
	case rows == nil:
		return [][]any{} // [] on the wire, as a copy would be
	}
	return rows
}

// jsonRow is the row converted as JSONRows converts it, or nil when
// every value stays as it is.
func jsonRow(row []any) []any {
	if row == nil {
		return []any{} // [] on the wire, as a copy would be
	}
	var out []any
	for j, v := range row {
		jv, same := jsonValue(v)
		if same && out == nil {
			continue
		}
		if out == nil {
			out = make([]any, len(row))
			copy(out, row[:j])
		}
		out[j] = jv
	}
	return out
}

// jsonValue is v as JSONRows writes it, and whether that is v itself.
func jsonValue(v any) (any, bool) {
	switch x := v.(type) {
	case nil, int64, bool:
		return v, true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return formatFloat(x), false
		}
		return v, true
	case string:
		if utf8.ValidString(x) {
			return v, true
		}
		return strings.ToValidUTF8(x, "\uFFFD"), false
	}
	return FormatValue(v), false
}

// clip cuts s to at most n bytes at a character boundary, ending it with
// "…" when it was cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const ell = "…"
	if n < len(ell) {
		return trimToRune(s, n)
	}
	return trimToRune(s, n-len(ell)) + ell
}

// trimToRune returns the longest prefix of s of at most n bytes that does
// not split a character.
func trimToRune(s string, n int) string {
	n = max(n, 0)
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
