package repl

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestCompletions checks Tab's words at a server elsewhere that does not
// answer tasks.schema, from the tables and columns inspect_schema showed.
func TestCompletions(t *testing.T) {
	s := &session{info: &schemas.ServerInfo{Datasets: []schemas.DatasetInfo{{Name: "demo"}}}, noSchema: true,
		ep: &episode{reset: &schemas.ResetResult{Task: schemas.TaskView{TaskID: "demo/library-001", DBID: "library"}}}}
	s.learn("2 tables (call inspect_schema with a table name for its keys and sample rows):\n" +
		"authors(author_id INTEGER, name TEXT)\nbooks(book_id INTEGER, title TEXT)\n3 turns left.")
	s.learn("Table loans\nColumns:\n  loan_id INTEGER\n  due_date TEXT  -- when\nPrimary key: loan_id\n  not_a_column x")
	tests := []struct {
		line      string
		head      string
		items     []string
		tail      string
		cursorEnd bool
	}{
		{".sch", "", []string{".schema"}, "", true},
		{".re", "", []string{".replay", ".reset", ".reward"}, "", true},
		{".schema bo", ".schema ", []string{"books"}, "", true},
		{".describe loans.d", ".describe ", []string{"loans.due_date"}, "", true},
		{".describe loans ", ".describe loans ", []string{"due_date", "loan_id"}, "", true},
		{".vertical a", ".vertical ", []string{"auto"}, "", true},
		{".reset de", ".reset ", []string{"demo"}, "", true},
		{"sel", "", []string{"select"}, "", true},
		{"SEL", "", []string{"SELECT"}, "", true},
		{"SELECT ti", "SELECT ", []string{"title"}, "", true},
		{"SELECT a", "SELECT ", []string{"all", "and", "as", "asc", "author_id", "authors", "avg"}, "", true},
		{"SELECT * FROM ", "SELECT * FROM ", []string{"authors", "books", "loans"}, "", true},
		{"SELECT books.t", "SELECT ", []string{"books.title"}, "", true},
		{"SELECT  FROM books", "SELECT ", nil, " FROM books", false},
		{".submit SELECT nam", ".submit SELECT ", []string{"name"}, "", true},
	}
	for _, tt := range tests {
		pos := len([]rune(tt.line))
		if !tt.cursorEnd {
			pos = len("SELECT ")
		}
		head, items, tail := s.completions(context.Background(), tt.line, pos)
		if head != tt.head || !reflect.DeepEqual(items, tt.items) || tail != tt.tail {
			t.Errorf("%q: got %q %q %q, want %q %q %q", tt.line, head, items, tail, tt.head, tt.items, tt.tail)
		}
	}
}

// TestCompletionsAfterReset checks that at a server elsewhere, over a
// real WebSocket, Tab completes the tables and columns of the episode's
// database right after the reset, before any inspect_schema: the REPL
// asks tasks.schema, which spends no turn and records no step.
func TestCompletionsAfterReset(t *testing.T) {
	srv := startServer(t, 0)
	ctx := context.Background()
	c, err := client.Dial(ctx, srv.url, "")
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	s := newSession(ctx, Config{URL: srv.url, Stdin: strings.NewReader(""), Stdout: &out}, c, info)
	defer func() { s.c.Close() }()
	for _, tt := range []struct {
		task, column string
		tables, cols []string
	}{
		{"demo/library-001", "books.pub", []string{"authors", "books", "genres", "loans", "members"}, []string{"books.published_year"}},
		{"demo/shop-001", "orders.ord", []string{"categories", "customers", "order_items", "orders", "products", "returns"},
			[]string{"orders.order_date", "orders.order_id"}},
	} {
		if !s.start(ctx, schemas.ResetParams{TaskID: tt.task}) {
			t.Fatalf("reset %s failed:\n%s", tt.task, out.String())
		}
		_, tables, _ := s.completions(ctx, "SELECT * FROM ", len("SELECT * FROM "))
		_, cols, _ := s.completions(ctx, "SELECT "+tt.column, len("SELECT "+tt.column))
		if !reflect.DeepEqual(tables, tt.tables) || !reflect.DeepEqual(cols, tt.cols) {
			t.Errorf("%s: Tab after FROM = %q and after %s = %q, want %q and %q", tt.task, tables, tt.column, cols, tt.tables, tt.cols)
		}
		rec, err := c.Episode(ctx, s.ep.reset.EpisodeID)
		if err != nil || len(rec.Steps) != 0 {
			t.Errorf("%s: the episode has %d steps (err %v), want none: tasks.schema is no step", tt.task, len(rec.Steps), err)
		}
	}
}
