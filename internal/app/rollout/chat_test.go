package rollout_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/internal/app/rollout"
)

// statusModel answers every request with status, counting the tries and
// keeping the last request and its Authorization header.
type statusModel struct {
	mu    sync.Mutex
	tries int
	auth  string
	req   map[string]any
}

func newStatusModel(t *testing.T, status int) (*statusModel, string) {
	m := &statusModel{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.tries++
		m.auth = r.Header.Get("Authorization")
		json.NewDecoder(r.Body).Decode(&m.req)
		m.mu.Unlock()
		http.Error(w, `{"error":{"message":"scripted"}}`, status)
	}))
	t.Cleanup(srv.Close)
	return m, srv.URL + "/v1"
}

// TestChatSendsOptionsAndRetriesOnlyWhatIsWorthIt: the API key goes as
// a bearer token and the sampling options into the request; a 500 is
// tried exactly Attempts times, a 400 once.
func TestChatSendsOptionsAndRetriesOnlyWhatIsWorthIt(t *testing.T) {
	temp, topP := 0.7, 0.9
	for _, tt := range []struct {
		status, tries int
	}{{500, 4}, {400, 1}} {
		m, url := newStatusModel(t, tt.status)
		c, err := rollout.NewChat(rollout.ChatConfig{BaseURL: url, Model: "m", APIKey: "k3y", Temperature: &temp, TopP: &topP,
			MaxTokens: 64, Attempts: 4, Backoff: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = c.Complete(context.Background(), []rollout.ChatMessage{{Role: "user", Content: "q"}}, nil)
		if err == nil || !strings.Contains(err.Error(), "HTTP "+strconv.Itoa(tt.status)) {
			t.Errorf("HTTP %d: error %v, want one naming the status", tt.status, err)
		}
		if m.tries != tt.tries {
			t.Errorf("HTTP %d: %d tries, want %d", tt.status, m.tries, tt.tries)
		}
		if m.auth != "Bearer k3y" || m.req["temperature"] != 0.7 || m.req["top_p"] != 0.9 || m.req["max_tokens"] != 64.0 {
			t.Errorf("HTTP %d: Authorization %q, request %v; want the key and the sampling options", tt.status, m.auth, m.req)
		}
	}
}

// TestRunStopsAfterFailuresInARow: an endpoint that fails every request
// stops the run after MaxFailuresInARow episodes, each closed and
// recorded, the rest never started.
func TestRunStopsAfterFailuresInARow(t *testing.T) {
	w := newWorld(t)
	_, url := newStatusModel(t, 503)
	c, err := rollout.NewChat(rollout.ChatConfig{BaseURL: url, Model: "m", Attempts: 3, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	sum := rollout.Run(context.Background(), rollout.Config{Env: w.env, Chat: c, Run: "down", Model: "m", Concurrency: 1},
		rollout.Plan([]string{taskA, taskB, taskC}, 2, nil))
	if sum.Failed != rollout.MaxFailuresInARow || sum.Finished != 0 || sum.Err == nil ||
		!strings.Contains(sum.Err.Error(), "in a row could not finish") {
		t.Errorf("summary %+v, want %d failed and the run stopped", sum, rollout.MaxFailuresInARow)
	}
	if eps := w.episodes(t, "down", true); len(eps) != rollout.MaxFailuresInARow {
		t.Errorf("%d episodes recorded, want %d (closed early)", len(eps), rollout.MaxFailuresInARow)
	}
}
