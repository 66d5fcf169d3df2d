package dbgen

import "time"

// dateLayouts are the text formats of dates a column is recognised in,
// most specific first. A value is in a layout when it reads in it and
// formats back to the same text.
var dateLayouts = []string{
	"2006-01-02 15:04:05.000000",
	"2006-01-02 15:04:05.000",
	"2006-01-02 15:04:05",
	"2006-01-02T15:04:05Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02 15:04",
	"2006-01-02",
	"2006/01/02",
	"01/02/2006",
	"1/2/2006",
	"02-01-2006",
	"2006-01",
	"January 2, 2006",
	"Jan 2, 2006",
	"2 January 2006",
}

// dateLayout returns the layout text is written in, "" when none.
func dateLayout(text string) string {
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, text); err == nil && t.Format(l) == text {
			return l
		}
	}
	return ""
}

// columnLayout is the layout nine in ten of a column's texts are written
// in, "" when there is no such layout.
func columnLayout(texts []string) string {
	if len(texts) == 0 {
		return ""
	}
	counts := map[string]int{}
	best := ""
	for _, s := range texts {
		l := dateLayout(s)
		if l == "" {
			continue
		}
		counts[l]++
		if counts[l] > counts[best] || counts[l] == counts[best] && l < best {
			best = l
		}
	}
	if best == "" || counts[best]*10 < len(texts)*9 {
		return ""
	}
	return best
}

// shiftDays returns text, a date in layout, moved by days, in layout.
func shiftDays(text, layout string, days int) (string, bool) {
	t, err := time.Parse(layout, text)
	if err != nil {
		return "", false
	}
	return t.AddDate(0, 0, days).Format(layout), true
}

// relayout returns text, a date in layout from, written in layout to.
func relayout(text, from, to string) (string, bool) {
	t, err := time.Parse(from, text)
	if err != nil {
		return "", false
	}
	return t.Format(to), true
}

// dateRange is the earliest and latest of the texts in layout, in Unix
// seconds.
func dateRange(texts []string, layout string) (from, to int64) {
	first := true
	for _, s := range texts {
		t, err := time.Parse(layout, s)
		if err != nil {
			continue
		}
		u := t.Unix()
		if first || u < from {
			from = u
		}
		if first || u > to {
			to = u
		}
		first = false
	}
	return from, to
}
