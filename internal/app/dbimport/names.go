package dbimport

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/env"
)

// PostgreSQL keeps the first max_identifier_length bytes of a name
// (NAMEDATALEN-1, 63 on a standard build), cut back to a character
// boundary, and says so only in a NOTICE; the import also writes table
// and column names in lower case (pgName). Two names of a dataset that
// differ only in what is cut or folded would become one schema, table or
// column, so an import refuses them, naming both, before it writes
// anything.

// pgName is the name the import gives a SQLite table or column in
// PostgreSQL, before the server keeps its first bytes: the name in lower
// case, as SQLite compares names without regard to case and PostgreSQL
// folds a bare name to lower case, so that golds naming it in any case
// find it.
func pgName(name string) string { return strings.ToLower(name) }

// storedQuery is how the server stores each of $1 as a name: the name
// type's input cuts it exactly as the parser cuts an identifier.
const storedQuery = `SELECT array(SELECT n::pg_catalog.name::text FROM unnest($1::text[]) WITH ORDINALITY AS u(n, i) ORDER BY i),
  current_setting('max_identifier_length')::int`

// storedNames is each of names as the server stores it, and the bytes it
// keeps of a name.
func storedNames(ctx context.Context, q rowQuerier, names []string) ([]string, int, error) {
	var stored []string
	var max int
	if err := q.QueryRow(ctx, storedQuery, names).Scan(&stored, &max); err != nil {
		return nil, 0, fmt.Errorf("read how PostgreSQL stores the names: %w", err)
	}
	if len(stored) != len(names) {
		return nil, 0, fmt.Errorf("read how PostgreSQL stores the names: %d of %d", len(stored), len(names))
	}
	return stored, max, nil
}

// clash returns the first two of names whose stored forms (stored, in
// the same order) are equal, and that form.
func clash(names, stored []string) (a, b, as string, ok bool) {
	first := map[string]int{}
	for i, s := range stored {
		if j, seen := first[s]; seen {
			return names[j], names[i], s, true
		}
		first[s] = i
	}
	return "", "", "", false
}

// checkSchemas refuses two db_ids that would be one schema: a db_id is
// the schema's name as it is (quoted, not folded), so only the cut
// matters.
func checkSchemas(ctx context.Context, conn *pgx.Conn, ids []string) error {
	stored, max, err := storedNames(ctx, conn, ids)
	if err != nil {
		return err
	}
	if a, b, as, ok := clash(ids, stored); ok {
		return fmt.Errorf("db_ids %q and %q would both be schema %q (PostgreSQL keeps the first %d bytes of a name): rename one of them in the dataset", a, b, as, max)
	}
	return nil
}

// checkTables refuses, in the database dbID, two tables that would be one
// table in PostgreSQL, or two columns of a table that would be one
// column. It asks the server once, for every name of the database.
func checkTables(ctx context.Context, conn *pgx.Conn, dbID string, tables []env.Table) error {
	var names []string
	for _, t := range tables {
		names = append(names, pgName(t.Name))
		for _, c := range t.Columns {
			names = append(names, pgName(c.Name))
		}
	}
	if len(names) == 0 {
		return nil
	}
	stored, max, err := storedNames(ctx, conn, names)
	if err != nil {
		return fmt.Errorf("database %s: %w", dbID, err)
	}
	why := fmt.Sprintf("the import writes names in lower case, and PostgreSQL keeps the first %d bytes of a name", max)
	var tableNames, tableStored []string
	for _, t := range tables {
		tableNames, tableStored = append(tableNames, t.Name), append(tableStored, stored[0])
		colNames := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			colNames[i] = c.Name
		}
		if a, b, as, ok := clash(colNames, stored[1:1+len(t.Columns)]); ok {
			return fmt.Errorf("database %s, table %q: columns %q and %q would both be column %q (%s): rename one of them", dbID, t.Name, a, b, as, why)
		}
		stored = stored[1+len(t.Columns):]
	}
	if a, b, as, ok := clash(tableNames, tableStored); ok {
		return fmt.Errorf("database %s: tables %q and %q would both be table %q (%s): rename one of them", dbID, a, b, as, why)
	}
	return checkCatalogNames(ctx, conn, dbID, tableNames, tableStored)
}

// catalogQuery lists which of $1 name a relation of pg_catalog.
const catalogQuery = `SELECT coalesce(array_agg(c.relname::text), '{}') FROM pg_catalog.pg_class c
WHERE c.relnamespace = 'pg_catalog'::pg_catalog.regnamespace AND c.relname::text = ANY($1::text[])`

// checkCatalogNames refuses a table named like a relation of PostgreSQL's
// catalog: an unqualified name finds pg_catalog's relation first, so the
// table would not run as shown. (The engine keeps pg_catalog first on the
// search path, so that no served table can hide a built-in type such as
// date.)
func checkCatalogNames(ctx context.Context, conn *pgx.Conn, dbID string, names, stored []string) error {
	var hits []string
	if err := conn.QueryRow(ctx, catalogQuery, stored).Scan(&hits); err != nil {
		return fmt.Errorf("database %s: read the catalog's names: %w", dbID, err)
	}
	if len(hits) == 0 {
		return nil
	}
	for i, s := range stored {
		if s == hits[0] {
			return fmt.Errorf("database %s: table %q would be hidden by PostgreSQL's catalog relation pg_catalog.%s, "+
				"which unqualified names find first: rename it in the dataset", dbID, names[i], s)
		}
	}
	return nil
}
