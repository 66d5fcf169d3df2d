// Package ajv runs Ajv, the JSON Schema validator of the JavaScript world
// (draft 2020-12, ajv/dist/2020, with ajv-formats), under node on the
// schemas sqlgym publishes and on real documents, in strict mode with
// every strict option on (strictSchema, strictNumbers, strictTypes,
// strictTuples, strictRequired): what a client validating with Ajv
// meets. The package (testdata: package.json, package-lock.json,
// validate.mjs) is installed by nodepkg; without node or npm a test is
// skipped, and fails under CI=true.
package ajv

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/nodepkg"
	"github.com/sqlgym/sqlgym/schemas"
)

//go:embed testdata/package.json testdata/package-lock.json testdata/validate.mjs
var files embed.FS

// Doc is a document to validate against the schema named Schema; Label
// says where it came from, for the failure's message.
type Doc struct {
	Schema string
	Label  string
	JSON   json.RawMessage
}

// Result is Ajv's verdict: each schema's compile error ("" when it
// compiled), and each document's errors (none when it is valid), in
// the order given.
type Result struct {
	Compiled map[string]string
	Docs     [][]string
}

// Run compiles the schemas (JSON, by name) with every strict option on
// and validates docs against them.
func Run(tb testing.TB, schemaFiles map[string][]byte, docs []Doc) Result {
	tb.Helper()
	node, script := install(tb)
	in := struct {
		Schemas map[string]json.RawMessage `json:"schemas"`
		Docs    []map[string]any           `json:"docs"`
	}{Schemas: map[string]json.RawMessage{}, Docs: []map[string]any{}}
	for name, b := range schemaFiles {
		in.Schemas[name] = b
	}
	for _, d := range docs {
		in.Docs = append(in.Docs, map[string]any{"schema": d.Schema, "doc": d.JSON})
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		tb.Fatalf("ajv input: %v", err)
	}
	cmd := exec.Command(node, script)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("node %s: %v\n%s", script, err, stderr.String())
	}
	var raw struct {
		Compiled map[string]*string `json:"compiled"`
		Docs     [][]string         `json:"docs"`
	}
	if err := json.Unmarshal(out, &raw); err != nil || len(raw.Docs) != len(docs) {
		tb.Fatalf("ajv's output (%d verdicts for %d documents): %v\n%.2000s", len(raw.Docs), len(docs), err, out)
	}
	r := Result{Compiled: map[string]string{}, Docs: raw.Docs}
	for name, msg := range raw.Compiled {
		if msg != nil {
			r.Compiled[name] = *msg
		} else {
			r.Compiled[name] = ""
		}
	}
	return r
}

// Published is every schema of package schemas, by name.
func Published(tb testing.TB) map[string][]byte {
	tb.Helper()
	out := map[string][]byte{}
	for _, name := range schemas.JSONSchemaNames() {
		b, err := schemas.JSONSchema(name)
		if err != nil {
			tb.Fatal(err)
		}
		out[name] = b
	}
	return out
}

// Check compiles every published schema in strict mode and validates
// docs against them; it fails tb for each schema that does not compile
// and each document that is not valid.
func Check(tb testing.TB, docs []Doc) {
	tb.Helper()
	r := Run(tb, Published(tb), docs)
	for name, msg := range r.Compiled {
		if msg != "" {
			tb.Errorf("Ajv (strict) does not compile %s: %s", name, msg)
		}
	}
	for i, errs := range r.Docs {
		if len(errs) > 0 {
			tb.Errorf("Ajv (strict): %s rejects %s: %v\ndocument: %.600s", docs[i].Schema, docs[i].Label, errs, docs[i].JSON)
		}
	}
}

// install installs the package once and returns node and validate.mjs.
func install(tb testing.TB) (node, script string) {
	tb.Helper()
	pkg := map[string][]byte{}
	for _, name := range []string{"package.json", "package-lock.json", "validate.mjs"} {
		b, err := files.ReadFile("testdata/" + name)
		if err != nil {
			tb.Fatal(fmt.Errorf("ajv kit: %w", err))
		}
		pkg[name] = b
	}
	node, dir := nodepkg.Install(tb, "ajv", pkg, filepath.Join("node_modules", "ajv", "dist", "2020.js"), "Ajv")
	return node, filepath.Join(dir, "validate.mjs")
}
