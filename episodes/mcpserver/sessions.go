package mcpserver

import (
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlgym/sqlgym/base/fairshare"
)

// sessionTable holds each MCP session's episode, and shares the HTTP
// sessions' rooms (--max-mcp-sessions) among clients: a session is its
// creator's (the address its initialize came from), through
// base/fairshare.
type sessionTable struct {
	mu    sync.Mutex
	state map[*mcp.ServerSession]*sessionState
	pool  *fairshare.Pool
	open  map[string]*openSession // HTTP sessions by id, each a reclaimable room
}

// sessionState is one session's episode: the last one it started, live
// or ended ("" before the first), which the session holds (owners).
type sessionState struct {
	mu      sync.Mutex // guards episode; held by start_episode across its calls
	episode string
}

func (t *sessionTable) init(max int) {
	t.state = map[*mcp.ServerSession]*sessionState{}
	t.pool = fairshare.New(max, true)
	t.open = map[string]*openSession{}
}

// track keeps an HTTP session that has opened, by its id.
func (t *sessionTable) track(o *openSession) {
	t.mu.Lock()
	t.open[o.ss.ID()] = o
	t.mu.Unlock()
	o.ticket.Hold(o)
}

// untrack drops an HTTP session that has ended.
func (t *sessionTable) untrack(o *openSession) {
	t.mu.Lock()
	delete(t.open, o.ss.ID())
	t.mu.Unlock()
}

// byID is the open HTTP session of that id, or nil.
func (t *sessionTable) byID(id string) *openSession {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.open[id]
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

// openSession is an open HTTP session as a fairshare.Item: idle while no
// POST of its is being answered (a GET's event stream does not count,
// so that a client cannot pin its sessions by listening on them).
type openSession struct {
	ss     *mcp.ServerSession
	ticket *fairshare.Ticket

	mu        sync.Mutex
	inFlight  int
	last      time.Time
	reclaimed bool
}

// begin marks a POST in hand.
func (o *openSession) begin() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.inFlight++
}

// done marks a POST answered at now.
func (o *openSession) done(now time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.inFlight--
	o.last = now
}

// LastUsed is when a POST of the session was last answered.
func (o *openSession) LastUsed() time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.last
}

// Reclaim closes the session unless a POST of its is in hand: its room
// is given back at once, and its watcher ends its episode as an idle
// session's (wasReclaimed).
func (o *openSession) Reclaim() bool {
	o.mu.Lock()
	if o.inFlight > 0 || o.reclaimed {
		o.mu.Unlock()
		return false
	}
	o.reclaimed = true
	o.mu.Unlock()
	o.ticket.Release()
	o.ss.Close()
	return true
}

// wasReclaimed reports whether the session was closed by Reclaim.
func (o *openSession) wasReclaimed() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.reclaimed
}
