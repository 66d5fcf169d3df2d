package datasets

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env/sqlite"
)

// docSection is the text of docs/datasets.md from the heading that
// starts with title to the next heading of its level.
func docSection(t *testing.T, title string) string {
	t.Helper()
	data, err := os.ReadFile("../../docs/datasets.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(data), "\n## "+title)
	if !ok {
		t.Fatalf("docs/datasets.md has no section %q", title)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	return sec
}

// docBlock is the first fenced block of sec opened by fence (```
// alone: a folder tree; ```json: lines of tasks).
func docBlock(t *testing.T, sec, fence string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(sec, "\n"+fence+"\n")
	if !ok {
		t.Fatalf("no %s block in:\n%s", fence, sec)
	}
	block, _, _ := strings.Cut(rest, "\n```")
	return strings.Split(block, "\n")
}

// docTree reads a folder tree of the docs: two spaces of indentation a
// level, a name ending in / a folder, "..." skipped, and what follows a
// name after a space a comment. It returns the root folder's name and
// the files under it, slash-separated, relative to it.
func docTree(t *testing.T, lines []string) (root string, files []string) {
	t.Helper()
	var stack []string
	for _, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		name, _, _ := strings.Cut(trimmed, " ")
		if name == "" || name == "..." {
			continue
		}
		depth := (len(line) - len(trimmed)) / 2
		if depth > len(stack) {
			t.Fatalf("tree line %q is indented past its folder", line)
		}
		stack = stack[:depth]
		if strings.HasSuffix(name, "/") {
			stack = append(stack, strings.TrimSuffix(name, "/"))
			continue
		}
		if len(stack) == 0 {
			t.Fatalf("tree line %q is outside the root folder", line)
		}
		files = append(files, strings.Join(append(stack[1:], name), "/"))
	}
	if len(stack) == 0 {
		t.Fatal("empty tree")
	}
	return stack[0], files
}

// buildTree makes each file of the tree under dir/root: every .sqlite
// file a real SQLite database, every other file what content gives it.
func buildTree(t *testing.T, dir, root string, files []string, content func(file string) string) string {
	t.Helper()
	base := filepath.Join(dir, root)
	for _, f := range files {
		p := filepath.Join(base, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".sqlite") {
			if err := sqlite.Build(context.Background(), p, "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);"); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content(f)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

// dbOf is the db_id of the first database file under folder in files.
func dbOf(t *testing.T, files []string, folder string) string {
	t.Helper()
	for _, f := range files {
		if rest, ok := strings.CutPrefix(f, folder+"/"); ok && strings.HasSuffix(f, ".sqlite") {
			return strings.Split(rest, "/")[0]
		}
	}
	t.Fatalf("the tree has no database under %s/: %v", folder, files)
	return ""
}

// loadDoc loads spec ([NAME=]FORMAT:PATH) as --dataset would.
func loadDoc(t *testing.T, spec string) (Source, int, map[string]string, int) {
	t.Helper()
	src, err := ParseSource(spec)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := Load(src)
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	return src, len(ds.Tasks), ds.DBs, len(ds.Notes)
}

// Spider's layout in docs/datasets.md, built as shown, loads: the folder
// (dev.json) and a JSON file of it, named after the folder.
func TestDocSpiderLayout(t *testing.T) {
	root, files := docTree(t, docBlock(t, docSection(t, "Spider"), "```"))
	db := dbOf(t, files, "database")
	base := buildTree(t, t.TempDir(), root, files, func(f string) string {
		if f == "tables.json" {
			return `[{"db_id": "` + db + `", "table_names_original": ["t"], "column_names_original": [[-1, "*"], [0, "x"]], "column_descriptions": ["", "the x of each t"]}]`
		}
		return `[{"db_id": "` + db + `", "question": "What x?", "query": "SELECT x FROM t"}]`
	})
	for _, path := range []string{base, filepath.Join(base, "train_spider.json")} {
		src, tasks, dbs, notes := loadDoc(t, "spider:"+path)
		if src.Name != root || tasks != 1 || dbs[db] != filepath.Join(base, "database", db, db+".sqlite") || notes != 1 {
			t.Errorf("spider:%s: name %s, %d tasks, databases %v, %d notes; want %s, 1, %s under database/, 1",
				path, src.Name, tasks, dbs, notes, root, db)
		}
	}
}

// BIRD's layout in docs/datasets.md, built as shown, loads from dev.json
// and from mini_dev_sqlite.json in its place, with the descriptions.
func TestDocBirdLayout(t *testing.T) {
	root, files := docTree(t, docBlock(t, docSection(t, "BIRD"), "```"))
	db := dbOf(t, files, "dev_databases")
	base := buildTree(t, t.TempDir(), root, files, func(f string) string {
		if strings.HasSuffix(f, ".csv") {
			return "original_column_name,column_name,column_description,data_format,value_description\nx,x,the x of each t,integer,\n"
		}
		return `[{"question_id": 7, "db_id": "` + db + `", "question": "What x?", "evidence": "", "SQL": "SELECT x FROM t", "difficulty": "simple"}]`
	})
	check := func() {
		t.Helper()
		_, tasks, dbs, notes := loadDoc(t, "bird:"+base)
		if tasks != 1 || dbs[db] != filepath.Join(base, "dev_databases", db, db+".sqlite") || notes != 1 {
			t.Errorf("bird:%s: %d tasks, databases %v, %d notes; want 1, %s under dev_databases/, 1", base, tasks, dbs, notes, db)
		}
	}
	check()
	if err := os.Rename(filepath.Join(base, "dev.json"), filepath.Join(base, "mini_dev_sqlite.json")); err != nil {
		t.Fatal(err)
	}
	check()
}

// The JSONL layout and example lines of docs/datasets.md, built as
// shown, load: each database where the page says it is looked for.
func TestDocJSONLLayout(t *testing.T) {
	sec := docSection(t, "JSONL")
	root, files := docTree(t, docBlock(t, sec, "```"))
	lines := docBlock(t, sec, "```json")
	base := buildTree(t, t.TempDir(), root, files, func(f string) string {
		if f == "tasks.jsonl" {
			return strings.Join(lines, "\n") + "\n"
		}
		return `{"tables": {"t": {"columns": {"x": {"description": "the x of each t"}}}}}`
	})
	for _, path := range []string{base, filepath.Join(base, "tasks.jsonl")} {
		_, tasks, dbs, notes := loadDoc(t, "jsonl:"+path)
		if tasks != len(lines) || dbs["shop"] != filepath.Join(base, "database", "shop", "shop.sqlite") ||
			dbs["zoo"] != filepath.Join(base, "zoo.sqlite") || notes != 1 {
			t.Errorf("jsonl:%s: %d tasks, databases %v, %d notes; want %d, shop under database/, zoo beside, 1", path, tasks, dbs, notes, len(lines))
		}
	}
}
