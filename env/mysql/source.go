package mysql

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/sqlgym/sqlgym/env/sandbox"
)

// Source is where the database of one task is: the database db on the
// server that url (a mysql:// URL) names, written "URL#DATABASE".
func Source(url, db string) string { return url + "#" + db }

// source is a parsed Source.
type source struct {
	url *url.URL // without its fragment
	db  string
}

// parseSource reads "mysql://[user[:password]@]host[:port][/]#DATABASE".
// The database is everything after the last '#'.
func parseSource(s string) (source, error) {
	raw, db, err := sandbox.SplitSource(s, "mysql://URL#DATABASE", "database")
	if err != nil {
		return source{}, err
	}
	u, err := ParseURL(raw)
	if err != nil {
		return source{}, err
	}
	return source{url: u, db: db}, nil
}

// ParseURL reads a server's mysql:// URL: user, password and
// host[:port] (3306 when left out); a path or query is refused.
func ParseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("server URL: %w", errors.Unwrap(err))
	}
	switch {
	case u.Scheme != "mysql":
		return nil, fmt.Errorf("server URL: want a mysql:// URL, got scheme %q", u.Scheme)
	case u.Host == "":
		return nil, errors.New("server URL: no host")
	case strings.Trim(u.Path, "/") != "" || u.RawQuery != "":
		return nil, errors.New("server URL: want mysql://USER@HOST:PORT/ without a database or parameters (each db_id names its database)")
	}
	return u, nil
}

// driverConfig is the driver's configuration of a login to u as user
// (with the URL's password only when the URL names that user), to
// database db ("" for none). Multiple statements per query, LOAD DATA
// LOCAL of any file and cleartext passwords stay off (the driver's
// defaults).
func driverConfig(u *url.URL, user, db string) *mysql.Config {
	c := mysql.NewConfig()
	c.Net, c.Addr, c.DBName, c.User = "tcp", hostPort(u), db, user
	c.InterpolateParams = true // the engine's own queries' parameters, written into the text: no prepared statements
	if u.User != nil && u.User.Username() == user {
		c.Passwd, _ = u.User.Password()
	}
	return c
}

// hostPort is the URL's host and port, 3306 when it names none.
func hostPort(u *url.URL) string {
	if u.Port() == "" {
		return u.Host + ":3306"
	}
	return u.Host
}

// server names the server for messages and keys: host and port, never
// the user or password.
func (s source) server() string { return strings.ToLower(hostPort(s.url)) }

// redact is a source without the password its URL may hold.
func redact(source string) string {
	if src, err := parseSource(source); err == nil {
		return src.url.Redacted() + "#" + src.db
	}
	return "(unreadable source)"
}

// Redact is a database source fit for a log line or an error: a
// mysql:// source without its password, any other as it is.
func Redact(source string) string {
	if !strings.HasPrefix(source, "mysql://") {
		return source
	}
	return redact(source)
}
