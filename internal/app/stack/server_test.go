package stack_test

import (
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/mysql"
	"github.com/sqlgym/sqlgym/env/postgres"
	"github.com/sqlgym/sqlgym/internal/app/stack"
)

// TestServerDialect: the scheme names the server; any other names none.
func TestServerDialect(t *testing.T) {
	for url, want := range map[string]env.Dialect{
		"postgres://u@h:5432/db": env.Postgres, "postgresql://h/db": env.Postgres, "mysql://root@h:3306/": env.MySQL,
		"sqlite:///x": "", "h:5432": "", "": "",
	} {
		if got := stack.ServerDialect(url); got != want {
			t.Errorf("ServerDialect(%q) = %q, want %q", url, got, want)
		}
	}
}

// TestOnServer: a dataset placed on a server takes its dialect, and each
// database becomes the server's schema or database of its db_id.
func TestOnServer(t *testing.T) {
	for _, url := range []string{"postgres://u@h:5432/db", "mysql://root@h:3306/"} {
		ds := &env.Dataset{Name: "shop", Dialect: env.SQLite, DBs: map[string]string{"a": "/x/a.sqlite", "b": "/x/b.sqlite"}}
		stack.OnServer(ds, url)
		want := map[string]string{"a": postgres.Source(url, "a"), "b": postgres.Source(url, "b")}
		if ds.Dialect == env.MySQL {
			want = map[string]string{"a": mysql.Source(url, "a"), "b": mysql.Source(url, "b")}
		}
		if ds.Dialect != stack.ServerDialect(url) || ds.DBs["a"] != want["a"] || ds.DBs["b"] != want["b"] || ds.DBs["a"] == "/x/a.sqlite" {
			t.Errorf("%s: dialect %s, databases %v; want %s, %v", url, ds.Dialect, ds.DBs, stack.ServerDialect(url), want)
		}
	}
}
