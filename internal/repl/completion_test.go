package repl

import (
	"context"
	"reflect"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

// TestCompletions checks Tab's words at a server elsewhere, from the
// tables and columns inspect_schema showed.
func TestCompletions(t *testing.T) {
	s := &session{info: &schemas.ServerInfo{Datasets: []schemas.DatasetInfo{{Name: "demo"}}},
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
