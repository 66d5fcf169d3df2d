package tools

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/examples/demo"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
)

// inspectNoted runs inspect_schema for table with the dataset's notes of
// its database, failing the test on an error.
func inspectNoted(t *testing.T, ds *env.Dataset, dbID, table string) string {
	t.Helper()
	db := openFile(t, ds.DBs[dbID])
	res, err := NewRunner(Config{}).InspectWith(context.Background(), db, ds.Dialect, ds.Notes[dbID], &InspectSchemaArgs{Table: table})
	if err != nil || res.Error != nil {
		t.Fatalf("inspect %s: %v %+v", table, err, res.Error)
	}
	return res.Content
}

func TestInspectNotesDemo(t *testing.T) {
	ds, err := demo.Load(context.Background(), filepath.Join(t.TempDir(), "demo"), sqlite.Build)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "inspect_demo_books_notes", inspectNoted(t, ds, "library", "books")+"\n")
	// A table the descriptions do not name shows as it always did.
	db := openFile(t, ds.DBs["library"])
	plain, err := NewRunner(Config{}).Inspect(context.Background(), db, env.SQLite, &InspectSchemaArgs{Table: "authors"})
	if err != nil || plain.Content != inspectNoted(t, ds, "library", "authors") {
		t.Errorf("authors with notes differs from authors without: %v", err)
	}
}

func TestInspectNotesSpider(t *testing.T) {
	ds, err := datasets.LoadSpider("spider-dev", spiderdev.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	got := inspectNoted(t, ds, "flight_2", "airlines")
	for _, want := range []string{"uid INTEGER  -- airline id\n", "Airline TEXT  -- airline name\n", "Country TEXT\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("airlines lacks %q:\n%s", want, got)
		}
	}
}

// TestInspectNotesBird serves a BIRD-layout database whose
// database_description file is Latin-1 after a byte-order mark.
func TestInspectNotesBird(t *testing.T) {
	dir := t.TempDir()
	dbDir := filepath.Join(dir, "dev_databases", "schools")
	if err := os.MkdirAll(filepath.Join(dbDir, "database_description"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "CREATE TABLE schools(CDSCode TEXT PRIMARY KEY, Charter INTEGER, OpenDate DATE);" +
		"INSERT INTO schools VALUES ('01', 1, '1990-09-01');"
	if err := sqlite.Build(context.Background(), filepath.Join(dbDir, "schools.sqlite"), script); err != nil {
		t.Fatal(err)
	}
	csv := "original_column_name,column_name,column_description,data_format,value_description\n" +
		"CDSCode,,California school code,text,\n" +
		"Charter,charter school,whether it is a charter school,integer,\"1: yes; 0: no (\xe9cole publique)\"\n" +
		"OpenDate,,,date,\n"
	files := map[string]string{
		"mini_dev_sqlite.json": `[{"question_id": 1, "db_id": "schools", "question": "q", "SQL": "SELECT 1"}]`,
		"dev_databases/schools/database_description/schools.csv": "\xef\xbb\xbf" + csv,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := datasets.LoadBird("bird", dir)
	if err != nil {
		t.Fatal(err)
	}
	got := inspectNoted(t, ds, "schools", "schools")
	for _, want := range []string{
		"CDSCode TEXT  -- California school code\n",
		"Charter INTEGER  -- charter school; whether it is a charter school; values: 1: yes; 0: no (école publique)\n",
		"OpenDate DATE\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("schools lacks %q:\n%s", want, got)
		}
	}
}

// TestWithNotesKeepsEvidence: the descriptions come after the question
// and its evidence, which keep their place, and are bounded.
func TestWithNotesKeepsEvidence(t *testing.T) {
	ds, err := demo.Load(context.Background(), filepath.Join(t.TempDir(), "demo"), sqlite.Build)
	if err != nil {
		t.Fatal(err)
	}
	task, _ := ds.Task("demo/library-003")
	plain := Prompt(task, env.SQLite, "hermes", 8)
	got := WithNotes(plain, ds.Notes["library"])
	user, before := got[len(got)-1].Content, plain[len(plain)-1].Content
	want := before + "\n\nColumn descriptions from the dataset:\n- books: Every title"
	if !strings.HasPrefix(user, want) || !strings.Contains(before, "External knowledge: A loan that has not been returned") {
		t.Errorf("user message %q, want it to start %q", user, want)
	}
	if !strings.Contains(user, "- loans.return_date: format: ISO date, YYYY-MM-DD; values: NULL while the book is still out") {
		t.Errorf("user message lacks loans.return_date:\n%s", user)
	}
	if got[0] != plain[0] || len(got) != len(plain) {
		t.Error("WithNotes changed the system message")
	}
	if same := WithNotes(plain, nil); same[len(same)-1].Content != before {
		t.Error("nil notes changed the prompt")
	}
	many, err := datasets.ParseNotes([]byte(`{"tables": {"t": {"columns": {` + manyColumns(2000) + `}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	cut := WithNotes(plain, many)[1].Content
	if n := len(cut); n > len(before)+PromptNotesBytes || !strings.Contains(cut, "more not shown)") {
		t.Errorf("prompt grew by %d bytes (bound %d), saying what was cut: %v", n-len(before), PromptNotesBytes, strings.Contains(cut, "more not shown)"))
	}
}

func manyColumns(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = `"c` + strconv.Itoa(i) + `": {"description": "a column that the dataset describes at some length"}`
	}
	return strings.Join(parts, ",")
}
