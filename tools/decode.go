package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/invopop/jsonschema"
	"github.com/sqlgym/sqlgym/env/sqltext"
	"github.com/sqlgym/sqlgym/schemas"
)

// Call is a parsed tool call: a tool name and its arguments as JSON.
type Call struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// Decode checks a call against every registered tool and returns the
// decoded argument struct (*InspectSchemaArgs, *ExecuteSQLArgs, ...). See
// Set.Decode, which it calls on AllSet.
func Decode(c Call) (any, *schemas.ToolError) {
	inv, te := AllSet().Decode(c)
	return inv.Args, te
}

// Decode checks a call against the set's tools and returns it decoded. A
// tool the set does not offer is a ToolError of code
// schemas.ErrCodeUnknownTool naming the tools it does; arguments that do
// not fit the tool's schema (not an object, an unknown field, a wrong
// type, a missing or empty sql, a value out of bounds) are
// schemas.ErrCodeArguments, with a message the model can act on.
//
// Leniency: absent or null arguments are an empty object, and arguments
// given as a JSON string holding an object (as the OpenAI API sends them)
// are unwrapped.
func (s Set) Decode(c Call) (Invocation, *schemas.ToolError) {
	e, ok := s.find(c.Name)
	if !ok {
		return Invocation{}, &schemas.ToolError{Code: schemas.ErrCodeUnknownTool, Message: fmt.Sprintf(
			"unknown tool %q: the tools are %s", c.Name, strings.Join(s.Names(), ", "))}
	}
	if e.withSQL != nil {
		if sql, ok := soleSQL(c.Arguments); ok {
			args := e.withSQL(sql)
			if te := checkArgs(c.Name, args); te != nil {
				return Invocation{}, te
			}
			return Invocation{e: e, Args: args}, nil
		}
	}
	args, te := decodeGeneral(c, e)
	if te != nil {
		return Invocation{}, te
	}
	return Invocation{e: e, Args: args}, nil
}

// find returns the set's tool of that name.
func (s Set) find(name string) (*entry, bool) {
	for _, e := range s.all() {
		if e.name() == name {
			return e, true
		}
	}
	return nil, false
}

// decodeGeneral is Decode for any arguments: the object decoded, its keys
// checked against the tool's schema, then decoded into the struct.
func decodeGeneral(c Call, d *entry) (any, *schemas.ToolError) {
	obj, body, msg := argsObject(c.Arguments)
	if msg != "" {
		return nil, argError("%s: %s", c.Name, msg)
	}
	if te := checkFields(c.Name, d.schema, obj); te != nil {
		return nil, te
	}
	// checkFields has found every key known, by its exact name, and every
	// value of its type: the object decodes as it is.
	args := d.newArgs()
	if err := json.Unmarshal(body, args); err != nil {
		return nil, argError("%s: arguments do not fit: %v", c.Name, err)
	}
	if te := checkArgs(c.Name, args); te != nil {
		return nil, te
	}
	return args, nil
}

func argError(format string, a ...any) *schemas.ToolError {
	return &schemas.ToolError{Code: schemas.ErrCodeArguments, Message: fmt.Sprintf(format, a...)}
}

// argsObject reads a call's arguments as a JSON object, returned both
// parsed and as its text; msg says why it is not one.
func argsObject(raw json.RawMessage) (obj map[string]json.RawMessage, body []byte, msg string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return map[string]json.RawMessage{}, []byte("{}"), ""
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, nil, fmt.Sprintf("arguments are not valid JSON: %v", err)
		}
		if strings.TrimSpace(s) == "" {
			return map[string]json.RawMessage{}, []byte("{}"), ""
		}
		body = []byte(s)
		if err := json.Unmarshal(body, &obj); err != nil || obj == nil {
			return nil, nil, "arguments must be a JSON object, not a string"
		}
		return obj, body, ""
	}
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		if !json.Valid(raw) {
			return nil, nil, "arguments are not valid JSON"
		}
		return nil, nil, fmt.Sprintf("arguments must be a JSON object, not %s", jsonKind(raw))
	}
	return obj, raw, ""
}

// checkFields checks obj against the tool's reflected schema: known fields
// only, each of its type, the required ones present.
func checkFields(name string, s *jsonschema.Schema, obj map[string]json.RawMessage) *schemas.ToolError {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		prop, ok := s.Properties.Get(k)
		if !ok {
			return argError("%s does not take the argument %q; its arguments are: %s",
				name, k, describeProps(s))
		}
		if got := jsonKind(obj[k]); got != prop.Type && !(prop.Type == "integer" && isInteger(obj[k])) {
			return argError("%s: the argument %q must be a%s %s, not %s", name, k, article(prop.Type), prop.Type, got)
		}
	}
	for _, k := range s.Required {
		if _, ok := obj[k]; !ok {
			return argError("%s needs the argument %q; its arguments are: %s", name, k, describeProps(s))
		}
	}
	return nil
}

// checkArgs rejects arguments whose values are out of their tool's
// bounds (an sql that holds no statement, an empty query, a limit past
// its maximum).
func checkArgs(name string, args any) *schemas.ToolError {
	if p, ok := args.(problem); ok {
		if msg := p.problem(); msg != "" {
			return argError("%s: %s", name, msg)
		}
	}
	return nil
}

// emptySQL says that an sql argument holds no statement; "" when it does.
func emptySQL(sql string) string {
	if sqltext.Empty(sql) {
		return `the argument "sql" is empty; give one SQL statement`
	}
	return ""
}

// describeProps lists a schema's properties as "sql (string, required)".
func describeProps(s *jsonschema.Schema) string {
	var parts []string
	for p := s.Properties.Oldest(); p != nil; p = p.Next() {
		req := "optional"
		for _, r := range s.Required {
			if r == p.Key {
				req = "required"
			}
		}
		parts = append(parts, fmt.Sprintf("%s (%s, %s)", p.Key, p.Value.Type, req))
	}
	return strings.Join(parts, ", ")
}

// isInteger reports whether a JSON number is written as an integer.
func isInteger(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return jsonKind(raw) == "number" && !bytes.ContainsAny(raw, ".eE")
}

// article is "n" before a type name that starts with a vowel.
func article(typ string) string {
	if strings.HasPrefix(typ, "integer") || strings.HasPrefix(typ, "object") || strings.HasPrefix(typ, "array") {
		return "n"
	}
	return ""
}

// jsonKind names the JSON type of a valid JSON value as a schema does.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}
