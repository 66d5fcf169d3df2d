package episodes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// Bounds of the calls of one turn.
const (
	// DefaultMaxCallsPerTurn is how many calls of one turn run by
	// default (--max-calls-per-turn); the calls past it are answered as
	// not run.
	DefaultMaxCallsPerTurn = 8
	// MaxMessageCalls bounds the calls one action may hold, and so
	// --max-calls-per-turn: a message with more is an invalid step, a
	// text with more a format error.
	MaxMessageCalls = 1024
)

// call is one call of a turn: what the model asked for, and what running
// it did.
type call struct {
	id   string             // the model's, or call_<turn>_<i>
	c    tools.Call         // the tool and the arguments, as the model gave them
	perr *schemas.ToolError // why the call could not be read; it then runs nothing

	ran     bool // it ran (or failed to be read, which costs like a call)
	kind    reward.Turn
	eff     effect
	elapsed float64            // milliseconds
	comps   map[string]float64 // what it earned; nil when it did not run
	reward  float64
	content string // its tool message's content
}

// turnIn is an action read as one turn of the model.
type turnIn struct {
	calls   []call
	content *string            // the text beside the calls; nil for none
	perr    *schemas.ToolError // the turn holds no call at all: a format error
	extra   int                // calls the text held that were not read (tags)
	listed  bool               // the reply lists a tool message per call
	record  bool               // the record lists the calls
}

// readTurn reads an action as a turn: a parsed call, a text through the
// episode's format, or a message's content and calls.
func (s *session) readTurn(a schemas.Action, turn int) turnIn {
	switch {
	case a.Message != nil:
		return s.messageTurn(a.Message, turn)
	case a.Text != nil:
		return s.textTurn(*a.Text, turn)
	}
	return turnIn{calls: []call{{id: schemas.CallID(turn, 0), c: tools.Call{Name: a.Tool, Arguments: a.Arguments}}}}
}

// messageTurn reads an assistant message: every call it holds, with the
// id the model gave (call_<turn>_<i> when it gave none).
func (s *session) messageTurn(m *schemas.AssistantMessage, turn int) turnIn {
	t := turnIn{listed: true, record: true}
	if m.Content != nil && *m.Content != "" {
		t.content = m.Content
	}
	if len(m.ToolCalls) == 0 {
		t.perr = &schemas.ToolError{Code: schemas.ErrCodeFormat, Message: "no tool call found: the reply must call one of the tools (" +
			strings.Join(s.tools.Names(), ", ") + "); a reply with no call wastes the turn."}
		return t
	}
	t.calls = make([]call, len(m.ToolCalls))
	for i, tc := range m.ToolCalls {
		t.calls[i] = call{id: callID(tc.ID, turn, i), c: tools.Call{Name: tc.Function.Name, Arguments: tc.Function.Arguments}}
	}
	return t
}

// textTurn reads a text with the episode's format: in hermes every call
// block, in tags the first tag.
func (s *session) textTurn(text string, turn int) turnIn {
	pt, perr := tools.ParseTurn(s.format, text)
	if perr != nil {
		return turnIn{perr: perr}
	}
	if len(pt.Calls) > MaxMessageCalls {
		return turnIn{perr: &schemas.ToolError{Code: schemas.ErrCodeFormat, Message: fmt.Sprintf(
			"the reply holds %d tool calls; a reply may hold at most %d, and a turn runs at most %d of them.",
			len(pt.Calls), MaxMessageCalls, MaxMessageCalls)}}
	}
	t := turnIn{extra: pt.Extra, listed: s.format == schemas.FormatHermes, record: len(pt.Calls) > 1}
	if pt.Content != "" {
		t.content = &pt.Content
	}
	t.calls = make([]call, len(pt.Calls))
	for i, pc := range pt.Calls {
		t.calls[i] = call{id: schemas.CallID(turn, i), c: pc.Call, perr: pc.Err}
	}
	return t
}

// callID is the id a call goes by: the model's, or call_<turn>_<i>.
func callID(given string, turn, i int) string {
	if given != "" {
		return given
	}
	return schemas.CallID(turn, i)
}

// runCalls runs the turn's calls in order: a call that could not be read
// fails with its format error, and a call after a submit, or past the
// server's bound, does not run.
func (s *session) runCalls(ctx context.Context, t *turnIn) error {
	submitted := ""
	for i := range t.calls {
		c := &t.calls[i]
		switch {
		case submitted != "":
			c.notRun("the submit of call " + submitted + ", earlier in this reply, ended the episode.")
		case i >= s.maxCalls:
			c.notRun(fmt.Sprintf("a turn runs at most %d calls (the server's --max-calls-per-turn), and this reply holds %d.",
				s.maxCalls, len(t.calls)))
		case c.perr != nil:
			c.ran, c.kind, c.eff = true, reward.TurnFormatError, effect{Result: tools.Result{Error: c.perr}}
		default:
			start := s.deps.now()
			kind, eff, err := s.run(ctx, c.c)
			if err != nil {
				return err
			}
			c.ran, c.kind, c.eff, c.elapsed = true, kind, eff, schemas.Milliseconds(s.deps.now().Sub(start))
			if eff.final != nil {
				submitted = strconv.Quote(c.id)
			}
		}
	}
	return nil
}

