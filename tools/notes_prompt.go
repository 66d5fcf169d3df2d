package tools

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

// PromptNotesBytes bounds the descriptions WithNotes adds to a prompt.
const PromptNotesBytes = 16 << 10

// WithNotes adds what notes say of the database's columns to the prompt's
// user message, after the question and its evidence: a line per table
// description and per described column, at most PromptNotesBytes, the
// last line saying how many were left out. Nil or empty notes leave the
// prompt as it is.
func WithNotes(msgs []schemas.Message, notes *env.DBNotes) []schemas.Message {
	lines := noteLines(notes)
	if len(lines) == 0 {
		return msgs
	}
	var b strings.Builder
	b.WriteString("\n\nColumn descriptions from the dataset:")
	for i, l := range lines {
		if b.Len()+len(l)+1 > PromptNotesBytes-64 {
			fmt.Fprintf(&b, "\n(%d more not shown)", len(lines)-i)
			break
		}
		b.WriteString("\n" + l)
	}
	out := slices.Clone(msgs)
	for i := len(out) - 1; i >= 0; i-- {
		if out[i].Role == "user" {
			out[i].Content += b.String()
			break
		}
	}
	return out
}

// noteLines are the notes as "- table: description" and "- table.column:
// note" lines, tables and columns by name.
func noteLines(notes *env.DBNotes) []string {
	if notes.Empty() {
		return nil
	}
	var lines []string
	for _, t := range slices.Sorted(maps.Keys(notes.Tables)) {
		tn := notes.Tables[t]
		if tn.Description != "" {
			lines = append(lines, "- "+t+": "+tn.Description)
		}
		for _, c := range slices.Sorted(maps.Keys(tn.Columns)) {
			if text := noteText(tn.Columns[c], ""); text != "" {
				lines = append(lines, "- "+t+"."+c+": "+strings.TrimPrefix(text, "  -- "))
			}
		}
	}
	return lines
}
