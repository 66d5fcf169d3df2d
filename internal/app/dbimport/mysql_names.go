package dbimport

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sqlgym/sqlgym/env"
)

// MySQL refuses a name longer than 64 characters (it does not cut it),
// compares column names without regard to case on every platform, and
// table names by case where lower_case_table_names is 0 (Linux). The
// import writes table and column names in lower case (myName) and
// rewrites the golds to meet them, so two tables or two columns whose
// names differ only in case would be one: the import refuses them, naming
// both, before it writes anything. A db_id is the database's name as it
// is; where the server folds database names (lower_case_table_names 1 or
// 2), two db_ids that differ only in case are refused too.

// maxMySQLName is the longest name MySQL takes, in characters.
const maxMySQLName = 64

// mysqlReserved are the databases of the server itself, and the one the
// import keeps its list of imported databases in (ImportDatabase).
var mysqlReserved = map[string]bool{"mysql": true, "information_schema": true,
	"performance_schema": true, "sys": true, ImportDatabase: true}

// myName is the name the import gives a SQLite table or column in MySQL.
func myName(name string) string { return strings.ToLower(name) }

// checkMySQLName refuses a name MySQL would not take as it is.
func checkMySQLName(what, name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%s has an empty name", what)
	case utf8.RuneCountInString(name) > maxMySQLName:
		return fmt.Errorf("%s %q is longer than MySQL's %d characters: rename it in the dataset", what, name, maxMySQLName)
	case strings.HasSuffix(name, " "):
		return fmt.Errorf("%s %q ends in a space, which MySQL does not take in a name: rename it in the dataset", what, name)
	}
	return nil
}

// checkMySQLDBs refuses db_ids MySQL would not take, that name a
// database of the server's own, or that two would be one database
// (foldCase: the server folds database names to lower case).
func checkMySQLDBs(ids []string, foldCase bool) error {
	seen := map[string]string{}
	for _, id := range ids {
		if err := checkMySQLName("db_id", id); err != nil {
			return err
		}
		if mysqlReserved[strings.ToLower(id)] {
			return fmt.Errorf("db_id %q names a database of MySQL's own or the import's (%s): rename the database in the dataset", id, ImportDatabase)
		}
		key := id
		if foldCase {
			key = strings.ToLower(id)
		}
		if other, ok := seen[key]; ok {
			return fmt.Errorf("db_ids %q and %q would both be database %q (the server's lower_case_table_names folds database names): rename one of them in the dataset", other, id, key)
		}
		seen[key] = id
	}
	return nil
}

// checkMySQLTables refuses, in the database dbID, a table or column name
// MySQL would not take, two tables that would be one table, and two
// columns of a table that would be one column.
func checkMySQLTables(dbID string, tables []env.Table) error {
	const why = "the import writes names in lower case, and MySQL compares column names without regard to case"
	seen := map[string]string{}
	for _, t := range tables {
		if err := checkMySQLName("database "+dbID+": table", t.Name); err != nil {
			return err
		}
		if other, ok := seen[myName(t.Name)]; ok {
			return fmt.Errorf("database %s: tables %q and %q would both be table %q (%s): rename one of them", dbID, other, t.Name, myName(t.Name), why)
		}
		seen[myName(t.Name)] = t.Name
		cols := map[string]string{}
		for _, c := range t.Columns {
			if err := checkMySQLName(fmt.Sprintf("database %s, table %q: column", dbID, t.Name), c.Name); err != nil {
				return err
			}
			if other, ok := cols[myName(c.Name)]; ok {
				return fmt.Errorf("database %s, table %q: columns %q and %q would both be column %q (%s): rename one of them", dbID, t.Name, other, c.Name, myName(c.Name), why)
			}
			cols[myName(c.Name)] = c.Name
		}
	}
	return nil
}
