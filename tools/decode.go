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

// Decode checks a call against its tool and returns the decoded argument
// struct: *InspectSchemaArgs, *ExecuteSQLArgs or *SubmitArgs. An unknown
// tool is a ToolError of code schemas.ErrCodeUnknownTool; arguments that do
// not fit the tool's schema (not an object, an unknown field, a wrong type,
// a missing or empty sql) are schemas.ErrCodeArguments, with a message the
// model can act on.
//
// Leniency: absent or null arguments are an empty object, and arguments
// given as a JSON string holding an object (as the OpenAI API sends them)
// are unwrapped.
func Decode(c Call) (any, *schemas.ToolError) {
	d, ok := lookup(c.Name)
	if !ok {
		return nil, &schemas.ToolError{Code: schemas.ErrCodeUnknownTool, Message: fmt.Sprintf(
			"unknown tool %q: the tools are %s", c.Name, strings.Join(Names(), ", "))}
	}
	if sql, ok := soleSQL(c.Arguments); ok {
		if args, ok := withSQL(d, sql); ok {
			if te := checkSQL(c.Name, args); te != nil {
				return nil, te
			}
			return args, nil
		}
	}
	return decodeGeneral(c, d)
}

// decodeGeneral is Decode for any arguments: the object decoded, its keys
// checked against the tool's schema, then decoded into the struct.
func decodeGeneral(c Call, d toolDef) (any, *schemas.ToolError) {
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
	if te := checkSQL(c.Name, args); te != nil {
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
		if got := jsonKind(obj[k]); got != prop.Type {
			return argError("%s: the argument %q must be a %s, not %s", name, k, prop.Type, got)
		}
	}
	for _, k := range s.Required {
		if _, ok := obj[k]; !ok {
			return argError("%s needs the argument %q; its arguments are: %s", name, k, describeProps(s))
		}
	}
	return nil
}

// checkSQL rejects an sql argument that holds no statement.
func checkSQL(name string, args any) *schemas.ToolError {
	var sql string
	switch a := args.(type) {
	case *ExecuteSQLArgs:
		sql = a.SQL
	case *SubmitArgs:
		sql = a.SQL
	default:
		return nil
	}
	if sqltext.Empty(sql) {
		return argError("%s: the argument \"sql\" is empty; give one SQL statement", name)
	}
	return nil
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
