package episodes_test

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

func TestTextActions(t *testing.T) {
	c := newHarness(t, options{}).dial()
	tests := []struct {
		format, text, tool, wantIn, outcome string
	}{
		{"hermes", "Let me look.\n<tool_call>\n{\"name\": \"execute_sql\", \"arguments\": {\"sql\": \"SELECT count(*) FROM items\"}}\n</tool_call>",
			"execute_sql", "5", ""},
		{"hermes", "<think>maybe <tool_call>{\"name\": \"submit\", \"arguments\": {\"sql\": \"SELECT 0\"}}</tool_call></think>\n" +
			"<tool_call>{\"name\": \"submit\", \"arguments\": {\"sql\": \"SELECT count(*) FROM items\"}}</tool_call>",
			"submit", "Correct", "correct"},
		{"hermes", "<tool_call>{\"name\": \"execute_sql\", \"arguments\": {\"sql\": \"SELECT 1\"}}</tool_call>" +
			"<tool_call>{\"name\": \"execute_sql\", \"arguments\": {\"sql\": \"SELECT 2\"}}</tool_call>",
			"execute_sql", "Call 2 (execute_sql):\n2", ""},
		{"tags", "I will count.\n<sql>SELECT count(*) FROM items</sql>", "execute_sql", "5", ""},
		{"tags", "<solution>\n```sql\nSELECT count(*) FROM items\n```\n</solution>", "submit", "Correct", "correct"},
		{"tags", "<tool_call>{\"name\": \"submit\"}</tool_call>", "", "<sql>", ""},
	}
	for _, tt := range tests {
		r := reset(t, c, schemas.ResetParams{TaskID: "t/count", ActionFormat: tt.format})
		if r.ActionFormat != tt.format || !strings.Contains(r.Messages[0].Content, map[string]string{"hermes": "<tool_call>", "tags": "<sql>"}[tt.format]) {
			t.Fatalf("%s: reset = %s, prompt does not explain the format", tt.format, r.ActionFormat)
		}
		s := step(t, c, r.EpisodeID, textAction(tt.text))
		if s.Info.Tool != tt.tool || !strings.Contains(s.Observation.Content, tt.wantIn) || s.Info.Outcome != tt.outcome {
			t.Errorf("%s %q:\n tool %q outcome %q content %q\nwant tool %q outcome %q content with %q",
				tt.format, tt.text, s.Info.Tool, s.Info.Outcome, s.Observation.Content, tt.tool, tt.outcome, tt.wantIn)
		}
		if tt.tool == "" && (s.Info.Error == nil || s.Info.Error.Code != schemas.ErrCodeFormat) {
			t.Errorf("%s %q: error %+v, want format_error", tt.format, tt.text, s.Info.Error)
		}
	}
}

// TestHostileSQLOverTheSocket sends statements that try to write or escape
// through both tools: each is an observation error, the server keeps
// serving, and the database file does not change.
func TestHostileSQLOverTheSocket(t *testing.T) {
	h := newHarness(t, options{})
	c := h.dial()
	dbPath := filepath.Join(h.dir, "shop.sqlite")
	before := fileHash(t, dbPath)
	hostile := map[string]string{
		"DELETE FROM items":                                           "denied",
		"SELECT 1; DROP TABLE items":                                  "multi_statement",
		"SELECT 1 -- \n; DELETE FROM items":                           "multi_statement",
		"ATTACH DATABASE '" + filepath.Join(h.dir, "x.db") + "' AS x": "denied",
		"PRAGMA query_only = 0":                                       "denied",
		"VACUUM INTO '" + filepath.Join(h.dir, "copy.db") + "'":       "denied",
		"CREATE TEMP TABLE t(a)":                                      "denied",
		"SELECT load_extension('x')":                                  "denied",
		"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT max(n) FROM r": "timeout",
	}
	for sql, code := range hostile {
		r := reset(t, c, schemas.ResetParams{TaskID: "t/count"})
		s := step(t, c, r.EpisodeID, execSQL(sql))
		if s.Info.Error == nil || s.Info.Error.Code != code {
			t.Errorf("execute_sql %q: error %+v, want code %s", sql, s.Info.Error, code)
		}
		s = step(t, c, r.EpisodeID, submitSQL(sql))
		if s.Info.Outcome != map[bool]string{true: "pred_timeout", false: "pred_error"}[code == "timeout"] {
			t.Errorf("submit %q: outcome %q", sql, s.Info.Outcome)
		}
	}
	if after := fileHash(t, dbPath); after != before {
		t.Error("the database file changed")
	}
	for _, name := range []string{"x.db", "copy.db"} {
		if _, err := os.Stat(filepath.Join(h.dir, name)); err == nil {
			t.Errorf("%s was created", name)
		}
	}
	if s := step(t, c, reset(t, c, schemas.ResetParams{TaskID: "t/count"}).EpisodeID, execSQL("SELECT count(*) FROM items")); s.Info.Error != nil {
		t.Errorf("server no longer serves: %+v", s.Info.Error)
	}
}

func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}
