package tools

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/env"
)

// renderEstimate is describe_column's observation of a profile read from
// a sample: it says how the sample was read and of how many rows, and
// gives each count as an estimate for the whole table with its 95%
// margin (or, for a table sampled by its first rows, as the sample's).
func (r *Runner) renderEstimate(p *columnProfile, dialect env.Dialect) string {
	var b strings.Builder
	e := p.est
	decl := p.declared
	if decl == "" {
		decl = "none"
	}
	fmt.Fprintf(&b, "Column %s.%s, declared type %s\n", quoteIdent(p.table, dialect), quoteIdent(p.column, dialect), decl)
	b.WriteString(e.method() + "\n")
	row := firstRow(p.stats, 6)
	d, f1 := float64(asInt(row[2])), float64(asInt(row[5]))
	if e.scaled() {
		nulls, margin := e.total(e.nulls)
		nullText := "none in the sample"
		if e.sampled > e.nonNull {
			nullText = fmt.Sprintf("about %s (%s)", grouped(nulls), share(nulls, margin, e.rows))
		}
		fmt.Fprintf(&b, "Rows: about %s; NULL: %s; distinct values: %s\n", grouped(e.rows), nullText, e.distinctText(d, f1, e.rows-nulls))
	} else {
		nulls := float64(e.sampled - e.nonNull)
		fmt.Fprintf(&b, "Rows: more than %s; NULL: %s of the first %s (%.1f%%); distinct values: at least %s\n",
			grouped(float64(e.sampled)), grouped(nulls), grouped(float64(e.sampled)), 100*nulls/max(float64(e.sampled), 1), grouped(d))
	}
	if p.types != nil {
		fmt.Fprintf(&b, "Stored types (rows of the sample): %s\n", r.pairs(p.types, false))
	}
	if e.nonNull > 0 {
		fmt.Fprintf(&b, "Min: %s; max: %s (of the sample)\n", r.literal(row[3]), r.literal(row[4]))
		fmt.Fprintf(&b, "Most frequent values (%s): %s\n", e.topHeading(), r.topEstimates(e))
		fmt.Fprintf(&b, "Sample values: %s\n", r.values(p.samples))
	}
	return clip(strings.TrimSuffix(b.String(), "\n"), r.budget())
}

// method says how the sample was read, and what its numbers are.
func (e *estimate) method() string {
	if !e.scaled() {
		return fmt.Sprintf("Read from the first %s rows only: the table has more, and no row positions to sample it by; "+
			"its other rows may differ.", grouped(float64(e.sampled)))
	}
	of := "about " + grouped(e.rows)
	if e.fromStats {
		of += " (the engine's statistics)"
	}
	return fmt.Sprintf("Estimated from a sample of %s of %s rows: %d runs of up to %s consecutive rows, spread evenly over the table by %s. "+
		"Counts are estimates for the whole table, ± a 95%% margin.",
		grouped(float64(e.sampled)), of, len(e.s.runs), grouped(float64(e.s.perRun)), e.s.span.Unit)
}

// distinctText is the estimated distinct count with what bounds it: at
// least the values seen, at most the non-NULL rows.
func (e *estimate) distinctText(d, f1, nonNull float64) string {
	if f1 == 0 {
		return fmt.Sprintf("%s (each seen more than once in the sample, so likely all)", grouped(d))
	}
	est := distinct(d, f1, float64(e.nonNull), max(nonNull, d))
	return fmt.Sprintf("about %s (between %s, seen in the sample, %s of them once, and %s, the non-NULL rows)",
		grouped(est), grouped(d), grouped(f1), grouped(max(nonNull, d)))
}

func (e *estimate) topHeading() string {
	if e.scaled() {
		return "rows, estimated"
	}
	return "rows of the sample"
}

// topEstimates writes the most frequent values with their rows: about N
// ± M when scaled to the table, the sample's count otherwise. Values seen
// once in the sample are left out: their counts say nothing.
func (r *Runner) topEstimates(e *estimate) string {
	parts := make([]string, 0, len(e.top))
	for _, t := range e.top {
		if t.inSample < 2 {
			continue
		}
		if e.scaled() {
			rows, margin := roundEstimate(t.rows, t.margin)
			parts = append(parts, fmt.Sprintf("%s (about %s ± %s)", r.literal(t.value), grouped(rows), grouped(margin)))
		} else {
			parts = append(parts, fmt.Sprintf("%s (%d)", r.literal(t.value), t.inSample))
		}
	}
	if len(parts) == 0 {
		return "none seen more than once in the sample"
	}
	return strings.Join(parts, ", ")
}

// roundEstimate rounds a margin up to two significant digits, and the
// estimate to the same unit: 1,668,400 ± 32,599 is 1,668,000 ± 33,000.
func roundEstimate(v, margin float64) (float64, float64) {
	if margin < 10 {
		return math.Round(v), math.Ceil(margin)
	}
	unit := math.Pow(10, math.Floor(math.Log10(margin))-1)
	return math.Round(v/unit) * unit, math.Ceil(margin/unit) * unit
}

// share writes part of whole as a percentage with its margin.
func share(part, margin, whole float64) string {
	if whole <= 0 {
		return "0.0%"
	}
	return fmt.Sprintf("%.1f%% ± %.1f%%", 100*part/whole, math.Max(100*margin/whole, 0.1))
}

// grouped writes x rounded to a whole number, with a comma every three
// digits: 1,234,567.
func grouped(x float64) string {
	s := strconv.FormatInt(int64(math.Round(x)), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
