package episodes

import (
	"encoding/json"
	"strings"
	"sync/atomic"

	"github.com/sqlgym/sqlgym/schemas"
)

// Defaults of the bytes live episodes keep.
const (
	DefaultMaxEpisodeBytes = 16 << 20
	DefaultMaxLiveBytes    = 1 << 30
)

// What an episode keeps beside the bytes of its strings: the session, its
// ledger, queue and maps (sessionOverhead), each step's record and reward
// components (stepOverhead), and each call of a turn of several (its
// record, info and not-run note: callOverhead). Estimates, a little over
// Go's sizes.
const (
	sessionOverhead = 4 << 10
	stepOverhead    = 1 << 10
	callOverhead    = 512
)

// copiesKept is how many times a step may keep its action's bytes: the
// action as sent and the keys that tell a repeated call (a tool call's
// arguments are recorded as sent); a text's calls and the text around
// them parsed out of it too; a message's arguments decoded for the
// calls' records and, the last call's, once more for the step's. A step
// needs that much room before it runs.
func copiesKept(a schemas.Action) int64 {
	switch {
	case a.Message != nil:
		return 4
	case a.Text != nil:
		return 3
	}
	return 2
}

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
func (m *Manager) admitBytes(s *session, n int64) error {
	if n > m.cfg.MaxEpisodeBytes {
		m.metrics.bytesRefused("episode")
		return errorf(InvalidArgument,
			"the episode's prompt and tags take %d bytes, more than the server's --max-episode-bytes (%d)", n, m.cfg.MaxEpisodeBytes)
	}
	if !m.kept.take(n) {
		m.metrics.bytesRefused("live")
		return stateErrorf(Capacity, "live episodes keep %d bytes and this one needs %d, past the server's --max-live-bytes (%d); "+
			"close some or retry later", m.kept.used.Load(), n, m.cfg.MaxLiveBytes)
	}
	s.kept = n
	return nil
}

// releaseBytes uncounts what an episode that is no longer live kept.
func (m *Manager) releaseBytes(s *session) {
	m.kept.add(-s.kept)
	s.kept = 0
}

// stepRoom is the room a step of s needs before it runs: copiesKept
// times its action, and the observations of the calls it may run (each
// kept twice: in the step's observation and in its call's record) with
// their records. A message holds its calls, a hermes text at most one per
// <tool_call> it holds, a tags text one.
func (m *Manager) stepRoom(s *session, a schemas.Action) int64 {
	calls := 1
	switch {
	case a.Message != nil:
		calls = len(a.Message.ToolCalls)
	case a.Text != nil && s.format == schemas.FormatHermes:
		calls = min(strings.Count(*a.Text, hermesCallOpen), MaxMessageCalls)
	}
	calls = max(calls, 1)
	ran := int64(min(calls, s.maxCalls))
	obs := int64(m.cfg.Runner.Config().ObservationBytes)
	return copiesKept(a)*actionBytes(a) + 2*ran*obs + int64(calls)*callOverhead + stepOverhead
}

// hermesCallOpen opens each call of a hermes text (tools' parser).
const hermesCallOpen = "<tool_call>"

// reserveStep makes room for a step of s that will run action a, and
// returns the room, to be given to settleStep once the step has run (and
// before the episode is finished). It refuses a step that would pass a
// bound, before anything runs: the episode's share (-32602; the episode
// stays usable for a shorter action) or what all live episodes keep
// (-32003). The caller holds the episode's ticket.
func (m *Manager) reserveStep(s *session, a schemas.Action) (int64, error) {
	if s.isEnded() {
		return 0, stateErrorf(Ended, "%s", s.id)
	}
	n := m.stepRoom(s, a)
	if s.kept+n > m.cfg.MaxEpisodeBytes {
		m.metrics.bytesRefused("episode")
		return 0, errorf(InvalidArgument,
			"action: this step needs room for %d bytes (%d times its action, and its calls' observations) and the episode keeps %d "+
				"of the server's --max-episode-bytes (%d); nothing was run or recorded: send a shorter action, or close the episode",
			n, copiesKept(a), s.kept, m.cfg.MaxEpisodeBytes)
	}
	if !m.kept.take(n) {
		m.metrics.bytesRefused("live")
		return 0, stateErrorf(Capacity, "live episodes keep %d bytes and this step needs room for %d, past the server's --max-live-bytes (%d); "+
			"nothing was run or recorded: retry later", m.kept.used.Load(), n, m.cfg.MaxLiveBytes)
	}
	return n, nil
}

// settleStep turns a step's room into what the step added to its
// episode (nothing when it recorded nothing).
func (m *Manager) settleStep(s *session, room int64) {
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

// recordBytes is the bytes a step record holds, its action included,
// and the keys its calls left to tell a repeat (at most their arguments,
// counted again). What the record shares with its action (a tool call's
// arguments, a message's content, a call's object arguments) and the
// step's arguments with its last call's count once.
func recordBytes(r *schemas.StepRecord) int64 {
	a := r.Action
	n := actionBytes(a) + stepOverhead + int64(len(r.Arguments)) // the key
	if !sameBytes(r.Arguments, a.Arguments) && (len(r.Calls) == 0 || !sameBytes(r.Arguments, r.Calls[len(r.Calls)-1].Arguments)) {
		n += int64(len(r.Arguments))
	}
	if a.Message == nil || r.Content != a.Message.Content {
		n += int64(strLen(r.Content))
	}
	n += int64(len(r.Tool)+len(r.Observation)+len(r.FinishReason)) + errorBytes(r.Error) + metaBytes(r.ResultMeta)
	for i, c := range r.Calls {
		n += callOverhead + int64(len(c.ID)+len(c.Tool)+len(c.Observation)) + errorBytes(c.Error) + metaBytes(c.ResultMeta)
		if a.Message == nil || i >= len(a.Message.ToolCalls) || !sameBytes(c.Arguments, a.Message.ToolCalls[i].Function.Arguments) {
			n += int64(len(c.Arguments))
		}
		if i < len(r.Calls)-1 {
			n += int64(len(c.Arguments)) // its key; the last call's is the step's
		}
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
