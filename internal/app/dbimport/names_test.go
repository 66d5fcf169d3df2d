package dbimport

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// TestCopyDBRefusesCollidingNames: CopyDB on its own refuses two tables,
// or two columns of a table, that PostgreSQL would make one, names both,
// and creates no schema.
func TestCopyDBRefusesCollidingNames(t *testing.T) {
	ctx := context.Background()
	conn := connect(t, pgtest.Database(t))
	long := strings.Repeat("n", 63)
	for script, names := range map[string][2]string{
		`CREATE TABLE "` + long + `x" (a int); CREATE TABLE "` + long + `y" (a int)`: {long + "x", long + "y"},
		`CREATE TABLE "Ωmega" (a int); CREATE TABLE "ωmega" (a int)`:                 {"Ωmega", "ωmega"},
		`CREATE TABLE t ("` + long + `1" int, "` + long + `2" int)`:                  {long + "1", long + "2"},
	} {
		_, err := CopyDB(ctx, openBuilt(t, script), conn, "clash", CopyConfig{})
		for _, n := range names {
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", n)) {
				t.Errorf("CopyDB: %v; want an error naming %q", err, n)
			}
		}
		var exists bool
		if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_namespace WHERE nspname = 'clash')").Scan(&exists); err != nil || exists {
			t.Errorf("schema clash exists after the refused copy: %v, %v", exists, err)
		}
	}
}
