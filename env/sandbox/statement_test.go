package sandbox

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
)

func TestStatementMessages(t *testing.T) {
	r := Rules{Allowed: []string{"SELECT", "WITH"}, MaxBytes: 100}
	tests := []struct {
		text      string
		kind      error
		want, not string
	}{
		{"SELEC name FROM t", env.ErrSQL, `syntax error at or near "SELEC"`, "denied"},
		{"selct 1", env.ErrSQL, `syntax error at or near "SELCT"`, "denied"},
		{"'SELECT'", env.ErrSQL, `syntax error at or near "'SELECT'"`, "denied"},
		{"DELETE FROM t", env.ErrDenied, "statement denied: DELETE statements are not allowed", "syntax"},
		{"/* x */ COPY t TO PROGRAM 'id'", env.ErrDenied, "statement denied: COPY", "syntax"},
		{"VALUES (1)", env.ErrDenied, "statement denied: VALUES", "syntax"},
		{"SELECT 1; SELECT 2", env.ErrMultiStatement, "only one statement per call is allowed; got 2", "denied"},
		{" -- \n ;", env.ErrSQL, "empty statement", "denied"},
		{strings.Repeat("x", 101), env.ErrTooLarge, "statement too long: 101 bytes", "denied"},
	}
	for _, tc := range tests {
		_, err := r.Statement(tc.text)
		if !errors.Is(err, tc.kind) {
			t.Errorf("Statement(%q) = %v, want kind %v", tc.text, err, tc.kind)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, tc.not) {
			t.Errorf("Statement(%q) = %q, want it to say %q and not %q", tc.text, msg, tc.want, tc.not)
		}
	}
}

func TestStatementCountsBothWays(t *testing.T) {
	engine := func(string) int { return 2 }
	r := Rules{Allowed: []string{"SELECT"}, MaxBytes: 100, Count: engine}
	if _, err := r.Statement("SELECT 1"); !errors.Is(err, env.ErrMultiStatement) {
		t.Errorf("engine counting 2: err = %v, want multiple statements", err)
	}
	r.Count = func(string) int { return 1 }
	got, err := r.Statement("\ufeffSELECT 1;")
	if err != nil || got != "SELECT 1" {
		t.Errorf("Statement = %q, %v; want %q", got, err, "SELECT 1")
	}
}
