package schemas_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/sqlgym/sqlgym/schemas"
)

// This file generates the JSON Schemas of jsonschema/*.schema.json from
// the Go types (TestJSONSchemaFiles compares and, with -update, writes).
//
// Each type is reflected with its named types as $defs, refined by rules
// keyed by the Go type's name, then flattened: every $ref is replaced by a
// copy of its definition titled with the type's name. The files are thus
// single trees (validators need no reference resolution, and clients can
// read one file alone), and code generators still get a class name for
// every nested object from its title.
//
// What is required follows encoding/json: a field without omitempty is
// always emitted, so it is required; an omitempty field is optional.
// Params and reward specs forbid unknown members, as the server's strict
// decoders do; results and records allow them, so that a client that
// validates replies keeps working when a later server adds a field.

// message is one generated schema and the Go type it is reflected from.
type message struct {
	name   string       // the file name, less .schema.json
	typ    reflect.Type // the Go type
	title  string       // "" means the Go type's name
	strict bool         // forbid unknown members
	desc   string       // what the message is
	// build makes the schema of a message that is no one Go type (typ
	// is then nil).
	build func(*generator) *jsonschema.Schema
}

func typeOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// messages lists every generated schema.
func messages() []message {
	return []message{
		{name: "rpc.request", typ: typeOf[schemas.Request](),
			desc: "A JSON-RPC 2.0 request of protocol sqlgym/1. A batch is a JSON array of requests."},
		{name: "rpc.response", typ: typeOf[schemas.Response](),
			desc: "A JSON-RPC 2.0 response of protocol sqlgym/1: a result or an error. A batch's reply is a JSON array of responses."},
		{name: "rpc.error", typ: typeOf[schemas.Error](),
			desc: "The error object of a JSON-RPC response (codes -32700 to -32600 from JSON-RPC, -32001 to -32005 from sqlgym)."},
		{name: "server.info.params", typ: typeOf[struct{}](), title: "ServerInfoParams", strict: true,
			desc: "Params of server.info: none (an empty object, or params left out)."},
		{name: "server.info.result", typ: typeOf[schemas.ServerInfo](), desc: "Result of server.info."},
		{name: "tasks.list.params", typ: typeOf[schemas.TasksListParams](), strict: true, desc: "Params of tasks.list."},
		{name: "tasks.list.result", typ: typeOf[schemas.TasksListResult](), desc: "Result of tasks.list: one page of tasks."},
		{name: "tasks.schema.params", typ: typeOf[schemas.TasksSchemaParams](), strict: true,
			desc: "Params of tasks.schema (an extension of sqlgym/1)."},
		{name: "tasks.schema.result", typ: typeOf[schemas.TasksSchemaResult](),
			desc: "Result of tasks.schema: the tables of a task's database with their columns."},
		{name: "episode.reset.params", typ: typeOf[schemas.ResetParams](), strict: true, desc: "Params of episode.reset."},
		{name: "episode.reset.result", typ: typeOf[schemas.ResetResult](), desc: "Result of episode.reset: the new episode."},
		{name: "episode.step.params", typ: typeOf[schemas.StepParams](), strict: true, desc: "Params of episode.step."},
		{name: "episode.step.result", typ: typeOf[schemas.StepResult](), desc: "Result of episode.step: the observation and reward."},
		{name: "episode.close.params", typ: typeOf[schemas.CloseParams](), strict: true, desc: "Params of episode.close."},
		{name: "episode.close.result", typ: typeOf[schemas.CloseResult](), desc: "Result of episode.close."},
		{name: "episode.get.params", typ: typeOf[schemas.CloseParams](), title: "GetParams", strict: true,
			desc: "Params of episode.get."},
		{name: "episode.get.result", typ: typeOf[schemas.Trajectory](),
			desc: "Result of episode.get: the trajectory record of a live or recently ended episode."},
		{name: "reward_spec", typ: typeOf[schemas.RewardSpec](), strict: true,
			desc: "A complete reward spec, as server.info reports it and trajectories store it."},
		{name: "trajectory", typ: typeOf[schemas.Trajectory](),
			desc: "The record of one episode, as episode.get returns it and the trajectory log stores it."},
		{name: "trajectory.line", build: (*generator).lineSchema,
			desc: "One line of the trajectory log (sqlgym serve --data-dir, traj-*.log): a begin, step, done or end line of an episode, or the open line a server writes when it opens the log. See docs/trajectories.md."},
		{name: "tool", typ: typeOf[schemas.Tool](),
			desc: "One tool in the OpenAI function-calling shape, ready for a chat template's tools= argument."},
	}
}

