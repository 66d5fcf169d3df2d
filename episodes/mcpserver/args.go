package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// argSchema is what an argument check reads of a tool's input schema:
// each property's JSON type (and its items' type, for an array).
type argSchema struct {
	Properties map[string]argProp `json:"properties"`
}

// argProp is one property of an input schema.
type argProp struct {
	Type  string    `json:"type"`
	Items *argProp  `json:"items"`
	OneOf []argProp `json:"oneOf"` // an argument of several kinds (reward: a spec or a preset's name)
}

// kind is the argument's type, or its kinds joined by "or".
func (p argProp) kind() string {
	if p.Type != "" || len(p.OneOf) == 0 {
		return p.Type
	}
	var kinds []string
	for _, b := range p.OneOf {
		kinds = append(kinds, b.kind())
	}
	return strings.Join(kinds, " or ")
}

// parseArgSchema reads an input schema the server itself declares.
func parseArgSchema(raw json.RawMessage) argSchema {
	var s argSchema
	if err := json.Unmarshal(raw, &s); err != nil {
		panic(fmt.Sprintf("mcpserver: input schema: %v", err)) // fixed here; a test reads every one
	}
	return s
}

// decodeArgs reads a call's arguments into v, refusing, in the tool's own
// words, what its input schema refuses: arguments that are not an
// object, an argument it does not take, one of the wrong type.
func decodeArgs(tool string, s argSchema, raw json.RawMessage, v any) error {
	obj, err := argsObject(tool, raw)
	if err != nil {
		return err
	}
	if err := s.check(tool, obj); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %s", tool, s.describeDecodeError(err))
	}
	return nil
}

// argsObject reads arguments that must be a JSON object.
func argsObject(tool string, raw json.RawMessage) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("%s: the arguments must be a JSON object, not %s", tool, withArticle(kindOf(raw)))
	}
	return obj, nil
}

// check refuses an argument the schema does not name, or whose value is
// not of its type (null stands for leaving it out).
func (s argSchema) check(tool string, obj map[string]json.RawMessage) error {
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		p, ok := s.Properties[k]
		if !ok {
			return fmt.Errorf("%s does not take the argument %q; %s", tool, k, s.describe())
		}
		if got := kindOf(obj[k]); got != "null" && !p.accepts(obj[k]) {
			return fmt.Errorf("%s: the argument %q must be %s, not %s", tool, k, p.wants(), withArticle(got))
		}
	}
	return nil
}

// accepts reports whether a value is of the property's type.
func (p argProp) accepts(raw json.RawMessage) bool {
	if p.Type == "" {
		return true
	}
	if !kindMatches(p.Type, raw) {
		return false
	}
	if p.Type != "array" || p.Items == nil {
		return true
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return false
	}
	return !slices.ContainsFunc(items, func(it json.RawMessage) bool { return !p.Items.accepts(it) })
}

// kindMatches reports whether raw is a JSON value of the schema type typ.
func kindMatches(typ string, raw json.RawMessage) bool {
	got := kindOf(raw)
	if typ == "integer" {
		return got == "number" && !bytes.ContainsAny(raw, ".eE")
	}
	return got == typ
}

// wants names the property's type as a message says it: "a string",
// "an array of strings".
func (p argProp) wants() string {
	if p.Type == "array" && p.Items != nil && p.Items.Type != "" {
		return "an array of " + p.Items.Type + "s"
	}
	return withArticle(p.kind())
}

// describe lists a schema's arguments: "its arguments are: dataset
// (string), limit (integer)", or that it takes none.
func (s argSchema) describe() string {
	if len(s.Properties) == 0 {
		return "it takes no arguments"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		parts = append(parts, fmt.Sprintf("%s (%s)", k, s.Properties[k].kind()))
	}
	return "its arguments are: " + strings.Join(parts, ", ")
}

// describeDecodeError rewords what encoding/json says of a value the
// schema's check let through (an integer too large for its field): the
// argument, what it takes and what was given.
func (s argSchema) describeDecodeError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		arg, _, _ := strings.Cut(te.Field, ".")
		return fmt.Sprintf("the argument %q must be %s, not %s", arg, s.Properties[arg].wants(), givenValue(te.Value))
	}
	return "invalid arguments: " + strings.TrimPrefix(err.Error(), "json: ")
}

// givenValue rewords UnmarshalTypeError.Value: a number's literal (an
// integer one did not fit), or a kind with its article.
func givenValue(v string) string {
	if num, ok := strings.CutPrefix(v, "number "); ok {
		if !strings.ContainsAny(num, ".eE") {
			return num + " (out of range)"
		}
		return num
	}
	if v == "bool" {
		v = "boolean"
	}
	return withArticle(v)
}

// kindOf names the JSON type of a value by its first byte.
func kindOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// withArticle is a type name with its article: "a string", "an integer".
func withArticle(typ string) string {
	if typ != "" && strings.ContainsRune("aeiou", rune(typ[0])) {
		return "an " + typ
	}
	return "a " + typ
}
