package repl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/schemas"
)

// showDifference tells the person at the REPL how a mismatched
// submission's result differs from the gold's: the rows and columns of
// each and the first row that differs. Only the REPL's own server can
// show it (the gold is read through Local); nothing of it is sent
// anywhere, so no model ever sees it.
func (s *session) showDifference(ctx context.Context) {
	if s.local == nil {
		s.out.styledf(styleDim, "(sqlgym repl without --url, on its own server, shows how a result differs from the gold's)")
		return
	}
	t, err := s.c.Episode(ctx, s.ep.reset.EpisodeID)
	if err != nil {
		s.out.errorf("how it differs from the gold: %v", err)
		return
	}
	sql, ok := submitted(t)
	if !ok {
		return
	}
	c, err := s.local.Compare(ctx, t.Task.TaskID, sql, t.RewardSpec)
	if err != nil {
		s.out.errorf("how it differs from the gold: %v", err)
		return
	}
	s.out.styledf(styleMagenta, "how it differs from the gold (shown here only; the model's observation has none of it):")
	for _, l := range differences(c) {
		s.out.linef("  %s", l)
	}
}

// submitted is the SQL of the episode's last submit.
func submitted(t *schemas.Trajectory) (string, bool) {
	for i := len(t.Steps) - 1; i >= 0; i-- {
		calls := t.Steps[i].CallList()
		for j := len(calls) - 1; j >= 0; j-- {
			var a struct {
				SQL string `json:"sql"`
			}
			if calls[j].Tool == schemas.ToolSubmit && json.Unmarshal(calls[j].Arguments, &a) == nil && a.SQL != "" {
				return a.SQL, true
			}
		}
	}
	return "", false
}

// differences describes, a line each, the shape of both results and the
// first row that differs: in order when the gold orders its rows, else
// the first row of each that the other lacks.
func differences(c *Comparison) []string {
	if c.Gold.Err != "" {
		return []string{"the gold failed here: " + c.Gold.Err}
	}
	if c.Pred.Err != "" {
		return []string{"yours failed here: " + c.Pred.Err}
	}
	lines := []string{"yours: " + shape(c.Pred), "gold:  " + shape(c.Gold)}
	if c.Ordered {
		return append(lines, orderedDifference(c)...)
	}
	mine, theirs := firstMissing(c.Pred.Rows, c.Gold.Rows, c.Distinct), firstMissing(c.Gold.Rows, c.Pred.Rows, c.Distinct)
	if mine >= 0 {
		lines = append(lines, fmt.Sprintf("first row of yours the gold lacks: #%d %s", mine+1, rowText(c.Pred.Rows[mine])))
	}
	if theirs >= 0 {
		lines = append(lines, fmt.Sprintf("first row of the gold yours lacks: #%d %s", theirs+1, rowText(c.Gold.Rows[theirs])))
	}
	if mine < 0 && theirs < 0 {
		lines = append(lines, "the same rows, counted alike: the match mode's rule sets them apart (columns, types or tolerance)")
	}
	return lines
}

// orderedDifference finds the first row out of place when the order
// counts.
func orderedDifference(c *Comparison) []string {
	p, g := c.Pred.Rows, c.Gold.Rows
	for i := range min(len(p), len(g)) {
		if rowKey(p[i]) != rowKey(g[i]) {
			return []string{fmt.Sprintf("the gold orders its rows (ORDER BY); the first that differs is #%d: yours %s, gold %s",
				i+1, rowText(p[i]), rowText(g[i]))}
		}
	}
	if len(p) == len(g) {
		return []string{"the same rows in the same order: the match mode's rule sets them apart (columns, types or tolerance)"}
	}
	longer, which := g, "the gold's"
	if len(p) > len(g) {
		longer, which = p, "yours"
	}
	n := min(len(p), len(g))
	return []string{fmt.Sprintf("the first %s agree; %s goes on with #%d %s", plural(n, "row"), which, n+1, rowText(longer[n]))}
}

// shape is a result's size and columns.
func shape(r Result) string {
	width := len(r.Columns)
	if width == 0 && len(r.Rows) > 0 {
		width = len(r.Rows[0])
	}
	text := plural(len(r.Rows), "row") + " × " + plural(width, "column")
	if len(r.Columns) > 0 {
		text += " (" + strings.Join(r.Columns, ", ") + ")"
	}
	if r.Truncated {
		text += ", more rows past what was read"
	}
	return text
}

// firstMissing is the index of the first row of a that b lacks, or -1:
// b's rows counted (each matches one row of a), unless distinct (any
// number of a's rows match one of b's).
func firstMissing(a, b [][]json.RawMessage, distinct bool) int {
	left := map[string]int{}
	for _, row := range b {
		left[rowKey(row)]++
	}
	for i, row := range a {
		k := rowKey(row)
		if left[k] == 0 {
			return i
		}
		if !distinct {
			left[k]--
		}
	}
	return -1
}

// rowKey is a row as a key: numbers by value (1 and 1.0 alike), other
// cells as their JSON.
func rowKey(row []json.RawMessage) string {
	var b strings.Builder
	for _, c := range row {
		c = bytes.TrimSpace(c)
		if f, err := strconv.ParseFloat(string(c), 64); err == nil {
			b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
		} else {
			b.Write(c)
		}
		b.WriteByte(0)
	}
	return b.String()
}

// rowText renders a row as (a, b, c), as the tables show its cells.
func rowText(row []json.RawMessage) string {
	cells := make([]string, len(row))
	for i, c := range row {
		cells[i], _ = cell(c)
	}
	return "(" + strings.Join(cells, ", ") + ")"
}