// notRun answers a call that did not run, saying why.
func (c *call) notRun(why string) {
	c.eff = effect{Result: tools.Result{Content: "Not run: " + why, Error: &schemas.ToolError{Code: schemas.ErrCodeNotRun, Message: why}}}
}

// last is the last call that ran; nil for a turn with no call.
func (t *turnIn) last() *call {
	for i := len(t.calls) - 1; i >= 0; i-- {
		if t.calls[i].ran {
			return &t.calls[i]
		}
	}
	return nil
}

// pay pays each call that ran its turn component, in order, and the
// turn's final components (fin, nil while the episode goes on) with the
// last of them; a turn with no call pays a format error. It returns the
// turn's components, each summed over its calls, and its reward.
func (s *session) pay(t *turnIn, fin *reward.Final) (map[string]float64, float64) {
	last := t.last()
	switch {
	case last == nil:
		return s.ledger.Step(reward.TurnFormatError, fin)
	case len(t.calls) == 1:
		last.comps, last.reward = s.ledger.Step(last.kind, fin)
		return last.comps, last.reward
	}
	comps, sum := map[string]float64{}, 0.0
	for i := range t.calls {
		c := &t.calls[i]
		if !c.ran {
			continue
		}
		var f *reward.Final
		if c == last {
			f = fin
		}
		c.comps, c.reward = s.ledger.Step(c.kind, f)
		for k, v := range c.comps {
			comps[k] += v
		}
		sum += c.reward
	}
	return comps, sum
}

// messages sets each call's tool message content: what it got, or its
// error; the last one also gets the turn's closing lines (the ignored
// calls of a text, the turns left or why the episode ended). A turn with
// no call gets its error so. It returns the observation: the one
// content, or every call's in order.
func (s *session) messages(t *turnIn, outcome string, left int) string {
	if len(t.calls) == 0 {
		return s.observation(&effect{Result: tools.Result{Error: t.perr}}, 0, outcome, left)
	}
	for i := range t.calls {
		c := &t.calls[i]
		if i == len(t.calls)-1 {
			c.content = s.observation(&c.eff, t.extra, outcome, left)
			break
		}
		c.content = c.eff.Content
		if c.eff.Error != nil && c.content == "" {
			c.content = "Error: " + c.eff.Error.Message
		}
	}
	if len(t.calls) == 1 {
		return t.calls[0].content
	}
	var b strings.Builder
	for i, c := range t.calls {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "Call %d", i+1)
		if c.c.Name != "" {
			fmt.Fprintf(&b, " (%s)", c.c.Name)
		}
		b.WriteString(":\n")
		b.WriteString(c.content)
	}
	return b.String()
}

// toolMessages are the reply's observations: a tool message per call.
func (t *turnIn) toolMessages() []schemas.ToolMessage {
	out := make([]schemas.ToolMessage, len(t.calls))
	for i, c := range t.calls {
		out[i] = schemas.ToolMessage{Role: "tool", ToolCallID: c.id, Name: c.c.Name, Content: c.content}
	}
	return out
}

// infos are the reply's info.calls: what each call got and earned.
func (t *turnIn) infos() []schemas.CallInfo {
	out := make([]schemas.CallInfo, len(t.calls))
	for i, c := range t.calls {
		out[i] = schemas.CallInfo{ID: c.id, Tool: c.c.Name, Error: c.eff.Error, Result: c.eff.Info, RewardComponents: c.comps}
	}
	return out
}

// records are the calls as the trajectory keeps them.
func (t *turnIn) records() []schemas.CallRecord {
	out := make([]schemas.CallRecord, len(t.calls))
	for i, c := range t.calls {
		out[i] = schemas.CallRecord{ID: c.id, Tool: c.c.Name, Arguments: decodedArgs(c.c.Arguments),
			Observation: c.content, Error: c.eff.Error, ResultMeta: c.eff.Meta, RewardComponents: c.comps, ElapsedMS: c.elapsed}
	}
	return out
}

// decodedArgs are a call's arguments as the record keeps them: the object
// a JSON string held, {} for none, and as given when they are no object.
func decodedArgs(raw json.RawMessage) json.RawMessage {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return json.RawMessage("{}")
	}
	if trimmed[0] == '"' {
		var s string
		if json.Unmarshal(trimmed, &s) == nil && strings.TrimSpace(s) == "" {
			return json.RawMessage("{}")
		}
	}
	return tools.UnwrapArgs(raw)
}
