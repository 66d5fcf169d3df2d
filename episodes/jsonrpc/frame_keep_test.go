package jsonrpc

import (
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/sqlgym/sqlgym/schemas"
)

// TestJobKeepsNoLargeFrame: once a large frame is parsed, the job keeps
// what its request decodes to, not the frame too: the reading budget
// takes the frame back then, and the connection counts the job as the
// frame's size, not twice that.
func TestJobKeepsNoLargeFrame(t *testing.T) {
	d := benchDispatcher(t)
	text := strings.Repeat("x", 1<<20)
	frame := []byte(`{"jsonrpc":"2.0","id":"step-1","method":"episode.step","params":{"episode_id":"ep_gone","action":{"text":"` +
		text + `"}}}`)
	job := d.Prepare(frame)
	if c := job.calls[0]; c.err == nil || c.err.Code != schemas.CodeEpisodeNotFound || string(c.id) != `"step-1"` {
		t.Fatalf("call %+v, want episode not found for id \"step-1\"", c)
	}
	kept := weak.Make(&frame[0])
	frame = nil
	runtime.GC()
	if kept.Value() != nil {
		t.Error("the job keeps its 1 MiB frame alive until it runs")
	}
	if reply := job.Run(t.Context()); !strings.Contains(string(reply), `"id":"step-1"`) {
		t.Errorf("reply %s, want one to id \"step-1\"", reply)
	}
}
