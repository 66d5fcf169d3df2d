package pgstore_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/episodes/trajlog/pgstore"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestTextSearchReadsQuestionsAndSQL records episodes through the Writer
// and finds them by a substring, any case, of their question or of the
// SQL they sent; LIKE's wildcards in the text are matched as themselves.
func TestTextSearchReadsQuestionsAndSQL(t *testing.T) {
	s := open(t, pgstore.Config{})
	books := episode("ep_books", "demo/1", "correct", 1, t0, 2)
	odd := episode("ep_odd", "demo/2", "mismatch", 0, t0.Add(time.Second), 1)
	odd.Task.Question = "Which authors wrote 50% of the books?"
	odd.Steps[0].Arguments = json.RawMessage(`{"sql":"SELECT name FROM author_x"}`)
	odd.Steps[0].Action.Arguments = odd.Steps[0].Arguments
	for _, tr := range []*schemas.Trajectory{books, odd} {
		record(t, s, tr)
	}
	for text, want := range map[string][]string{
		"from BOOKS": {"ep_books"},           // the SQL of a step
		"select 1":   {"ep_books"},           // the submit's SQL
		"50%":        {"ep_odd"},             // the question, with a wildcard as itself
		"author_x":   {"ep_odd"},             // an underscore as itself
		"authorsx":   nil,                    // no wildcard: nothing
		"select":     {"ep_odd", "ep_books"}, // newest first
	} {
		if got := listText(t, s, text); !slices.Equal(got, want) {
			t.Errorf("text %q: %v, want %v", text, got, want)
		}
	}
}

// TestTextSearchColumnIsFilledForOldEpisodesAndIndexed empties the search
// column, as a store made before it holds it, and opens the store again:
// the migration fills it from the steps, and the trigram index exists.
func TestTextSearchColumnIsFilledForOldEpisodesAndIndexed(t *testing.T) {
	url, schema := pgtest.URL(t)
	s := open(t, pgstore.Config{URL: url})
	record(t, s, episode("ep_old", "demo/1", "correct", 1, t0, 2))
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "UPDATE sqlgym_episodes SET search = NULL"); err != nil {
		t.Fatal(err)
	}
	if got := listText(t, s, "count(*) from books"); got != nil {
		t.Fatalf("with the column empty: %v", got)
	}
	again := open(t, pgstore.Config{URL: url})
	if got := listText(t, again, "count(*) from books"); !slices.Equal(got, []string{"ep_old"}) {
		t.Fatalf("after the migration filled the column: %v", got)
	}
	var search string
	if err := conn.QueryRow(ctx, "SELECT search FROM sqlgym_episodes").Scan(&search); err != nil || search != "How many?\nSELECT count(*) FROM books\nSELECT 1" {
		t.Fatalf("the column filled from the steps: %q %v", search, err)
	}
	var def string
	err = conn.QueryRow(ctx, "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'sqlgym_episodes_search'", schema).Scan(&def)
	if err != nil || !strings.Contains(def, "gin_trgm_ops") {
		t.Fatalf("the trigram index: %q %v", def, err)
	}
}

func listText(t *testing.T, s *pgstore.Store, text string) []string {
	t.Helper()
	rows, _, err := s.List(context.Background(), pgstore.ListQuery{Text: text, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, r.EpisodeID)
	}
	return out
}
