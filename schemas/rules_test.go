package schemas_test

import (
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/sqlgym/sqlgym/schemas"
)

// The rules below say what the Go types cannot: the JSON a json.RawMessage
// or an any holds, values fixed by the protocol, and the server's checks
// on shapes (an action is a tool call or a text). Numeric bounds and
// descriptions of single fields are jsonschema struct tags on the types.

// propertyEnums constrains every string property of these names, wherever
// it appears, to the protocol's constants.
func propertyEnums() map[string][]any {
	return map[string][]any{
		"outcome":       anys(schemas.Outcomes()),
		"action_format": {schemas.FormatHermes, schemas.FormatTags},
	}
}

// toolErrorCodes are the codes of schemas.ToolError.
func toolErrorCodes() []any {
	return []any{
		schemas.ErrCodeSQL, schemas.ErrCodeTimeout, schemas.ErrCodeDenied, schemas.ErrCodeMultiStatement,
		schemas.ErrCodeTooLarge, schemas.ErrCodeFormat, schemas.ErrCodeArguments, schemas.ErrCodeUnknownTool,
		schemas.ErrCodeNoSuchTable, schemas.ErrCodeNotRun,
	}
}

// rules refine the schema of a Go type, by the type's name.
func (g *generator) rules() map[string]func(*jsonschema.Schema) {
	return map[string]func(*jsonschema.Schema){
		"Request": func(s *jsonschema.Schema) {
			prop(s, "jsonrpc").Const = "2.0"
			s.Properties.Set("id", describe(idSchema(), "The request's id, echoed in its reply; left out for a notification, which gets no reply."))
			prop(s, "method").MinLength = one()
			describe(prop(s, "params"), "The method's params object (see METHOD.params); may be left out when the method takes none.").Type = "object"
		},
		"Response": func(s *jsonschema.Schema) {
			prop(s, "jsonrpc").Const = "2.0"
			s.Properties.Set("id", describe(idSchema(), "The id of the request answered; null when it could not be read."))
			describe(prop(s, "result"), "The method's result (see METHOD.result).")
			s.OneOf = []*jsonschema.Schema{{Required: []string{"result"}}, {Required: []string{"error"}}}
		},
		"Error": func(s *jsonschema.Schema) {
			describe(prop(s, "data"), "More about the error, when there is more to say.")
		},
		"ServerInfo": func(s *jsonschema.Schema) { prop(s, "protocol").Const = schemas.Protocol },
		"Action":     actionRule,
		"ResetParams": func(s *jsonschema.Schema) {
			spec := partial(g.flat(typeOf[schemas.RewardSpec](), true))
			spec.Version = ""
			spec.Description = "A partial reward spec, merged over the server's."
			preset := &jsonschema.Schema{Type: "string", MinLength: one(),
				Description: "The name of a reward preset (default, binary, retoolsql, arctic-text2sql-r1), paid as a server started with --reward NAME pays."}
			s.Properties.Set("reward", &jsonschema.Schema{OneOf: []*jsonschema.Schema{spec, preset},
				Description: prop(s, "reward").Description})
			prop(s, "tags").Type = "object"
		},
		"Trajectory": func(s *jsonschema.Schema) { prop(s, "tags").Type = "object" },
		"StepRecord": func(s *jsonschema.Schema) {
			describe(prop(s, "arguments"), "The call's arguments as the action gave them (any JSON value: a text action may give a malformed one); left out when no call was read.")
		},
		"AssistantMessage": func(s *jsonschema.Schema) {
			prop(s, "role").Const, prop(s, "role").Enum = "assistant", nil
			nullable(s, "content")
			nullable(s, "reasoning_content")
		},
		"ToolCall": func(s *jsonschema.Schema) { prop(s, "type").Const, prop(s, "type").Enum = "function", nil },
		"FunctionCall": func(s *jsonschema.Schema) {
			args := &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "string"}, {Type: "object"}, {Type: "null"}}}
			s.Properties.Set("arguments", describe(args, "The call's arguments as the model gave them: a JSON string holding an object (the OpenAI shape), or an object; left out or null means none. Kept exactly as sent; a string that holds no object makes the call fail with bad_arguments, not the step."))
		},
		"ToolMessage": func(s *jsonschema.Schema) { prop(s, "role").Const = "tool" },
		"CallRecord": func(s *jsonschema.Schema) {
			describe(prop(s, "arguments"), "The call's arguments decoded: the object a JSON string held, {} for none; as sent when they are not an object.")
		},
		"Tool":         func(s *jsonschema.Schema) { prop(s, "type").Const = "function" },
		"ToolFunction": func(s *jsonschema.Schema) { prop(s, "parameters").Type = "object" },
		"Observation":  func(s *jsonschema.Schema) { prop(s, "role").Const = "tool" },
		"ToolError":    func(s *jsonschema.Schema) { prop(s, "code").Enum = toolErrorCodes() },
	}
}

// actionRule says what the server's check of an action does: a tool call
// (tool, with object arguments), a text, or an assistant message, exactly
// one of them.
func actionRule(s *jsonschema.Schema) {
	s.Description = "What the model did, exactly one of: a tool call the client parsed (tool, with arguments), the model's whole completion (text), or its reply as an assistant message (message), whose calls all run in order."
	prop(s, "tool").MinLength = one()
	prop(s, "arguments").Type = "object"
	s.OneOf = []*jsonschema.Schema{{Required: []string{"tool"}}, {Required: []string{"text"}}, {Required: []string{"message"}}}
	s.DependentRequired = map[string][]string{"arguments": {"tool"}}
}

// nullable lets the string property key of s be null too.
func nullable(s *jsonschema.Schema, key string) {
	p := prop(s, key)
	s.Properties.Set(key, &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: p.Type}, {Type: "null"}}, Description: p.Description})
}

// partial makes a reward spec an override: every member optional, as
// episode.reset merges it over the server's spec.
func partial(s *jsonschema.Schema) *jsonschema.Schema {
	if s == nil || s.Properties == nil {
		return s
	}
	s.Required = nil
	s.Title = "Partial" + s.Title
	for _, p := range s.Properties.FromOldest() {
		partial(p)
	}
	return s
}

// idSchema is a JSON-RPC id: a string, a number or null.
func idSchema() *jsonschema.Schema {
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "string"}, {Type: "number"}, {Type: "null"}}}
}

// prop returns the property key of s; a missing one is a rule out of date
// with its type, which fails generation.
func prop(s *jsonschema.Schema, key string) *jsonschema.Schema {
	p, ok := s.Properties.Get(key)
	if !ok {
		panic("schemas: no property " + key + " in " + s.Title + " (" + strings.Join(keys(s), ", ") + ")")
	}
	return p
}

func keys(s *jsonschema.Schema) []string {
	var out []string
	for k := range s.Properties.FromOldest() {
		out = append(out, k)
	}
	return out
}

// describe sets the description of s, unless a tag or comment gave one.
func describe(s *jsonschema.Schema, text string) *jsonschema.Schema {
	if s.Description == "" {
		s.Description = text
	}
	return s
}

func one() *uint64 {
	n := uint64(1)
	return &n
}

func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
