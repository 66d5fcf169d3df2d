package main

import (
	"context"
	"slices"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

// waitForLog waits, up to waitfor's deadline, for a log entry with
// message msg.
func waitForLog(t *testing.T, logs *observer.ObservedLogs, msg string) {
	t.Helper()
	if !waitfor.Within(waitfor.Timeout, func() bool { return logs.FilterMessage(msg).Len() > 0 }) {
		t.Fatalf("no %q logged; the logs: %v", msg, logMessages(logs))
	}
}

func logMessages(logs *observer.ObservedLogs) []string {
	var msgs []string
	for _, e := range logs.All() {
		msgs = append(msgs, e.Message)
	}
	return msgs
}

// TestServeWarnsOfDamage starts serve on a damaged log: it logs a
// warning naming each damaged segment, its lines and episodes, and
// serves episodes all the same.
func TestServeWarnsOfDamage(t *testing.T) {
	d := newDamagedLog(t)
	url, logs := serveObserved(t, []string{"--data-dir", d.dir})
	c, err := client.Dial(context.Background(), url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r, err := c.Reset(context.Background(), schemas.ResetParams{TaskID: "demo/library-001"})
	if err != nil {
		t.Fatalf("a reset on the server with a damaged log: %v", err)
	}
	if _, err := c.Step(context.Background(), r.EpisodeID, client.ToolCall("execute_sql", map[string]any{"sql": "SELECT 1"})); err != nil {
		t.Fatalf("a step on the server with a damaged log: %v", err)
	}
	waitForLog(t, logs, "trajectory log damaged; the undamaged episodes are served and read")
	var segs []string
	for _, e := range logs.FilterMessage("damaged trajectory segment").All() {
		f := e.ContextMap()
		seg, _ := f["segment"].(string)
		segs = append(segs, seg)
		if e.Level != zapcore.WarnLevel {
			t.Errorf("%s logged at %s, want warn", seg, e.Level)
		}
		if lines, _ := f["lines"].(int64); lines != int64(d.lines[seg]) {
			t.Errorf("%s logged with %v lines, want %d", seg, f["lines"], d.lines[seg])
		}
		eps, _ := f["episodes"].([]any)
		unknown, _ := f["episodes_unidentified"].(int64)
		if len(eps)+int(unknown) != len(d.touched[seg]) {
			t.Errorf("%s logged %d episodes and %d unidentified, want %d touched: %v", seg, len(eps), unknown, len(d.touched[seg]), f)
		}
		for _, ep := range eps {
			if !d.touched[seg][ep.(string)] {
				t.Errorf("%s logged %v, which it did not touch", seg, ep)
			}
		}
	}
	if !slices.Equal(segs, damagedSegments) {
		t.Errorf("warnings for segments %v, want %v", segs, damagedSegments)
	}
}

// TestServeVerifiesCleanLog starts serve on a clean log: it says so and
// warns of nothing.
func TestServeVerifiesCleanLog(t *testing.T) {
	dir := t.TempDir()
	recordSessions(t, dir, 2, 4)
	_, logs := serveObserved(t, []string{"--data-dir", dir})
	waitForLog(t, logs, "trajectory log verified")
	if n := logs.FilterLevelExact(zapcore.WarnLevel).Len(); n != 0 {
		t.Errorf("%d warnings on a clean log: %v", n, logMessages(logs))
	}
}

// serveObserved serves the stack that serve's args build on a loopback
// port until the test ends, logging to an observer, and returns its URL
// and logs.
func serveObserved(t *testing.T, args []string) (string, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zapcore.InfoLevel)
	return serveBackground(t, args, zap.New(core)), logs
}
