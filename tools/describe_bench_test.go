package tools

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/internal/testkit/bigdb"
	"github.com/sqlgym/sqlgym/internal/testkit/cputime"
)

// describeKinds are the columns BenchmarkDescribeColumn profiles, one of
// each kind: a few values, every value distinct, numbers, dates, mostly
// NULL, long text, and distinct names in a table a fifth the size.
var describeKinds = []struct{ name, table, column string }{
	{"status", "orders", "status"},
	{"distinct", "orders", "ref"},
	{"real", "orders", "amount"},
	{"date", "orders", "order_date"},
	{"mostly-null", "orders", "note"},
	{"long-text", "reviews", "body"},
	{"names", "customers", "name"},
}

// BenchmarkDescribeColumn times describe_column on each kind of column
// of a generated database (internal/testkit/bigdb) of 100,000, 1,000,000 and
// 10,000,000 orders (docs/benchmarks.md, "Growth: table size"). The
// database is built before the timer starts, once per size; select one
// size with -bench 'DescribeColumn/orders=1000000'. The query timeout is
// two minutes, so a call that runs past the default 5 s is timed rather
// than cut; a reply with an error fails the benchmark. CPU per call is
// the process's user and system time over the calls (getrusage): what a
// call takes from the server's other work, which wall time on a loaded
// machine overstates. With -v, each column's reply is logged.
func BenchmarkDescribeColumn(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000, 10_000_000} {
		b.Run(fmt.Sprintf("orders=%d", n), func(b *testing.B) {
			db, err := sqlite.New(sqlite.Config{}).Open(context.Background(), bigdb.Build(b, n))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			r := NewRunner(Config{QueryTimeout: 2 * time.Minute})
			for _, k := range describeKinds {
				b.Run(k.name, func(b *testing.B) {
					a := &DescribeColumnArgs{Table: k.table, Column: k.column}
					start := cputime.Process()
					var res Result
					for b.Loop() {
						var err error
						if res, err = r.DescribeColumn(context.Background(), db, env.SQLite, a); err != nil || res.Error != nil {
							b.Fatalf("%v %+v", err, res.Error)
						}
					}
					b.Logf("the reply:\n%s", res.Content)
					b.ReportMetric(cputime.PerOp(start, b.N), "cpu-ms/op")
				})
			}
		})
	}
}
