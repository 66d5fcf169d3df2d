package mcpserver

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// principalOf names who makes a call, for the ownership of episodes: the
// bearer token its HTTP request carried, by its SHA-256 (the token is
// never kept), or "" when it carried none (stdio; a server without
// --token, whose guard admits loopback clients alone).
func principalOf(req *mcp.CallToolRequest) string {
	if req.Extra == nil {
		return ""
	}
	scheme, token, _ := strings.Cut(strings.TrimSpace(req.Extra.Header.Get("Authorization")), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	sum := sha256.Sum256([]byte(strings.TrimLeft(token, " ")))
	return "bearer:" + hex.EncodeToString(sum[:])
}

// owners are the episodes this server started: who started each, whether
// a session holds it, and when a call last used it. An episode no
// session holds and no call has used for idle is closed (no_submit, when
// it is still live) and forgotten; until then any call of its principal
// may name it.
type owners struct {
	idle    time.Duration
	close   func(id string)   // closes an expired episode, on the expiry's goroutine
	mu      sync.Mutex        // guards byID and stopped
	byID    map[string]*owned // episode id -> its entry
	stopped bool              // no expiry runs any more: the server is closing
	expiry  sync.WaitGroup    // expiries closing their episodes
}

// owned is one episode's entry in owners.
type owned struct {
	principal string
	held      int         // sessions whose episode it is
	busy      int         // calls on it that have not returned
	lastUse   time.Time   // when it started, or its last call returned
	timer     *time.Timer // its expiry, armed while it is neither held nor busy
}

func (o *owners) init(idle time.Duration, close func(string)) {
	o.idle, o.close, o.byID = idle, close, map[string]*owned{}
}

// add records an episode started by principal, held by the session that
// started it.
func (o *owners) add(id, principal string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.byID[id] = &owned{principal: principal, held: 1, lastUse: time.Now()}
}

// acquire marks a call on the episode as running, when principal started
// it; release must follow. Any other episode is refused with one
// message, whether it does not exist, was not started over MCP, or is
// another principal's: the answer tells nothing of others' episodes.
func (o *owners) acquire(id, principal string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	e := o.byID[id]
	if e == nil || e.principal != principal {
		return fmt.Errorf("no episode %q of yours: episode_id names an episode start_episode started for the same client "+
			"(the same bearer token); one that no session held and no call used for %s was closed (no_submit) and forgotten", id, o.idle)
	}
	e.busy++
	if e.timer != nil {
		e.timer.Stop()
	}
	return nil
}

// release ends a call that acquire let run.
func (o *owners) release(id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if e := o.byID[id]; e != nil {
		e.busy--
		e.lastUse = time.Now()
		o.arm(id, e)
	}
}

// unhold says a session no longer holds the episode: it ended, or
// started another.
func (o *owners) unhold(id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if e := o.byID[id]; e != nil {
		e.held--
		o.arm(id, e)
	}
}

// arm sets the episode's expiry, idle after its last use, when nothing
// holds it. Called with o.mu held.
func (o *owners) arm(id string, e *owned) {
	if e.held > 0 || e.busy > 0 || o.stopped {
		return
	}
	d := time.Until(e.lastUse.Add(o.idle))
	if e.timer == nil {
		e.timer = time.AfterFunc(d, func() { o.expire(id) })
		return
	}
	e.timer.Reset(d)
}

// expire closes and forgets an episode whose time has come, unless a
// session or call took it since the timer was set.
func (o *owners) expire(id string) {
	o.mu.Lock()
	e := o.byID[id]
	if e == nil || e.held > 0 || e.busy > 0 || o.stopped {
		o.mu.Unlock()
		return
	}
	if d := time.Until(e.lastUse.Add(o.idle)); d > 0 {
		e.timer.Reset(d)
		o.mu.Unlock()
		return
	}
	delete(o.byID, id)
	o.expiry.Add(1)
	o.mu.Unlock()
	defer o.expiry.Done()
	o.close(id)
}

// stop ends every expiry, waiting for those closing their episodes: the
// episodes left live are the Manager's shutdown's.
func (o *owners) stop() {
	o.mu.Lock()
	o.stopped = true
	for _, e := range o.byID {
		if e.timer != nil {
			e.timer.Stop()
		}
	}
	o.mu.Unlock()
	o.expiry.Wait()
}
