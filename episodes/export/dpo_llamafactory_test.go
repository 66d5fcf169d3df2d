package export_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/export"
	"github.com/sqlgym/sqlgym/internal/testkit/consumers"
)

// TestLlamaFactoryPairs: the dpo pairs of the realistic log for
// llamafactory survive datasets 4.0.0's Arrow loading unchanged, and
// LLaMA-Factory's sharegpt converter, with the file's ranking entry,
// reads each as a pair: the prompt is the trl pair's prompt, and the
// chosen and rejected turns are its two replies, each turn as the sft
// file writes it (calls, text and reasoning given back once). Under the
// sft entry (no ranking) the converter refuses them, as it refuses the
// sft rows under the ranking entry.
func TestLlamaFactoryPairs(t *testing.T) {
	lines := exportFor(t, export.Options{Format: "dpo", Chat: export.ChatOptions{Target: "llamafactory", SplitCalls: true}})
	trl := decodeLines(t, exportFor(t, export.Options{Format: "dpo", Chat: export.ChatOptions{SplitCalls: true}}))
	if len(lines) != 3 || len(trl) != 3 {
		t.Fatalf("%d llamafactory pairs, %d trl pairs; want 3 each", len(lines), len(trl))
	}
	rows, err := consumers.LoadJSONLines(lines, false)
	if err != nil || !reflect.DeepEqual(rows, decodeLines(t, lines)) {
		t.Fatalf("datasets 4.0.0 changes the pairs (%v)", err)
	}
	ranking, sft := lfAttr(t, export.DatasetInfoPairsEntry("dpo.jsonl")), lfAttr(t, export.DatasetInfoEntry("dpo.jsonl"))
	if !ranking.Ranking || sft.Ranking {
		t.Fatalf("ranking entry %+v, sft entry %+v", ranking, sft)
	}
	for i, row := range rows {
		ex, err := consumers.LlamaFactorySharegpt(ranking, row)
		if err != nil {
			t.Fatalf("pair %d skipped: %v", i, err)
		}
		if len(ex.Response) != 2 || (ex.Tools == "") != (trl[i]["tools"] == nil) {
			t.Fatalf("pair %d: %d responses, tools %q", i, len(ex.Response), ex.Tools)
		}
		prompt := messagesOf(trl[i]["prompt"])
		for j, side := range []string{"chosen", "rejected"} {
			one := *ex
			one.Response = ex.Response[j : j+1]
			checkLFRow(t, &one, slices.Concat(prompt, messagesOf(trl[i][side])))
		}
		if _, err := consumers.LlamaFactorySharegpt(sft, row); err == nil {
			t.Errorf("pair %d read under the sft entry", i)
		}
	}
	sftRows := decodeLines(t, exportFor(t, export.Options{Format: "sft", Chat: export.ChatOptions{Target: "llamafactory"}}))
	if _, err := consumers.LlamaFactorySharegpt(ranking, sftRows[0]); err == nil {
		t.Error("an sft row read as a pair")
	}
}

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
