package postgres

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/sqlgym/sqlgym/env/sandbox"
)

// Source is where the database of one task is: the schema schema on the
// server that url (a postgres:// URL) names, written "URL#SCHEMA".
func Source(url, schema string) string { return url + "#" + schema }

// source is a parsed Source.
type source struct {
	url    *url.URL // without its fragment
	schema string
}

// parseSource reads "postgres://...#SCHEMA". The schema is everything
// after the last '#' (a URL keeps a '#' of its own escaped as %23).
func parseSource(s string) (source, error) {
	raw, schema, err := sandbox.SplitSource(s, "postgres://URL#SCHEMA", "schema")
	if err != nil {
		return source{}, err
	}
	u, err := url.Parse(raw)
	if err != nil {
		return source{}, fmt.Errorf("server URL: %w", errors.Unwrap(err))
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return source{}, fmt.Errorf("server URL: want a postgres:// URL, got scheme %q", u.Scheme)
	}
	return source{url: u, schema: schema}, nil
}

// asRole is the server's URL with role as its user: the password is kept
// only when the URL's user is role already, so that a superuser's
// password is never sent for the reader (whose password, if it has one,
// may come from a password file).
func (s source) asRole(role string) string {
	u := *s.url
	if u.User == nil || u.User.Username() != role {
		u.User = url.User(role)
	}
	return u.String()
}

// server names the server for messages and pool keys: host, port and
// database, never the user or password.
func (s source) server() string {
	return s.url.Host + s.url.Path
}

// key names the server for the engine's pools: role@host:port/database,
// with the defaults a URL may leave out (port 5432; the database named
// after the user) filled in and the host in lower case, so that every
// spelling of one server's URL (other parameters, another order, an
// explicit default port) shares one pool and its bound.
func (s source) key(role string) string {
	host, port := strings.ToLower(s.url.Hostname()), s.url.Port()
	if q := s.url.Query(); host == "" {
		host = q.Get("host")
	}
	if port == "" {
		port = "5432"
	}
	db := strings.TrimPrefix(s.url.Path, "/")
	if db == "" {
		db = s.url.Query().Get("dbname")
	}
	if db == "" {
		db = role
	}
	return role + "@" + host + ":" + port + "/" + db
}
