package schemas_test

import (
	"github.com/invopop/jsonschema"
)

// Ajv's strict mode (strictRequired) refuses a schema whose required
// names a property that its own properties, or its parent's seen so
// far, do not define, and it reads the branches of oneOf, anyOf and
// allOf before the parent's properties. declareRequired gives each such
// branch the property it requires, as true (anything: the parent's own
// schema for it still applies), so that every file compiles under Ajv's
// strict options as under any other validator, and means the same.
func declareRequired(s *jsonschema.Schema) {
	walk(s, func(s *jsonschema.Schema) {
		for _, list := range [][]*jsonschema.Schema{s.OneOf, s.AnyOf, s.AllOf} {
			for _, b := range list {
				for _, key := range b.Required {
					if b.Properties == nil {
						b.Properties = jsonschema.NewProperties()
					}
					if _, ok := b.Properties.Get(key); !ok {
						b.Properties.Set(key, jsonschema.TrueSchema)
					}
				}
			}
		}
	})
}

// walk calls fn on s and on every schema within it, parents first.
func walk(s *jsonschema.Schema, fn func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	fn(s)
	if s.Properties != nil {
		for _, p := range s.Properties.FromOldest() {
			walk(p, fn)
		}
	}
	for _, p := range s.PatternProperties {
		walk(p, fn)
	}
	walk(s.Items, fn)
	walk(s.AdditionalProperties, fn)
	for _, list := range [][]*jsonschema.Schema{s.OneOf, s.AnyOf, s.AllOf} {
		for _, b := range list {
			walk(b, fn)
		}
	}
}
