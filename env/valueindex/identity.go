package valueindex

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/env"
)

// formatVersion changes whenever the index's tables, the way text is
// folded or the values a cut column keeps change: an index of another
// version is rebuilt.
const formatVersion = "4"

// identity is what an index was built from: the database's source (and,
// for a file, its size and modification time), the format and the
// bounds. An index whose stored identity differs is rebuilt.
type identity map[string]string

// identify returns the identity of database dbID of ds under cfg's
// bounds, and the index file that holds it under cfg.Dir.
func identify(ds *env.Dataset, dbID string, cfg Config) (identity, string, error) {
	source, ok := ds.DBs[dbID]
	if !ok {
		return nil, "", fmt.Errorf("dataset %s: unknown db_id %q", ds.Name, dbID)
	}
	id := identity{
		"format": formatVersion, "dialect": string(ds.Dialect), "source": storedSource(ds.Dialect, source),
		"max_value_chars": strconv.Itoa(cfg.MaxValueChars), "max_bytes": strconv.FormatInt(cfg.MaxBytes, 10),
		"max_distinct": strconv.Itoa(cfg.MaxDistinct), "max_values": strconv.Itoa(cfg.MaxValues),
	}
	if ds.Dialect == env.SQLite {
		fi, err := os.Stat(source)
		if err != nil {
			return nil, "", fmt.Errorf("value index of %s/%s: %w", ds.Name, dbID, err)
		}
		id["size"] = strconv.FormatInt(fi.Size(), 10)
		id["mtime_ns"] = strconv.FormatInt(fi.ModTime().UnixNano(), 10)
	}
	// Indexes of other bounds live in other files, so a replay run with
	// other bounds than the server's does not rebuild the server's.
	sum := sha256.Sum256([]byte(strings.Join([]string{string(ds.Dialect), source,
		id["max_value_chars"], id["max_bytes"], id["max_distinct"], id["max_values"]}, "\x00")))
	name := dbID + "-" + hex.EncodeToString(sum[:8]) + ".fts4.sqlite"
	return id, filepath.Join(cfg.Dir, safeName(name)), nil
}

// storedSource is what an index file records of its database's source:
// a SQLite file's path as it is, a server's connection string only as a
// hash, since it may hold a password and index files are plain files.
func storedSource(d env.Dialect, source string) string {
	if d == env.SQLite {
		return source
	}
	sum := sha256.Sum256([]byte(source))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// safeName keeps a file name to letters, digits, '-', '_' and '.'.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	return string(b)
}

// matches reports whether an index's stored meta was built from id:
// every key of id holds the same value there.
func (id identity) matches(stored map[string]string) bool {
	for k, v := range id {
		if w, ok := stored[k]; !ok || w != v {
			return false
		}
	}
	return true
}
