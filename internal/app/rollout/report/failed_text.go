package report

import (
	"fmt"
	"io"
	"text/tabwriter"
	"unicode/utf8"
)

// FailedListed bounds the failed tasks the terminal lists; report.json
// lists them all.
const FailedListed = 10

// failedSQLShown bounds, in characters, the SQL a terminal row shows.
const failedSQLShown = 80

// writeFailed writes how many tasks failed and the first FailedListed of
// them, each by its last failing episode.
func (r *Report) writeFailed(w io.Writer) error {
	never := 0
	for _, f := range r.FailedTasks {
		if f.Failed == f.Episodes {
			never++
		}
	}
	fmt.Fprintf(w, "\nfailed tasks: %d of %d (%d never right), by their last failing episode\n", len(r.FailedTasks), r.Tasks, never)
	if len(r.FailedTasks) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "task\toutcome\tfailed\twhat came of it\tlast SQL\n")
	for i, f := range r.FailedTasks {
		if i == FailedListed {
			fmt.Fprintf(tw, "... and %d more tasks (report.json lists them all)\n", len(r.FailedTasks)-i)
			break
		}
		fmt.Fprintf(tw, "%s\t%s\t%d of %d\t%s\t%s\n", f.TaskID, f.Outcome, f.Failed, f.Episodes, f.detail(), shortSQL(f))
	}
	return tw.Flush()
}

// detail says what came of the last failing episode: its error, or the
// rows it returned against the gold's.
func (f *FailedTask) detail() string {
	switch {
	case f.Error != "":
		return oneLine(f.Error)
	case f.Rows != nil:
		return rowsLine(f)
	case f.SQLTool == "":
		return "sent no SQL"
	case f.SQLTool != "submit":
		return "submitted nothing"
	}
	return "-"
}

// rowsLine compares the rows of a mismatch with the gold's, when known.
func rowsLine(f *FailedTask) string {
	got := plural(*f.Rows, "row")
	if f.RowsTruncated {
		got = "over " + got
	}
	switch {
	case f.ExpectedRows == nil:
		return got
	case *f.ExpectedRows == *f.Rows && !f.RowsTruncated:
		return got + " as expected: values or order differ"
	}
	return fmt.Sprintf("%s, %d expected", got, *f.ExpectedRows)
}

// shortSQL is the SQL on one line, cut to failedSQLShown characters,
// after the tool that ran it when it was not submitted.
func shortSQL(f FailedTask) string {
	s := oneLine(f.SQL)
	if s == "" {
		return "-"
	}
	if utf8.RuneCountInString(s) > failedSQLShown {
		s = string([]rune(s)[:failedSQLShown-3]) + "..."
	}
	if f.SQLTool != "submit" {
		s = "(" + f.SQLTool + ") " + s
	}
	return s
}
