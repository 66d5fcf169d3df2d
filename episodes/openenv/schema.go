package openenv

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	"github.com/invopop/jsonschema"
)

// schemaJSON is the answer of GET /schema (OpenEnv's SchemaResponse): the
// JSON Schemas of the action, the observation (a reset's, a step's or a
// list_tools'), and the state, reflected once from the Go types as the
// schemas package reflects the native protocol's.
var schemaJSON = sync.OnceValue(func() []byte {
	b, err := json.Marshal(map[string]any{
		"action": reflectSchema(reflect.TypeFor[Action]()),
		"observation": map[string]any{
			"title": "Observation", "description": "A reset's, a call_tool or message step's, or a list_tools' observation.",
			"oneOf": []any{
				reflectSchema(reflect.TypeFor[ResetObservation]()),
				reflectSchema(reflect.TypeFor[StepObservation]()),
				reflectSchema(reflect.TypeFor[ToolsObservation]()),
			},
		},
		"state": reflectSchema(reflect.TypeFor[State]()),
	})
	if err != nil {
		panic("openenv: encoding the schemas: " + err.Error()) // static types: cannot fail
	}
	return b
})

// reflectSchema is t's schema as one tree (no $ref), titled with its name.
func reflectSchema(t reflect.Type) *jsonschema.Schema {
	r := &jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true}
	s := r.ReflectFromType(t)
	s.Version = ""
	s.Title = t.Name()
	allowNulls(t, s)
	return s
}

// allowNulls lets every pointer, slice or map field that is always
// emitted (no omitempty) be null too, as encoding/json writes it when nil.
func allowNulls(t reflect.Type, s *jsonschema.Schema) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case s == nil || t == reflect.TypeFor[json.RawMessage]():
	case t.Kind() == reflect.Slice && s.Items != nil:
		allowNulls(t.Elem(), s.Items)
	case t.Kind() == reflect.Struct && s.Properties != nil:
		for i := range t.NumField() {
			allowNullField(t.Field(i), s)
		}
	}
}

// allowNullField applies allowNulls to one field of s's struct.
func allowNullField(f reflect.StructField, s *jsonschema.Schema) {
	name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
	if f.Anonymous && name == "" {
		allowNulls(f.Type, s) // embedded: its fields are s's
		return
	}
	prop, ok := s.Properties.Get(name)
	if !ok || prop == nil {
		return
	}
	allowNulls(f.Type, prop)
	switch f.Type.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		if !strings.Contains(opts, "omitempty") && f.Type != reflect.TypeFor[json.RawMessage]() {
			inner := *prop
			*prop = jsonschema.Schema{AnyOf: []*jsonschema.Schema{&inner, {Type: "null"}}}
		}
	}
}
