package tools

import (
	"strings"

	"github.com/sqlgym/sqlgym/env"
)

// noteText renders what a dataset says of a column, after its line in
// inspect_schema: "  -- human name; description; format: date; values:
// 0: no, 1: yes", "" when it says nothing. A format that only repeats
// the declared type is left out.
func noteText(n env.ColumnNote, declared string) string {
	var parts []string
	for _, p := range []string{n.Name, n.Description} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if n.Format != "" && !strings.EqualFold(n.Format, strings.TrimSpace(declared)) {
		parts = append(parts, "format: "+n.Format)
	}
	if n.Values != "" {
		parts = append(parts, "values: "+n.Values)
	}
	if len(parts) == 0 {
		return ""
	}
	return "  -- " + strings.Join(parts, "; ")
}
