package openenv_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// sessions is how many OpenEnv sessions TestConcurrentSessions runs at
// once.
const sessions = 64

// TestConcurrentSessions plays 64 whole episodes at once, each on its own
// WebSocket, each submitting its task's gold: every one must end correct
// with no error reply.
func TestConcurrentSessions(t *testing.T) {
	s := start(t, nil, nil)
	errs := make(chan error, sessions)
	var wg sync.WaitGroup
	for i := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			task := s.Dataset.Tasks[i%len(s.Dataset.Tasks)]
			if err := playGold(s.ws, task.ID, task.GoldSQL); err != nil {
				errs <- fmt.Errorf("session %d (%s): %w", i, task.ID, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	waitfor.Until(t, "every session to end", func() bool { return s.handler.ActiveSessions() == 0 })
}

// playGold plays one episode on its own socket: reset, inspect_schema,
// execute_sql and submit of the gold, then close; the end must be
// correct.
func playGold(url, taskID, gold string) error {
	conn, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		return err
	}
	defer conn.Close()
	msgs := []map[string]any{
		reset(map[string]any{"task_id": taskID}),
		callTool("inspect_schema", map[string]any{}),
		callTool("execute_sql", map[string]any{"sql": gold}),
		callTool("submit", map[string]any{"sql": gold}),
		{"type": "state"},
	}
	var last map[string]any
	for _, m := range msgs {
		if err := conn.WriteJSON(m); err != nil {
			return err
		}
		last = nil
		if err := conn.ReadJSON(&last); err != nil {
			return err
		}
		if last["type"] == "error" {
			return fmt.Errorf("error reply to %v: %v", m["type"], last["data"])
		}
	}
	if st := last["data"].(map[string]any); st["outcome"] != "correct" || st["done"] != true {
		return fmt.Errorf("ended %v", st)
	}
	return conn.WriteJSON(map[string]string{"type": "close"})
}
