package export_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/export"
)

// TestDatasetInfoUpdate: the file beside out, a new one holding out's
// entry alone, an existing one keeping its other entries; one that is
// not JSON is an error naming it.
func TestDatasetInfoUpdate(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sql_sft.jsonl")
	path, name, merged, err := export.DatasetInfoUpdate(out, "sft")
	if err != nil || path != filepath.Join(dir, export.DatasetInfoFile) || name != "sql_sft" {
		t.Fatalf("a new file: %s, %q, %v", path, name, err)
	}
	var entries map[string]map[string]any
	if err := json.Unmarshal(merged, &entries); err != nil || len(entries) != 1 || entries["sql_sft"]["file_name"] != "sql_sft.jsonl" {
		t.Fatalf("a new file holds %s (%v), want the sql_sft entry alone", merged, err)
	}
	if err := os.WriteFile(path, []byte(`{"other": {"file_name": "other.json"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, merged, err = export.DatasetInfoUpdate(out, "sft")
	if err != nil || json.Unmarshal(merged, &entries) != nil || len(entries) != 2 || entries["other"]["file_name"] != "other.json" {
		t.Fatalf("an existing file: %s, %v; want its entry kept beside sql_sft", merged, err)
	}
	if err := os.WriteFile(path, []byte("not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := export.DatasetInfoUpdate(out, "sft"); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("a file that is not JSON: %v, want an error naming %s", err, path)
	}
}
