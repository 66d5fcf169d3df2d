package mcpserver

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

// FuzzSplitEpisodeID holds splitEpisodeID to encoding/json: arguments
// that are not an object, or hold no episode_id, come back as they came;
// otherwise the id is episode_id's value, and the rest decodes to the
// same members less episode_id.
func FuzzSplitEpisodeID(f *testing.F) {
	for _, seed := range []string{`{}`, `{"sql":"SELECT 1"}`, `{"episode_id":"ep_1","sql":"SELECT 1"}`, `{"sql":"x","episode_id":null}`,
		`{"episode_id":5}`, `{"episode_id":""}`, `{"episode_id":"a","episode_id":"b"}`, `{"a":1,"a":2,"episode_id":"e"}`, `[1]`, `"x"`, ``,
		`{"a":1}{}`, `{"a":{"episode_id":"x"}}`, " {\"episode_id\" : \"e\" ,\n \"b\" : [1, 2] } ", `{"\u0065pisode_id":"e","<":"&"}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		id, rest, err := splitEpisodeID("t", raw)
		var whole map[string]json.RawMessage
		named := false
		if json.Unmarshal(raw, &whole) == nil && whole != nil {
			_, named = whole[argEpisodeID]
		}
		if !named {
			if err != nil || id != "" || !bytes.Equal(rest, raw) {
				t.Fatalf("%q: split into %q, %q, %v; want it whole", raw, id, rest, err)
			}
			return
		}
		if err != nil {
			return // episode_id not a string, empty, or given twice
		}
		var want string
		json.Unmarshal(whole[argEpisodeID], &want) // null: ""
		var left map[string]json.RawMessage
		if err := json.Unmarshal(rest, &left); err != nil || id != want {
			t.Fatalf("%q: id %q (want %q), rest %q (%v)", raw, id, want, rest, err)
		}
		delete(whole, argEpisodeID)
		if !reflect.DeepEqual(texts(whole), texts(left)) {
			t.Fatalf("%q: rest %q has other members", raw, rest)
		}
	})
}

// texts are a decoded object's members as text, for comparison.
func texts(m map[string]json.RawMessage) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}

// FuzzDecodeArgs reads start_episode's arguments: an error always names
// the tool and the argument at fault (never a decoder's words), and what
// is accepted decodes as encoding/json decodes it strictly.
func FuzzDecodeArgs(f *testing.F) {
	s := parseArgSchema(wireSchema("episode.reset.params"))
	for _, seed := range []string{`{}`, `{"task_id":"demo/library-001"}`, `{"task_id":7}`, `{"seed":1.5}`, `{"seed":100000000000000000000000}`,
		`{"tools":["execute_sql",1]}`, `{"tags":{"run":"r"}}`, `{"tags":"x"}`, `{"TASK_ID":"x"}`, `{"max_turns":null}`, `[]`, `null`, `{"reward":{"match":1}}`,
		`{"descriptions":true,"seed":-1,"dataset":"demo"}`, `{"tools":null}`, `{"seed":1e2}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var p schemas.ResetParams
		err := decodeArgs(ToolStartEpisode, s, raw, &p)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, ToolStartEpisode) || !strings.Contains(msg, "argument") || strings.Contains(msg, "invalid arguments") {
				t.Fatalf("%q: %s", raw, msg)
			}
			return
		}
		var q schemas.ResetParams
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&q); err != nil || !reflect.DeepEqual(p, q) {
			t.Fatalf("%q: accepted as %+v; encoding/json: %+v, %v", raw, p, q, err)
		}
	})
}
