package episodes_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/jsonrpc"
	"github.com/sqlgym/sqlgym/schemas"
)

// FuzzDispatch feeds arbitrary frames to the JSON-RPC dispatcher of a
// real manager: it must never panic, and every reply must be valid JSON
// holding JSON-RPC 2.0 responses.
func FuzzDispatch(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"server.info"}`,
		`{"jsonrpc":"2.0","id":2,"method":"episode.reset","params":{"task_id":"t/count","max_turns":2}}`,
		`{"jsonrpc":"2.0","id":3,"method":"episode.step","params":{"episode_id":"ep_1","action":{"text":"<sql>SELECT 1</sql>"}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tasks.list","params":{"limit":1}},{"jsonrpc":"2.0","method":"x"}]`,
		`{"jsonrpc":"2.0","id":null,"method":"episode.close","params":{"episode_id":""}}`,
		`[`, `{}`, `[1,2]`, `"x"`, `{"jsonrpc":"2.0","id":1e999,"method":"server.info"}`,
	} {
		f.Add([]byte(seed))
	}
	h := newHarness(f, options{})
	f.Fuzz(func(t *testing.T, frame []byte) {
		d := jsonrpc.NewDispatcher(h.mgr, schemas.Limits{})
		reply := d.Prepare(frame).Run(context.Background())
		if reply == nil {
			return
		}
		var one schemas.Response
		var many []schemas.Response
		if json.Unmarshal(reply, &one) != nil && json.Unmarshal(reply, &many) != nil {
			t.Fatalf("reply is not JSON-RPC: %s", reply)
		}
		if one.JSONRPC != "2.0" && len(many) == 0 {
			t.Fatalf("reply lacks jsonrpc 2.0: %s", reply)
		}
	})
}
