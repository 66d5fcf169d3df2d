package export_test

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// realistic is a log like the ones real rollouts leave, with every shape a
// turn takes: assistant messages with text, reasoning and two calls (ids
// the model drew, and ids the server gave), hermes text actions with the
// text outside their blocks and two blocks in one reply, a hermes reply
// recorded before steps kept their content, a reply with no call (its
// observation a user turn), a tags episode, calls the client parsed, SQL
// errors and their repair, a call after a submit in the same reply, a
// call whose arguments are not an object, SQL full of <, >, & and quotes,
// and text that is not ASCII. Most episodes share demo/1's prompt, so
// dpo pairs them: right over wrong, parting at the first turn and later.
func realistic() []*trajlog.Record {
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }
	schema := "Tables: books(id, title, author, year), authors(name, born)\n7 turns left."
	errTable := "Error: no such table: bücher\n6 turns left."
	count := "count(*)\n6\n(1 row)\n5 turns left."
	austen := `SELECT count(title) FROM books WHERE author = 'Jane Austen' AND year < 1820`
	sqlArgs := func(sql string) string { return string(encodeJSON(map[string]string{"sql": sql})) }
	think := "<think>\nThe tables are unknown; list them, then count.\n</think>"

	rs := []*trajlog.Record{
		// Native tool calling: text, reasoning and two calls, a repair, the answer.
		rec("native_repair", "demo/1", "correct", 0.97, at(0),
			messageStep(ptr("Ich sehe mir zuerst das Schema an."), ptr("Die Frage nennt Bücher: welche Tabellen gibt es?"),
				call{id: "chatcmpl-tool-7f3a", tool: "inspect_schema", args: `{}`, obs: schema},
				call{id: "chatcmpl-tool-9b1c", tool: "execute_sql", args: sqlArgs("SELECT count(*) FROM bücher"), obs: errTable, code: "sql_error"}),
			messageStep(nil, nil, call{id: "chatcmpl-tool-c2d4", tool: "execute_sql", args: sqlArgs(austen), obs: count}),
			messageStep(ptr("Es sind 6 Titel."), nil, call{id: "chatcmpl-tool-e5f6", tool: "submit", args: sqlArgs(austen), obs: "Submitted. Correct."})),
		// Hermes text: reasoning and text outside two blocks, then one block.
		rec("hermes_two_blocks", "demo/1", "correct", 0.9, at(1),
			hermesStep(think+"\nI list the tables first.\n<tool_call>\n{\"name\": \"inspect_schema\", \"arguments\": {}}\n</tool_call>\n<tool_call>\n{\"name\": \"execute_sql\", \"arguments\": {\"sql\": \"SELECT count(*) FROM books\"}}\n</tool_call>",
				think+"\nI list the tables first.",
				call{tool: "inspect_schema", args: `{}`, obs: schema},
				call{tool: "execute_sql", args: sqlArgs("SELECT count(*) FROM books"), obs: "count(*)\n12\n(1 row)\n6 turns left."}),
			hermesStep("Only Austen's count.\n<tool_call>\n{\"name\": \"submit\", \"arguments\": {\"sql\": \""+austen+"\"}}\n</tool_call>",
				"Only Austen's count.", call{tool: "submit", args: sqlArgs(austen), obs: "Submitted. Correct."})),
		// A reply with no call, then calls the client parsed: the wrong answer.
		rec("no_call_then_wrong", "demo/1", "mismatch", -0.05, at(2),
			textStep("I think the answer is 12.", "", "", "Error: no tool call found.\n7 turns left."),
			callStep("execute_sql", sqlArgs("SELECT count(*) FROM books"), "count(*)\n12\n(1 row)\n6 turns left."),
			callStep("submit", sqlArgs("SELECT count(*) FROM books"), "Submitted. Wrong answer.")),
		// The same first turn as native_repair, then a wrong submit.
		rec("native_wrong_later", "demo/1", "mismatch", 0.1, at(3),
			messageStep(ptr("Ich sehe mir zuerst das Schema an."), ptr("Die Frage nennt Bücher: welche Tabellen gibt es?"),
				call{id: "chatcmpl-tool-1111", tool: "inspect_schema", args: `{}`, obs: schema},
				call{id: "chatcmpl-tool-2222", tool: "execute_sql", args: sqlArgs("SELECT count(*) FROM bücher"), obs: errTable, code: "sql_error"}),
			messageStep(ptr("Dann eben alle Bücher."), nil, call{id: "chatcmpl-tool-3333", tool: "submit", args: sqlArgs("SELECT count(*) FROM books"), obs: "Submitted. Wrong answer."})),
		// The same first turn again, then a reply with no call; the turns ran out.
		rec("native_no_call_later", "demo/1", "no_submit", -0.2, at(9),
			messageStep(ptr("Ich sehe mir zuerst das Schema an."), ptr("Die Frage nennt Bücher: welche Tabellen gibt es?"),
				call{tool: "inspect_schema", args: `{}`, obs: schema},
				call{tool: "execute_sql", args: sqlArgs("SELECT count(*) FROM bücher"), obs: errTable, code: "sql_error"}),
			messageStep(ptr("Die Tabelle heißt books; es sind wohl 6."), nil)),
		// A hermes reply recorded before steps kept their content.
		rec("hermes_old_record", "demo/1", "mismatch", 0, at(4),
			textStep("Counting.\n<tool_call>\n{\"name\": \"submit\", \"arguments\": {\"sql\": \"SELECT 12\"}}\n</tool_call>", "submit", sqlArgs("SELECT 12"), "Submitted. Wrong answer.")),
		// A call after a submit in the same reply does not run.
		rec("submit_then_call", "demo/1", "correct", 0.95, at(5),
			messageStep(ptr(""), nil,
				call{tool: "submit", args: sqlArgs(austen), obs: "Submitted. Correct."},
				call{tool: "execute_sql", args: sqlArgs("SELECT 1"), obs: "Not run: the episode ended with the submit before this call.", code: "not_run"})),
		// Arguments that are not an object: a failed call.
		rec("bad_arguments", "demo/1", "no_submit", -0.3, at(6),
			messageStep(nil, nil, call{id: "call_x", tool: "execute_sql", args: `"SELECT count(*) FROM books"`, obs: "Error: the arguments are not a JSON object.", code: "bad_arguments"})),
		// Calls the client parsed, SQL with <, >, & and quotes, text that is not ASCII.
		rec("parsed_calls", "demo/2", "correct", 1, at(7),
			callStep("inspect_schema", "", schema),
			callStep("execute_sql", sqlArgs("SELECT title FROM books WHERE year > 1800 AND year <= 1815 AND title <> '' AND author LIKE '%&%' -- «Émile»\n"), "title\nEmma\n(1 row)\n6 turns left."),
			callStep("submit", sqlArgs(`SELECT "title" FROM books WHERE year > 1800 AND year <= 1815`), "Submitted. Correct.")),
		tagsEpisode(at(8)),
	}
	rs[2].Messages = prompt // the same prompt as the others of demo/1
	return rs
}

// episode is the realistic episode of that id.
func episode(id string) *trajlog.Record {
	for _, r := range realistic() {
		if r.EpisodeID == id {
			return r
		}
	}
	panic("no realistic episode " + id)
}

// tagsEpisode is an episode in the tags format: its calls are written as
// <sql> and <solution> tags.
func tagsEpisode(at time.Time) *trajlog.Record {
	r := rec("tags", "demo/3", "correct", 1, at,
		textStep("Let me look.\n<sql>SELECT count(*) FROM books</sql>", "execute_sql", `{"sql":"SELECT count(*) FROM books"}`, "count(*)\n12\n(1 row)\n7 turns left."),
		textStep("<solution>SELECT count(*) FROM books</solution>", "submit", `{"sql":"SELECT count(*) FROM books"}`, "Submitted. Correct."))
	r.ActionFormat = schemas.FormatTags
	return r
}

// encodeJSON is v as compact JSON with <, > and & as they are.
func encodeJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return bytes.TrimRight(b.Bytes(), "\n")
}
