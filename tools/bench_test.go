package tools

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
	"github.com/sqlgym/sqlgym/schemas"
)

func BenchmarkRenderRows(b *testing.B) {
	rs := &env.ResultSet{Columns: []string{"id", "name", "score", "photo"}}
	for i := 0; i < 60; i++ {
		rs.Rows = append(rs.Rows, []any{int64(i), fmt.Sprintf("name number %d", i), float64(i) / 7, []byte{1, 2, 3}})
	}
	r := NewRunner(Config{})
	b.ReportAllocs()
	for b.Loop() {
		r.RenderRows(rs)
	}
}

func BenchmarkParseHermes(b *testing.B) {
	text := "<think>" + fmt.Sprintf("%0500d", 0) + "</think>\n<tool_call>\n" +
		`{"name": "execute_sql", "arguments": {"sql": "SELECT avg(age), min(age), max(age) FROM singer WHERE country = 'France'"}}` +
		"\n</tool_call>"
	b.ReportAllocs()
	for b.Loop() {
		c, _, _ := ParseText(schemas.FormatHermes, text)
		Decode(c)
	}
}

// BenchmarkInspectSpider runs inspect_schema on Spider-dev's
// student_transcripts_tracking (11 tables, the most of any dev database):
// all tables, and one table with its keys and sample rows. One runner
// serves every op, as one server's runner serves every episode, so after
// the first op the text comes from its cache; the -uncached runs keep
// nothing (SchemaCacheBytes -1) and read the catalog on every op.
func BenchmarkInspectSpider(b *testing.B) {
	path := filepath.Join(spiderdev.Dir(b), "database", "student_transcripts_tracking", "student_transcripts_tracking.sqlite")
	db, err := sqlite.New(sqlite.Config{}).Open(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for _, bm := range []struct {
		name, table string
		cache       int
	}{
		{"all", "", 0}, {"table", "Student_Enrolment", 0},
		{"all-uncached", "", -1}, {"table-uncached", "Student_Enrolment", -1},
	} {
		b.Run(bm.name, func(b *testing.B) {
			benchInspect(b, NewRunner(Config{SchemaCacheBytes: bm.cache}), db, bm.table)
		})
	}
}

func benchInspect(b *testing.B, r *Runner, db env.DB, table string) {
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := r.Inspect(ctx, db, env.SQLite, &InspectSchemaArgs{Table: table})
		if err != nil || res.Error != nil {
			b.Fatalf("inspect %q: %v %+v", table, err, res.Error)
		}
	}
}
