package episodes

import (
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/sqlgym/sqlgym/schemas"
)

// Defaults of the bytes live episodes keep.
const (
	DefaultMaxEpisodeBytes = 16 << 20
	DefaultMaxLiveBytes    = 1 << 30
)

// What an episode keeps beside the bytes of its strings: the session, its
// ledger, queue and maps (sessionOverhead), and each step's record and
// reward components (stepOverhead). Estimates, a little over Go's sizes.
const (
	sessionOverhead = 4 << 10
	stepOverhead    = 1 << 10
)

// keptCopies is how many times a step may keep its action's bytes: the
// action as sent, what is parsed from it (a text's call arguments and
// the text around them, a message's decoded arguments), and the keys
// that tell a repeated call. A step needs that much room before it runs.
const keptCopies = 3

// keptBytes counts the bytes live episodes keep, against a bound. Safe
// for concurrent use.
type keptBytes struct {
	max  int64
	used atomic.Int64
}

// take counts n more bytes if they fit under the bound.
func (k *keptBytes) take(n int64) bool {
	for {
		u := k.used.Load()
		if u+n > k.max {
			return false
		}
		if k.used.CompareAndSwap(u, u+n) {
			return true
		}
	}
}

// add counts n more bytes (fewer for a negative n), bound or not.
func (k *keptBytes) add(n int64) { k.used.Add(n) }

// resetBytes is what a new episode keeps: its prompt, its tags, the
// session itself.
func resetBytes(prompt []schemas.Message, tags json.RawMessage) int64 {
	n := int64(sessionOverhead + len(tags))
	for _, m := range prompt {
		n += int64(len(m.Role) + len(m.Content))
	}
	return n
}

// admitBytes counts a new episode's bytes, or says which bound it would
// pass: its own share (-32602) or what all live episodes keep (-32003).
func (m *Manager) admitBytes(s *Session, n int64) error {
	if n > m.cfg.MaxEpisodeBytes {
		m.metrics.bytesRefused("episode")
		return schemas.Errorf(schemas.CodeInvalidParams,
			"the episode's prompt and tags take %d bytes, more than the server's --max-episode-bytes (%d)", n, m.cfg.MaxEpisodeBytes)
	}
	if !m.kept.take(n) {
		m.metrics.bytesRefused("live")
		return fmt.Errorf("%w: live episodes keep %d bytes and this one needs %d, past the server's --max-live-bytes (%d); "+
			"close some or retry later", ErrCapacity, m.kept.used.Load(), n, m.cfg.MaxLiveBytes)
	}
	s.kept = n
	return nil
}

// releaseBytes uncounts what an episode that is no longer live kept.
func (m *Manager) releaseBytes(s *Session) {
	m.kept.add(-s.kept)
	s.kept = 0
}

// stepRoom is the room a step needs before it runs: keptCopies times its
// action, and one observation with its step record.
func (m *Manager) stepRoom(a schemas.Action) int64 {
	return keptCopies*actionBytes(a) + int64(m.cfg.Runner.Config().ObservationBytes) + stepOverhead
}

// reserveStep makes room for a step of s that will run action a, and
// returns the room, to be given to settleStep once the step has run (and
// before the episode is finished). It refuses a step that would pass a
// bound, before anything runs: the episode's share (-32602; the episode
// stays usable for a shorter action) or what all live episodes keep
// (-32003). The caller holds the episode's ticket.
func (m *Manager) reserveStep(s *Session, a schemas.Action) (int64, error) {
	if s.isEnded() {
		return 0, fmt.Errorf("%w: %s", ErrEnded, s.id)
	}
	n := m.stepRoom(a)
	if s.kept+n > m.cfg.MaxEpisodeBytes {
		m.metrics.bytesRefused("episode")
		return 0, schemas.Errorf(schemas.CodeInvalidParams,
			"action: this step needs room for %d bytes (%d times its action and one observation) and the episode keeps %d "+
				"of the server's --max-episode-bytes (%d); nothing was run or recorded: send a shorter action, or close the episode",
			n, keptCopies, s.kept, m.cfg.MaxEpisodeBytes)
	}
	if !m.kept.take(n) {
		m.metrics.bytesRefused("live")
		return 0, fmt.Errorf("%w: live episodes keep %d bytes and this step needs room for %d, past the server's --max-live-bytes (%d); "+
			"nothing was run or recorded: retry later", ErrCapacity, m.kept.used.Load(), n, m.cfg.MaxLiveBytes)
	}
	return n, nil
}

// settleStep turns a step's room into what the step added to its
// episode (nothing when it recorded nothing).
func (m *Manager) settleStep(s *Session, room int64) {
	m.kept.add(s.added - room)
	s.kept += s.added
	s.added = 0
}

// actionBytes is the bytes an action holds.
func actionBytes(a schemas.Action) int64 {
	n := len(a.Tool) + len(a.Arguments)
	if a.Text != nil {
		n += len(*a.Text)
	}
	if msg := a.Message; msg != nil {
		n += len(msg.Role) + strLen(msg.Content) + strLen(msg.ReasoningContent)
		for _, c := range msg.ToolCalls {
			n += len(c.ID) + len(c.Type) + len(c.Function.Name) + len(c.Function.Arguments)
		}
	}
	return int64(n)
}

// recordBytes is the bytes a step record holds, its action included
// (arguments that share the action's count once), and the keys its
// calls left to tell a repeat (at most their arguments, counted again).
func recordBytes(r *schemas.StepRecord) int64 {
	n := actionBytes(r.Action) + stepOverhead + int64(len(r.Arguments))
	if !sameBytes(r.Arguments, r.Action.Arguments) {
		n += int64(len(r.Arguments))
	}
	n += int64(len(r.Tool)+len(r.Observation)+strLen(r.Content)+len(r.FinishReason)) + errorBytes(r.Error) + metaBytes(r.ResultMeta)
	for _, c := range r.Calls {
		n += int64(len(c.ID)+len(c.Tool)+2*len(c.Arguments)+len(c.Observation)) + errorBytes(c.Error) + metaBytes(c.ResultMeta)
	}
	return n
}

func sameBytes(a, b []byte) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }

func strLen(s *string) int {
	if s == nil {
		return 0
	}
	return len(*s)
}

func errorBytes(e *schemas.ToolError) int64 {
	if e == nil {
		return 0
	}
	return int64(len(e.Code) + len(e.Message))
}

func metaBytes(m *schemas.ResultMeta) int64 {
	if m == nil {
		return 0
	}
	n := 0
	for _, c := range m.Columns {
		n += len(c)
	}
	return int64(n)
}
