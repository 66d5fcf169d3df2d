// Package schematest compiles the JSON Schemas sqlgym embeds
// (schemas.JSONSchema) with a draft 2020-12 validator, for the tests that
// check documents and frames against them.
package schematest

import (
	"bytes"
	"testing"

	jsv "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sqlgym/sqlgym/schemas"
)

// Compile compiles every embedded schema, formats asserted, keyed by its
// name; it fails tb on one that is not a valid draft 2020-12 schema.
func Compile(tb testing.TB) map[string]*jsv.Schema {
	tb.Helper()
	c := jsv.NewCompiler()
	c.AssertFormat()
	out := map[string]*jsv.Schema{}
	for _, name := range schemas.JSONSchemaNames() {
		b, err := schemas.JSONSchema(name)
		if err != nil {
			tb.Fatal(err)
		}
		doc, err := jsv.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			tb.Fatalf("schema %s: %v", name, err)
		}
		url := "mem://sqlgym/" + name + schemas.JSONSchemaSuffix
		if err := c.AddResource(url, doc); err != nil {
			tb.Fatalf("schema %s: %v", name, err)
		}
		if out[name], err = c.Compile(url); err != nil {
			tb.Fatalf("compile schema %s: %v", name, err)
		}
	}
	return out
}
