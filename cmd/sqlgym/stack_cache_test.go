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
		catalog, runner, _ := s.engines(nil)
		catalog.Close()
		if got := runner.Config().SchemaCacheBytes; got != tt.want {
			t.Errorf("%v: runner keeps %d bytes per database, want %d", tt.args, got, tt.want)
		}
	}
	var s stackFlags
	fs := newFlagSet("serve", &strings.Builder{})
	s.register(fs)
	err := parseFlags(fs, []string{"--schema-cache-bytes", "-1"})
	var ue usageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "schema-cache-bytes") {
		t.Errorf("--schema-cache-bytes -1: %v, want a usage error naming the flag", err)
	}
}

// TestByteFlagsTakeUnits: a byte-count flag takes a plain number or one
// with a unit, and says what it wants when given anything else.
func TestByteFlagsTakeUnits(t *testing.T) {
	for _, tt := range []struct {
		arg  string
		want int
	}{{"65536", 65536}, {"64KiB", 64 << 10}, {"2 MiB", 2 << 20}, {"1.5MB", 1_500_000}, {"0", 0}} {
		if got := parseStack(t, "--schema-cache-bytes", tt.arg).schemaCacheBytes; got != tt.want {
			t.Errorf("--schema-cache-bytes %q = %d, want %d", tt.arg, got, tt.want)
		}
	}
	var s stackFlags
	fs := newFlagSet("serve", &strings.Builder{})
	s.register(fs)
	err := parseFlags(fs, []string{"--observation-bytes", "lots"})
	if err == nil || !strings.Contains(err.Error(), "want a number of bytes such as 65536, 64KiB or 32MiB") {
		t.Errorf("--observation-bytes lots: %v, want a usage error saying what a byte count looks like", err)
	}
	if got := fs.Lookup("observation-bytes").DefValue; got != "8.0 KiB" {
		t.Errorf("-h shows the default as %q, want 8.0 KiB", got)
	}
}
