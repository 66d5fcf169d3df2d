package dbimport

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/sqlgym/sqlgym/env/mysql"
)

// ImportDatabase is the database in which a MySQL import lists the
// databases it made (table imported): MySQL has no comment on a database
// to mark it with, as the PostgreSQL import marks its schemas. An import
// replaces an existing database only if it is listed there, so a db_id
// that happens to name some other database never drops it.
const ImportDatabase = "sqlgym_import"

// importList is the table of ImportDatabase listing the imported
// databases.
var importList = mysql.QuoteIdent(ImportDatabase) + ".`imported`"

// ensureImportList creates ImportDatabase and its list when missing.
func ensureImportList(ctx context.Context, admin *sql.DB) error {
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS " + mysql.QuoteIdent(ImportDatabase),
		"CREATE TABLE IF NOT EXISTS " + importList + " (db VARCHAR(64) COLLATE utf8mb4_bin PRIMARY KEY)",
	} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("create the list of imported databases: %w", err)
		}
	}
	return nil
}

// checkMySQLTargets says whether each database of ids may be (re)created
// by an import: it must not exist, or be listed in ImportDatabase.
func checkMySQLTargets(ctx context.Context, admin *sql.DB, ids []string) error {
	for _, id := range ids {
		var exists, listed int
		err := admin.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM information_schema.schemata WHERE schema_name = ?), "+
			"(SELECT count(*) FROM "+importList+" WHERE db = ?)", id, id).Scan(&exists, &listed)
		if err != nil {
			return fmt.Errorf("look up database %q: %w", id, err)
		}
		if exists > 0 && listed == 0 {
			return fmt.Errorf("database %q already exists and was not made by sqlgym import, so it is left alone: drop or rename it, or import into another server (--engine)", id)
		}
	}
	return nil
}

// binaryCollation is the collation of the imported text: the server's
// binary utf8mb4 collation without padding (utf8mb4_0900_bin on MySQL 8,
// utf8mb4_nopad_bin on MariaDB), which compares and sorts by code point
// as SQLite compares bytes, 'a' and 'a ' apart; utf8mb4_bin, which pads,
// where the server has neither.
func binaryCollation(ctx context.Context, admin *sql.DB) (string, error) {
	var names []string
	rows, err := admin.QueryContext(ctx, "SELECT collation_name FROM information_schema.collations "+
		"WHERE collation_name IN ('utf8mb4_0900_bin', 'utf8mb4_nopad_bin')")
	if err != nil {
		return "", fmt.Errorf("read the server's collations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return "", fmt.Errorf("read the server's collations: %w", err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("read the server's collations: %w", err)
	}
	if len(names) == 0 {
		return "utf8mb4_bin", nil
	}
	return names[0], nil
}

// replaceDatabase drops the database id of an earlier import, if there
// is one, lists it in ImportDatabase and creates it anew with the
// collation collation (binaryCollation).
func replaceDatabase(ctx context.Context, admin *sql.DB, id, collation string) error {
	q := mysql.QuoteIdent(id)
	for _, stmt := range []struct {
		sql  string
		args []any
	}{
		{"DROP DATABASE IF EXISTS " + q, nil},
		{"INSERT IGNORE INTO " + importList + " (db) VALUES (?)", []any{id}},
		{"CREATE DATABASE " + q + " CHARACTER SET utf8mb4 COLLATE " + collation, nil},
	} {
		if _, err := admin.ExecContext(ctx, stmt.sql, stmt.args...); err != nil {
			return fmt.Errorf("replace database %s: %w", id, err)
		}
	}
	return nil
}
