package repl

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// saveLast writes the last result shown (of SQL or .peek) as CSV or JSON:
// .csv [FILE] and .json [FILE], to the terminal without a FILE.
func (s *session) saveLast(format string, args []string) {
	switch {
	case len(args) > 1:
		s.out.errorf("usage: .%s [FILE]", format)
		return
	case s.last == nil:
		s.out.errorf("no result yet: .%s writes the last result SQL or .peek showed", format)
		return
	}
	var b bytes.Buffer
	if format == "csv" {
		writeCSV(&b, s.last)
	} else {
		writeJSON(&b, s.last)
	}
	if len(args) == 0 {
		s.out.block("", b.String())
		return
	}
	if err := os.WriteFile(args[0], b.Bytes(), 0o644); err != nil {
		s.out.errorf(".%s: %v", format, err)
		return
	}
	note := ""
	if s.last.Truncated {
		note = " (the rows shown: the result was cut at the server's limits)"
	}
	s.out.linef("wrote %s and its header to %s as %s%s", plural(len(s.last.Rows), "row"), args[0], strings.ToUpper(format), note)
}

// writeCSV writes a result as CSV: a header line, then a line per row;
// NULL is an empty field, a string its text, a number as the server
// sent it.
func writeCSV(b *bytes.Buffer, res *rawResult) {
	w := csv.NewWriter(b)
	w.Write(res.Columns)
	for _, row := range res.Rows {
		fields := make([]string, len(res.Columns))
		for i := range fields {
			if i < len(row) {
				fields[i] = csvField(row[i])
			}
		}
		w.Write(fields)
	}
	w.Flush()
}

// csvField is one JSON cell as a CSV field.
func csvField(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	var s string
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return ""
	case raw[0] == '"' && json.Unmarshal(raw, &s) == nil:
		return s
	}
	return string(raw)
}

// writeJSON writes a result as one JSON object, its columns and its rows
// as the wire carries them (a row a line), and whether it was cut.
func writeJSON(b *bytes.Buffer, res *rawResult) {
	cols, _ := json.Marshal(res.Columns)
	fmt.Fprintf(b, "{\"columns\": %s,\n \"rows\": [", cols)
	for i, row := range res.Rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n  [")
		for j, c := range row {
			if j > 0 {
				b.WriteString(", ")
			}
			json.Compact(b, c)
		}
		b.WriteByte(']')
	}
	if len(res.Rows) > 0 {
		b.WriteString("\n ")
	}
	fmt.Fprintf(b, "],\n \"truncated\": %t}\n", res.Truncated)
}
