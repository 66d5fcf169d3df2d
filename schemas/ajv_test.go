package schemas_test

import (
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/ajv"
)

// TestJSONSchemaFilesAjvStrict: Ajv, draft 2020-12, compiles every
// published schema with every strict option on (strictRequired,
// strictTypes, strictTuples, ...), as a client validating with Ajv
// compiles them. The documents are checked in episodes' and the
// trajectory log's tests.
func TestJSONSchemaFilesAjvStrict(t *testing.T) {
	ajv.Check(t, nil)
}
