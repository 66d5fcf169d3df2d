package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/tools"
)

// TestStackFlagsSchemaCache: --schema-cache-bytes reaches the runner the
// stack builds; 0 keeps nothing, and a negative value is a usage error.
func TestStackFlagsSchemaCache(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want int
	}{
		{nil, tools.DefaultSchemaCacheBytes},
		{[]string{"--schema-cache-bytes", "4096"}, 4096},
		{[]string{"--schema-cache-bytes", "0"}, -1},
	} {
		s := parseStack(t, tt.args...)
		if err := s.check(); err != nil {
			t.Fatalf("%v: %v", tt.args, err)
		}
		catalog, runner, _ := s.engines()
		catalog.Close()
		if got := runner.Config().SchemaCacheBytes; got != tt.want {
			t.Errorf("%v: runner keeps %d bytes per database, want %d", tt.args, got, tt.want)
		}
	}
	err := parseStack(t, "--schema-cache-bytes", "-1").check()
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--schema-cache-bytes") {
		t.Errorf("--schema-cache-bytes -1: %v, want a usage error naming the flag", err)
	}
}
