package valueindex

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/internal/testkit/bigdb"
	"github.com/sqlgym/sqlgym/internal/testkit/cputime"
)

// BenchmarkGrowth builds the value index of a generated shop database
// (internal/testkit/bigdb) of 100,000, 1,000,000 and 10,000,000 orders at the
// default bounds, timing the build (one op: use -benchtime 1x), and then
// runs 300 searches on it, one at a time: 100 customer names (every
// tenth with a letter changed), 100 order numbers, and 100 queries of
// three random words. It reports the build's wall and CPU time, the
// index file's size, the values indexed and the columns cut, whether
// every name and order number searched was found first, and the
// searches' latency percentiles and mean CPU (docs/benchmarks.md,
// "Growth: table size"). Select a size with -bench
// 'Growth/orders=1000000$'.
func BenchmarkGrowth(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000, 10_000_000} {
		b.Run(fmt.Sprintf("orders=%d", n), func(b *testing.B) {
			benchGrowth(b, n, Config{})
		})
	}
}

func benchGrowth(b *testing.B, orders int, cfg Config) {
	path := bigdb.Build(b, orders)
	ds := &env.Dataset{Name: "shop", Dialect: env.SQLite, DBs: map[string]string{"shop": path}}
	cat := env.NewCatalog(sqlite.New(sqlite.Config{}))
	defer cat.Close()
	db, err := cat.DB(context.Background(), ds, "shop")
	if err != nil {
		b.Fatal(err)
	}
	var s *Store
	cpu := cputime.Process()
	for b.Loop() {
		if s != nil {
			s.Close()
		}
		cfg.Dir = b.TempDir()
		if s, err = New(cfg); err != nil {
			b.Fatal(err)
		}
		if err := s.Prepare(context.Background(), ds, "shop", db); err != nil {
			b.Fatal(err)
		}
	}
	defer s.Close()
	b.ReportMetric(cputime.PerOp(cpu, b.N)/1000, "build-cpu-s")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "build-s")
	_, file, err := identify(ds, "shop", s.cfg)
	if err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(file)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(fi.Size())/(1<<20), "index-MiB")
	cpu = cputime.Process()
	lat, found, m := growthSearches(b, s, ds, db, bigdb.For(orders))
	b.ReportMetric(cputime.PerOp(cpu, len(lat)), "search-cpu-ms")
	b.ReportMetric(float64(m.values), "values")
	b.ReportMetric(float64(len(m.partial)), "cut-columns")
	b.ReportMetric(found[0], "found-%")
	b.ReportMetric(found[1], "typo-found-%")
	slices.Sort(lat)
	for _, q := range []struct {
		name string
		p    float64
	}{{"p50-ms", 0.50}, {"p99-ms", 0.99}, {"max-ms", 1}} {
		b.ReportMetric(float64(lat[min(int(q.p*float64(len(lat))), len(lat)-1)])/1e6, q.name)
	}
	for _, p := range m.partial {
		b.Logf("%s.%s: %d of %d indexed (%s)", p.Table, p.Column, p.Indexed, p.Distinct, p.Bound)
	}
}

// indexed is what a search says of the index as a whole.
type indexed struct {
	values  int64
	partial []env.PartialColumn
}

// growthSearches runs the searches of BenchmarkGrowth and returns their
// latencies, the shares of names and order numbers found first (as
// stored, and with a letter changed), and the index's values and columns
// cut.
func growthSearches(b *testing.B, s *Store, ds *env.Dataset, db env.DB, size bigdb.Sizes) ([]time.Duration, [2]float64, indexed) {
	r := rand.New(rand.NewPCG(1, 2))
	type query struct {
		q, want string
		typo    bool
	}
	var qs []query
	for i := range 100 {
		name := bigdb.Name(1 + r.IntN(size.Customers))
		if i%10 == 0 { // a letter changed
			qs = append(qs, query{name[:2] + "x" + name[3:], name, true})
		} else {
			qs = append(qs, query{name, name, false})
		}
	}
	for range 100 {
		ref := fmt.Sprintf("ORD-%09d", 1+r.IntN(size.Orders))
		qs = append(qs, query{ref, ref, false})
	}
	for range 100 {
		qs = append(qs, query{q: randomQuery(r.Uint64(), 3)})
	}
	var lat []time.Duration
	var found, wanted [2]int
	var m *env.ValueMatches
	for _, q := range qs {
		start := time.Now()
		got, err := s.SearchValues(context.Background(), ds, "shop", db, env.ValueQuery{Query: q.q, Limit: 5})
		lat = append(lat, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		if q.want != "" {
			k := 0
			if q.typo {
				k = 1
			}
			wanted[k]++
			if len(got.Matches) > 0 && got.Matches[0].Value == q.want {
				found[k]++
			}
		}
		m = got
	}
	f, _ := s.flight(ds, "shop", db)
	return lat, [2]float64{100 * float64(found[0]) / float64(wanted[0]), 100 * float64(found[1]) / float64(wanted[1])},
		indexed{values: f.ix.values, partial: m.Partial}
}
