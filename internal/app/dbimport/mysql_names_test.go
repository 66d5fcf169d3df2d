package dbimport

import (
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
)

// Names MySQL would make one, or refuse, are refused, both named.
func TestMySQLNamesRefused(t *testing.T) {
	long := strings.Repeat("n", 65)
	tests := []struct {
		tables []env.Table
		want   []string
	}{
		{[]env.Table{{Name: "Singer"}, {Name: "singer"}}, []string{`"Singer"`, `"singer"`, "would both be table"}},
		{[]env.Table{{Name: "t", Columns: []env.Column{{Name: "Name"}, {Name: "NAME"}}}}, []string{`"Name"`, `"NAME"`, "would both be column"}},
		{[]env.Table{{Name: long}}, []string{long, "longer than MySQL's 64 characters"}},
		{[]env.Table{{Name: "t", Columns: []env.Column{{Name: "a "}}}}, []string{`"a "`, "ends in a space"}},
	}
	for _, tt := range tests {
		err := checkMySQLTables("db", tt.tables)
		for _, w := range tt.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("checkMySQLTables(%v) = %v; want it to say %q", tt.tables, err, w)
			}
		}
	}
	if err := checkMySQLTables("db", []env.Table{{Name: "a", Columns: []env.Column{{Name: "x"}}}, {Name: "b", Columns: []env.Column{{Name: "x"}}}}); err != nil {
		t.Errorf("distinct names refused: %v", err)
	}
	for _, tt := range []struct {
		ids  []string
		fold bool
		want string
	}{
		{[]string{"Shop", "shop"}, true, `db_ids "Shop" and "shop" would both be database "shop"`},
		{[]string{"mysql"}, false, `db_id "mysql" names a database of MySQL's own`},
		{[]string{ImportDatabase}, false, "names a database of MySQL's own or the import's"},
	} {
		if err := checkMySQLDBs(tt.ids, tt.fold); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("checkMySQLDBs(%q, %v) = %v; want %q", tt.ids, tt.fold, err, tt.want)
		}
	}
	if err := checkMySQLDBs([]string{"Shop", "shop"}, false); err != nil {
		t.Errorf("db_ids differing in case refused where the server keeps case: %v", err)
	}
}
