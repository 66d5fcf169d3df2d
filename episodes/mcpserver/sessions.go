package mcpserver

import (
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionTable holds each MCP session's episode, and counts the HTTP
// sessions against their bound.
type sessionTable struct {
	mu    sync.Mutex
	state map[*mcp.ServerSession]*sessionState
	max   int // HTTP sessions open at once
	open  int // HTTP sessions open or being opened
}

// sessionState is one session's episode: the last one it started, live
// or ended ("" before the first), which the session holds (owners).
type sessionState struct {
	mu      sync.Mutex // guards episode; held by start_episode across its calls
	episode string
}

func (t *sessionTable) init(max int) {
	t.state = map[*mcp.ServerSession]*sessionState{}
	t.max = max
}

// take counts a new HTTP session; false when max are open.
func (t *sessionTable) take() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.open >= t.max {
		return false
	}
	t.open++
	return true
}

// give uncounts an HTTP session that has ended, or was never opened.
func (t *sessionTable) give() {
	t.mu.Lock()
	t.open--
	t.mu.Unlock()
}

// of returns the session's state, made on its first use.
func (t *sessionTable) of(ss *mcp.ServerSession) *sessionState {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.state[ss]
	if st == nil {
		st = new(sessionState)
		t.state[ss] = st
	}
	return st
}

// forget drops an ended session's state and returns its episode.
func (t *sessionTable) forget(ss *mcp.ServerSession) string {
	t.mu.Lock()
	st := t.state[ss]
	delete(t.state, ss)
	t.mu.Unlock()
	if st == nil {
		return ""
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.episode
}

// current is the session's episode.
func (st *sessionState) current() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.episode
}
