package valueindex

import (
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
)

// TestIdentityKeepsNoPassword: an index of a database on a server
// records its connection string only as a hash, so no password reaches
// the index file; two sources still tell apart.
func TestIdentityKeepsNoPassword(t *testing.T) {
	src := "postgres://reader:S3cretPW@127.0.0.1:5432/db#shop"
	ds := &env.Dataset{Name: "pg", Dialect: env.Postgres, DBs: map[string]string{"shop": src, "other": src + "x"}}
	id, file, err := identify(ds, "shop", Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range id {
		if strings.Contains(v, "S3cretPW") {
			t.Errorf("identity %s = %q holds the password", k, v)
		}
	}
	if strings.Contains(file, "S3cretPW") {
		t.Errorf("index file %s holds the password", file)
	}
	other, _, err := identify(ds, "other", Config{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if other.matches(id) {
		t.Error("two sources gave the same identity")
	}
}