// generator reflects the messages; comments are the package's Go doc
// comments, which become descriptions.
type generator struct {
	comments map[string]string
}

// newGenerator reads the doc comments of the package in dir.
func newGenerator(dir string) (*generator, error) {
	r := &jsonschema.Reflector{}
	if err := r.AddGoComments("github.com/sqlgym/sqlgym/schemas", dir); err != nil {
		return nil, fmt.Errorf("read doc comments: %w", err)
	}
	return &generator{comments: r.CommentMap}, nil
}

// generate returns every message's schema file, by file name.
func (g *generator) generate() (map[string][]byte, error) {
	files := map[string][]byte{}
	for _, m := range messages() {
		var s *jsonschema.Schema
		if m.build != nil {
			s = m.build(g)
		} else {
			s = g.flat(m.typ, m.strict)
		}
		if m.title != "" {
			s.Title = m.title
		}
		s.Description = m.desc
		declareRequired(s)
		b, err := encode(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.name, err)
		}
		files[m.name+schemas.JSONSchemaSuffix] = b
	}
	return files, nil
}

// flat reflects t, applies the type rules and inlines every definition.
func (g *generator) flat(t reflect.Type, strict bool) *jsonschema.Schema {
	r := &jsonschema.Reflector{
		Anonymous:                 true,
		ExpandedStruct:            true,
		AllowAdditionalProperties: !strict,
		LookupComment:             g.comment,
	}
	s := r.ReflectFromType(t)
	rules := g.rules()
	refine(s, t.Name(), rules)
	for name, def := range s.Definitions {
		refine(def, name, rules)
	}
	defs := s.Definitions
	s.Definitions = nil
	s = inline(s, defs)
	if t.Name() != "" {
		s.Title = t.Name()
	}
	return s
}

// comment is the doc comment of type t, or of its field, on one line. A
// field's comment that opens with the field's Go name opens with its JSON
// name instead.
func (g *generator) comment(t reflect.Type, field string) string {
	key := t.PkgPath() + "." + t.Name()
	if field != "" {
		key += "." + field
	}
	text := strings.Join(strings.Fields(g.comments[key]), " ")
	if field == "" || t.Kind() != reflect.Struct {
		return text
	}
	if f, ok := t.FieldByName(field); ok {
		jsonName, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if rest, ok := strings.CutPrefix(text, field+" "); ok && jsonName != "" {
			text = jsonName + " " + rest
		}
	}
	return text
}

// refine applies the rule of the type name, and the enums of properties
// named in propertyEnums, to s.
func refine(s *jsonschema.Schema, name string, rules map[string]func(*jsonschema.Schema)) {
	if rule, ok := rules[name]; ok {
		rule(s)
	}
	if s.Properties == nil {
		return
	}
	for key, p := range s.Properties.FromOldest() {
		if values, ok := propertyEnums()[key]; ok && p.Type == "string" {
			p.Enum = values
		}
	}
}

// inline replaces each $ref into defs by a copy of the definition, titled
// with its type's name and described by the field that refers to it.
func inline(s *jsonschema.Schema, defs jsonschema.Definitions) *jsonschema.Schema {
	if s == nil {
		return nil
	}
	if name, ok := strings.CutPrefix(s.Ref, "#/$defs/"); ok {
		def, found := defs[name]
		if !found {
			panic("schemas: no definition " + name)
		}
		c := *inline(def, defs)
		c.Title = name
		if s.Description != "" {
			c.Description = s.Description
		}
		return &c
	}
	if s.Properties != nil {
		for key, p := range s.Properties.FromOldest() {
			s.Properties.Set(key, inline(p, defs))
		}
	}
	for key, p := range s.PatternProperties {
		s.PatternProperties[key] = inline(p, defs)
	}
	s.Items = inline(s.Items, defs)
	s.AdditionalProperties = inline(s.AdditionalProperties, defs)
	for _, list := range [][]*jsonschema.Schema{s.OneOf, s.AnyOf, s.AllOf} {
		for i := range list {
			list[i] = inline(list[i], defs)
		}
	}
	return s
}

// encode writes s as indented JSON with a final newline, leaving <, > and
// & unescaped so that descriptions read as written.
func encode(s *jsonschema.Schema) ([]byte, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	for esc, plain := range map[string]string{`\u003c`: "<", `\u003e`: ">", `\u0026`: "&"} {
		raw = bytes.ReplaceAll(raw, []byte(esc), []byte(plain))
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
