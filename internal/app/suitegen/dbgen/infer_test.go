package dbgen

import (
	"slices"
	"testing"
)

// libraryScript declares no foreign key; its golds join its tables.
const libraryScript = `
CREATE TABLE author (aid INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE book (bid INTEGER PRIMARY KEY, author INTEGER, genre TEXT, isbn TEXT UNIQUE);
CREATE TABLE shelf (genre TEXT, room INTEGER);
CREATE TABLE review (rid INTEGER PRIMARY KEY, isbn TEXT, stars INTEGER);
CREATE TABLE profile (pid INTEGER PRIMARY KEY, bio TEXT);
INSERT INTO author VALUES (1, 'Ada'), (2, 'Ben'), (3, 'Cyd'), (4, 'Dee');
INSERT INTO book VALUES (10, 1, 'poetry', 'i-10'), (11, 1, 'novel', 'i-11'), (12, 3, 'essay', 'i-12'), (13, 4, 'novel', 'i-13');
INSERT INTO shelf VALUES ('novel', 1), ('poetry', 2), ('history', 3);
INSERT INTO review VALUES (1, 'i-10', 5), (2, 'i-13', 3), (3, 'i-99', 1);
INSERT INTO profile VALUES (1, 'poet'), (3, 'critic');
`

var libraryGolds = []string{
	"SELECT T2.name FROM book AS T1 JOIN author AS T2 ON T1.author = T2.aid",
	"SELECT T1.room FROM shelf AS T1, book AS T2 WHERE T1.genre = T2.genre",
	"SELECT stars FROM review JOIN book ON review.isbn = book.isbn",
	"SELECT bio FROM author AS a JOIN profile AS p ON a.aid = p.pid",
	"SELECT T2.name FROM book AS T1 JOIN author AS T2 ON T2.aid = T1.author WHERE T1.genre = 'novel'",
}

func TestInferredKeys(t *testing.T) {
	p := analyze(t, source(t, libraryScript), libraryGolds, Config{MaxRows: 50})
	var got []string
	for _, fk := range p.Describe().ForeignKeys {
		got = append(got, keyLine(fk))
	}
	want := []string{
		"book.author -> author.aid inferred true", // aid is the key
		"book.genre -> shelf.genre shared false",  // neither side is a key
		"review.isbn -> book.isbn inferred false", // isbn is unique; review names a book the source lacks
		"profile.pid -> author.aid inferred true", // both are keys: every pid is an aid
	}
	if !slices.Equal(got, want) {
		t.Errorf("keys\n%q\nwant\n%q", got, want)
	}
	desc := describedColumns(p.Describe())
	if got := desc["shelf.genre"].SharesWith; !slices.Equal(got, []string{"book.genre"}) {
		t.Errorf("shelf.genre shares its pool with %q, want book.genre", got)
	}
	// The gold's literal on book.genre seeds the shared pool: shelf's too.
	if desc["shelf.genre"].Seeds == 0 {
		t.Errorf("shelf.genre got no seeds from book.genre's literal: %+v", desc["shelf.genre"])
	}
}

func TestInferredKeysShapeRows(t *testing.T) {
	p := analyze(t, source(t, libraryScript), libraryGolds, Config{MaxRows: 50})
	var both, matched, orphans, reviews int
	for seed := range uint64(20) {
		path, st := generated(t, p, seed)
		checkConstraints(t, p, path) // the strict inferred keys hold, like declared ones
		conn := reader(t, path)
		if st.Rows["book"] > 0 && st.Rows["shelf"] > 0 {
			both++
			if count(t, conn, "SELECT count(*) FROM book JOIN shelf ON book.genre = shelf.genre") > 0 {
				matched++
			}
		}
		reviews += count(t, conn, "SELECT count(*) FROM review WHERE isbn IN (SELECT isbn FROM book)")
		orphans += count(t, conn, "SELECT count(*) FROM review WHERE isbn NOT IN (SELECT isbn FROM book WHERE isbn IS NOT NULL)")
	}
	if matched*10 < both*8 {
		t.Errorf("book and shelf joined on genre in %d of the %d databases holding both; want most", matched, both)
	}
	if reviews == 0 || orphans == 0 {
		t.Errorf("reviews of a generated book: %d, of none: %d; want both, as the source has both", reviews, orphans)
	}
}
