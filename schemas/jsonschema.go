package schemas

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// The JSON Schemas of the wire messages are generated from the Go types of
// this package by a golden test; regenerate them after changing a type:
//
//go:generate go test -run TestJSONSchemaFiles -update .

// jsonSchemaFiles holds the generated schemas, jsonschema/NAME.schema.json.
//
//go:embed jsonschema/*.schema.json
var jsonSchemaFiles embed.FS

// jsonSchemaDir is where the generated schemas live in this package.
const jsonSchemaDir = "jsonschema"

// JSONSchemaSuffix ends the file name of every generated schema.
const JSONSchemaSuffix = ".schema.json"

// JSONSchemaFiles returns the generated JSON Schemas (draft 2020-12) as a
// file system holding NAME.schema.json at its root, one per message:
// METHOD.params and METHOD.result for each method (server.info,
// tasks.list, tasks.schema, episode.reset, episode.step, episode.close, episode.get),
// rpc.request, rpc.response and rpc.error for the JSON-RPC envelope, and
// reward_spec, trajectory, trajectory.line (one line of the trajectory
// log, of any kind) and tool.
func JSONSchemaFiles() fs.FS {
	sub, err := fs.Sub(jsonSchemaFiles, jsonSchemaDir)
	if err != nil {
		// jsonSchemaDir is a constant valid path; fs.Sub fails only on
		// an invalid one.
		panic(fmt.Sprintf("schemas: %v", err))
	}
	return sub
}

// JSONSchemaNames returns the names of the generated JSON Schemas, sorted:
// "episode.close.params", ..., "trajectory".
func JSONSchemaNames() []string {
	entries, err := jsonSchemaFiles.ReadDir(jsonSchemaDir)
	if err != nil {
		panic(fmt.Sprintf("schemas: read embedded schemas: %v", err))
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), JSONSchemaSuffix); ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// ErrUnknownSchema is the error of JSONSchema for a name it does not know.
var ErrUnknownSchema = errors.New("unknown schema")

// JSONSchema returns the JSON Schema named name (as JSONSchemaNames lists
// them; a trailing ".schema.json" is accepted too). An unknown name is an
// error wrapping ErrUnknownSchema that lists the known ones.
func JSONSchema(name string) ([]byte, error) {
	name = strings.TrimSuffix(name, JSONSchemaSuffix)
	if name != "" && !strings.ContainsAny(name, `/\`) {
		if b, err := jsonSchemaFiles.ReadFile(path.Join(jsonSchemaDir, name+JSONSchemaSuffix)); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("%w %q (schemas: %s)", ErrUnknownSchema, name, strings.Join(JSONSchemaNames(), ", "))
}
