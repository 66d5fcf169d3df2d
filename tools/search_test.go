package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/env/valueindex"
	"github.com/sqlgym/sqlgym/examples/demo"
	"github.com/sqlgym/sqlgym/schemas"
)

// demoTarget is the demo's library database with a runner whose
// search_values reads a real value index.
func demoTarget(t *testing.T, cfg valueindex.Config) (*Runner, Target) {
	t.Helper()
	ctx := context.Background()
	ds, err := demo.Load(ctx, filepath.Join(t.TempDir(), "demo"), sqlite.Build)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Dir = t.TempDir()
	store, err := valueindex.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	db := openFile(t, ds.DBs["library"])
	return NewRunner(Config{Values: store}), Target{DB: db, Dialect: env.SQLite, Dataset: ds, DBID: "library"}
}

func TestSearchValuesGolden(t *testing.T) {
	r, target := demoTarget(t, valueindex.Config{})
	ctx := context.Background()
	res, err := r.SearchValues(ctx, target, &SearchValuesArgs{Query: "Jane Austin", Limit: ptr(3)})
	if err != nil || res.Error != nil {
		t.Fatalf("%v %+v", err, res.Error)
	}
	golden(t, "search_jane_austin", res.Content+"\n")
	res, err = r.SearchValues(ctx, target, &SearchValuesArgs{Query: "harogate", Table: "members", Column: "city"})
	if err != nil || res.Error != nil {
		t.Fatalf("%v %+v", err, res.Error)
	}
	if first := strings.Split(res.Content, "\n")[1]; first != "members.city = 'Harrogate' (12 rows)" {
		t.Errorf("first match %q:\n%s", first, res.Content)
	}
}

// TestSearchValuesSaysWhatIsLeftOut checks that the observation tells
// the model of the columns indexed in part (how many values, which ones:
// the most frequent and a sample of the tie the cut fell in; what cut
// them, where to look instead) and of long values.
func TestSearchValuesSaysWhatIsLeftOut(t *testing.T) {
	r, target := demoTarget(t, valueindex.Config{MaxDistinct: 3, MaxValueChars: 12, MaxValues: 5})
	res, err := r.SearchValues(context.Background(), target, &SearchValuesArgs{Query: "Leeds"})
	if err != nil || res.Error != nil {
		t.Fatalf("%v %+v", err, res.Error)
	}
	for _, want := range []string{
		"Note: authors.name: 3 of 23 distinct values kept, a sample (by a hash of the text) of the 23 held by 1 row " +
			"(cut by --value-index-max-distinct, 3 values per column)",
		"authors.country: 2 of 11 distinct values kept: every one held by more than 1 row, and a sample (by a hash of the text) " +
			"of 1 of the 8 held by 1 row (cut by --value-index-max-values, 5 values per database)",
		"books.title: 0 of 56 distinct values kept (cut by --value-index-max-values, 5 values per database)",
		"and 5 more columns; a value not found in such a column may still be stored there: look for it with execute_sql",
		"very long values are not searched"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("observation lacks %q:\n%s", want, res.Content)
		}
	}
}

// TestWhichKept checks how a column cut is said to have been cut: a
// sample of the values that tie where the cut fell, beside every value
// held by more rows, or the most frequent alone when the cut fell
// between two counts of rows.
func TestWhichKept(t *testing.T) {
	for _, tt := range []struct {
		c    env.PartialColumn
		want string
	}{
		{env.PartialColumn{Indexed: 4000, Distinct: 10_000_000, TieRows: 1, TieKept: 4000, TieTotal: 10_000_000},
			", a sample (by a hash of the text) of the 10,000,000 held by 1 row"},
		{env.PartialColumn{Indexed: 60, Distinct: 500, TieRows: 2, TieKept: 10, TieTotal: 300},
			": every one held by more than 2 rows, and a sample (by a hash of the text) of 10 of the 300 held by 2 rows"},
		{env.PartialColumn{Indexed: 50, Distinct: 500, TieRows: 3, TieTotal: 300}, ", the most frequent: every one held by more than 3 rows"},
		{env.PartialColumn{Distinct: 500, TieRows: 9, TieTotal: 300}, ""},
	} {
		if got := whichKept(tt.c); got != tt.want {
			t.Errorf("whichKept(%+v) = %q, want %q", tt.c, got, tt.want)
		}
	}
}

