package episodes_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

// batchReply is one reply of a batch, as the wire has it.
type batchReply struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *schemas.Error  `json:"error"`
}

func tasksListBatch(n int) string {
	items := make([]string, n)
	for i := range items {
		items[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tasks.list","params":{"limit":10000}}`, i)
	}
	return "[" + strings.Join(items, ",") + "]"
}

// TestBatchPastMaxBatchIsRefusedWhole: a batch with more requests than
// --max-batch is one -32600 error, and none of its requests runs.
func TestBatchPastMaxBatchIsRefusedWhole(t *testing.T) {
	h := newHarness(t, options{limits: schemas.Limits{MaxBatch: 8}})
	var resp schemas.Response
	if err := json.Unmarshal(h.raw().roundTrip(tasksListBatch(9)), &resp); err != nil {
		t.Fatalf("want one error object for the batch: %v", err)
	}
	if resp.Error == nil || resp.Error.Code != schemas.CodeInvalidRequest ||
		!strings.Contains(resp.Error.Message, "at most 8 per batch (the server's --max-batch)") {
		t.Fatalf("got %+v, want -32600 naming --max-batch", resp.Error)
	}
	var replies []batchReply
	if err := json.Unmarshal(h.raw().roundTrip(tasksListBatch(8)), &replies); err != nil || len(replies) != 8 {
		t.Fatalf("a batch of exactly --max-batch: %d replies, %v", len(replies), err)
	}
}

// TestBatchRepliesStayWithinTheReplyBudget: a batch whose replies would
// amplify a small frame into a huge one gets a reply frame no larger than
// --max-reply-bytes; every request is answered, the ones past the budget
// with -32003, and a step that was not run leaves its episode usable.
func TestBatchRepliesStayWithinTheReplyBudget(t *testing.T) {
	const budget = 256 << 10
	h := newHarness(t, options{limits: schemas.Limits{MaxReplyBytes: budget}})
	ep := reset(t, h.dial(), schemas.ResetParams{TaskID: "t/count"}).EpisodeID
	items := strings.TrimSuffix(tasksListBatch(1000), "]")
	items += fmt.Sprintf(`,{"jsonrpc":"2.0","id":1000,"method":"episode.step","params":{"episode_id":%q,"action":{"tool":"execute_sql","arguments":{"sql":"SELECT 1"}}}}]`, ep)
	frame := h.raw().roundTrip(items)
	if len(frame) > budget {
		t.Fatalf("reply frame of %d bytes, past the %d-byte budget", len(frame), budget)
	}
	var replies []batchReply
	if err := json.Unmarshal(frame, &replies); err != nil {
		t.Fatal(err)
	}
	if len(replies) != 1001 {
		t.Fatalf("%d replies, want one per request (1001)", len(replies))
	}
	ok, refused := 0, 0
	for _, r := range replies {
		switch {
		case r.Error == nil:
			ok++
		case r.Error.Code == schemas.CodeCapacity && strings.Contains(r.Error.Message, "--max-reply-bytes"):
			refused++
		default:
			t.Fatalf("reply %d: unexpected error %+v", r.ID, r.Error)
		}
	}
	if ok == 0 || refused == 0 {
		t.Fatalf("%d answered and %d refused: want both", ok, refused)
	}
	// Whether or not the batch's step ran, the episode goes on.
	if r := step(t, h.dial(), ep, execSQL("SELECT 2")); r.Info.Error != nil {
		t.Fatalf("the episode after the batch: %+v", r.Info.Error)
	}
}

// TestOversizedReplyIsAnError: one call whose reply alone exceeds the
// budget (an episode.get of a long trajectory) gets -32003 saying so,
// and the reply frame stays small.
func TestOversizedReplyIsAnError(t *testing.T) {
	const budget = 32 << 10
	h := newHarness(t, options{limits: schemas.Limits{MaxReplyBytes: budget}})
	c := h.dial()
	ep := reset(t, c, schemas.ResetParams{TaskID: "t/count"}).EpisodeID
	long := "SELECT '" + strings.Repeat("x", 10<<10) + "'"
	for range 4 {
		step(t, c, ep, execSQL(long))
	}
	_, err := c.Episode(t.Context(), ep)
	if rpcCode(err) != schemas.CodeCapacity || !strings.Contains(err.Error(), "reply too large") {
		t.Fatalf("episode.get of a trajectory past the reply budget: %v, want -32003 reply too large", err)
	}
}
