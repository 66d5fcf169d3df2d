package repl

import (
	"context"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/schemas"
)

// search runs search_values: .search PHRASE [--table T] [--column C]
// [--limit N]; the phrase is every word that is not a flag.
func (s *session) search(ctx context.Context, args []string) {
	a, ok := parseSearch(args)
	if !ok {
		s.out.errorf("usage: .search PHRASE [--table T] [--column C] [--limit N]")
		return
	}
	s.callTool(ctx, schemas.ToolSearchValues, a, true)
}

// parseSearch reads .search's words into search_values's arguments.
func parseSearch(args []string) (map[string]any, bool) {
	a := map[string]any{}
	var phrase []string
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(args[i], "=")
		flag := strings.TrimPrefix(name, "--")
		if !strings.HasPrefix(name, "--") || (flag != "table" && flag != "column" && flag != "limit") {
			phrase = append(phrase, args[i])
			continue
		}
		if !hasValue {
			if i+1 == len(args) {
				return nil, false
			}
			i++
			value = args[i]
		}
		a[flag] = value
		if flag == "limit" {
			n, err := strconv.Atoi(value)
			if err != nil {
				return nil, false
			}
			a[flag] = n
		}
	}
	if len(phrase) == 0 {
		return nil, false
	}
	a["query"] = strings.Join(phrase, " ")
	return a, true
}

// describe runs describe_column: .describe TABLE COLUMN, or TABLE.COLUMN.
func (s *session) describe(ctx context.Context, args []string) {
	if len(args) == 1 {
		if t, c, ok := strings.Cut(args[0], "."); ok {
			args = []string{t, c}
		}
	}
	if len(args) != 2 {
		s.out.errorf("usage: .describe TABLE COLUMN")
		return
	}
	a := map[string]any{"table": args[0], "column": args[1]}
	s.callTool(ctx, schemas.ToolDescribeColumn, a, true)
}