func TestSearchValuesErrors(t *testing.T) {
	r, target := demoTarget(t, valueindex.Config{})
	ctx := context.Background()
	res, err := r.SearchValues(ctx, target, &SearchValuesArgs{Query: "x", Table: "nope"})
	if err != nil || res.Error == nil || res.Error.Code != schemas.ErrCodeNoSuchTable {
		t.Errorf("unknown table: %v %+v", err, res.Error)
	}
	res, err = NewRunner(Config{}).SearchValues(ctx, target, &SearchValuesArgs{Query: "x"})
	if err != nil || res.Error == nil || res.Error.Code != schemas.ErrCodeUnavailable {
		t.Errorf("no searcher: %v %+v", err, res.Error)
	}
}

// ptr is a pointer to v, for optional arguments.
func ptr[T any](v T) *T { return &v }

// TestSearchValuesQueryBound checks that a query past
// env.MaxValueQueryChars characters is refused with a message naming the
// bound, and that one at the bound, of distinct words throughout, costs
// a bounded amount of memory.
func TestSearchValuesQueryBound(t *testing.T) {
	long := strings.Repeat("é", env.MaxValueQueryChars+1)
	_, te := Decode(Call{Name: schemas.ToolSearchValues, Arguments: json.RawMessage(`{"query":"` + long + `"}`)})
	if te == nil || te.Code != schemas.ErrCodeArguments ||
		!strings.Contains(te.Message, `"query" is 1001 characters long, more than the 1000 allowed`) {
		t.Fatalf("%d-character query: %+v, want %s naming the bound", env.MaxValueQueryChars+1, te, schemas.ErrCodeArguments)
	}
	for _, d := range AllSet().Definitions() {
		if d.Function.Name != schemas.ToolSearchValues {
			continue
		}
		s := compileParams(t, d)
		for n, ok := range map[int]bool{env.MaxValueQueryChars: true, env.MaxValueQueryChars + 1: false} {
			doc := map[string]any{"query": strings.Repeat("é", n)}
			if got := s.Validate(doc) == nil; got != ok {
				t.Errorf("schema takes a %d-character query: %v, want %v", n, got, ok)
			}
		}
	}
	var b strings.Builder
	b.WriteString("Jane Austen")
	for i := 0; ; i++ {
		w := fmt.Sprintf(" %c%dq", 'a'+i%26, i)
		if b.Len()+len(w) > env.MaxValueQueryChars {
			break
		}
		b.WriteString(w)
	}
	args := &SearchValuesArgs{Query: b.String()}
	if msg := args.problem(); msg != "" {
		t.Fatalf("a query at the bound is refused: %s", msg)
	}
	r, target := demoTarget(t, valueindex.Config{})
	ctx := context.Background()
	if _, err := r.SearchValues(ctx, target, &SearchValuesArgs{Query: "Leeds"}); err != nil { // builds the index
		t.Fatal(err)
	}
	var res Result
	var err error
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err = r.SearchValues(ctx, target, args)
	runtime.ReadMemStats(&after)
	if err != nil || res.Error != nil {
		t.Fatalf("%v %+v", err, res.Error)
	}
	if got, bound := after.TotalAlloc-before.TotalAlloc, uint64(2<<20); got > bound {
		t.Errorf("a %d-character query allocated %d bytes, want at most %d", len(args.Query), got, bound)
	}
	if !strings.Contains(res.Content, "'Jane Austen'") {
		t.Errorf("no Jane Austen in:\n%s", res.Content)
	}
}
