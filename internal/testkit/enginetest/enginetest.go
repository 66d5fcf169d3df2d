// Package enginetest holds what the engines' tests share: the check of
// the kind of error a hostile statement ends in.
package enginetest

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
)

// CheckKind checks that err is a *env.QueryError of one of kinds, or nil
// when kinds is empty, and that its message is not empty.
func CheckKind(t testing.TB, err error, kinds []error) {
	t.Helper()
	if len(kinds) == 0 {
		if err != nil {
			t.Fatalf("err = %v, want success", err)
		}
		return
	}
	var qe *env.QueryError
	if !errors.As(err, &qe) {
		t.Fatalf("err = %v (%T), want a *env.QueryError of %v", err, err, kinds)
	}
	if !slices.ContainsFunc(kinds, func(k error) bool { return errors.Is(err, k) }) {
		t.Fatalf("err = %q of kind %v, want one of %v", qe.Message, qe.Kind, kinds)
	}
	if strings.TrimSpace(qe.Message) == "" {
		t.Fatal("empty error message")
	}
}
