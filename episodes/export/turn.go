package export

import (
	"strings"

	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// turn is one recorded step as the export writes it: an assistant turn
// of calls, or one written as text. Never both: a text action is either
// its parsed calls with the text outside them as content, or its raw
// text with no calls.
type turn struct {
	content, reasoning string
	// calls are the turn's calls, each with its id, arguments and
	// observation; nil for a turn written as text.
	calls []schemas.CallRecord
	// observation comes back as a user turn after a turn written as
	// text.
	observation string
}

// readTurn reads step st of an episode in action format format:
//
//   - a message (action.message) is its content and reasoning and every
//     call it made; one without calls is written as text;
//   - a call the client parsed (action.tool) is that call, with the
//     step's content if it recorded any;
//   - a text action (action.text) is its calls with the text outside
//     them as content (see textCalls) when it is in the hermes format,
//     every call block in it was read, and o asks for calls; otherwise
//     it is written as text: its raw completion, and no calls.
func readTurn(st *schemas.StepRecord, format string, o ChatOptions) turn {
	calls := withArguments(st.CallList(), st)
	switch a := &st.Action; {
	case a.Message != nil:
		t := turn{content: deref(a.Message.Content), reasoning: deref(a.Message.ReasoningContent)}
		if st.Content != nil {
			t.content = *st.Content
		}
		if len(calls) == 0 {
			t.observation = st.Observation
			return t
		}
		t.calls = calls
		return t
	case a.Text != nil:
		if content, ok := textCalls(st, format, calls, o); ok {
			return turn{content: content, calls: calls}
		}
		return turn{content: *a.Text, observation: observation(st, calls)}
	}
	if len(calls) == 0 {
		return turn{content: deref(st.Content), observation: st.Observation}
	}
	return turn{content: deref(st.Content), calls: calls}
}

// textCalls says whether text action st is written as its calls, and
// with what content: the text outside its call blocks, <think> blocks
// included, as the step recorded it (StepRecord.Content) or, when it
// recorded none (there was none, or the step was recorded before steps
// kept it), as the server's own parser reads it from the raw text
// (tools.ParseTurn).
//
// It is written as text instead when o asks for text actions as text,
// when its format is not hermes (a <sql> or <solution> tag is sqlgym's
// syntax, not one a chat template writes for tool_calls: the prompt asks
// for tags and the row keeps them), when it held no call or a block that
// was not a readable call (there is nothing to write as tool_calls), and
// when the text held more calls than the step recorded (a step of
// protocol v1 ran only the first): the calls written would not be the
// text's.
func textCalls(st *schemas.StepRecord, format string, calls []schemas.CallRecord, o ChatOptions) (string, bool) {
	if o.TextActions == TextActionsText || format == schemas.FormatTags || len(calls) == 0 {
		return "", false
	}
	for _, c := range calls {
		if c.Tool == "" || c.Error != nil && c.Error.Code == schemas.ErrCodeFormat {
			return "", false
		}
	}
	parsed, err := tools.ParseTurn(schemas.FormatHermes, *st.Action.Text)
	if err != nil || len(parsed.Calls) != len(calls) {
		return "", false
	}
	if st.Content != nil {
		return *st.Content, true
	}
	return parsed.Content, true
}

// observation is what came back after a turn written as text: the step's
// observation, or, when it recorded none, its calls' one after another.
func observation(st *schemas.StepRecord, calls []schemas.CallRecord) string {
	if st.Observation != "" || len(calls) == 0 {
		return st.Observation
	}
	parts := make([]string, len(calls))
	for i, c := range calls {
		parts[i] = c.Observation
	}
	return strings.Join(parts, "\n\n")
}

// withArguments gives the one call of a step recorded before steps kept
// decoded arguments their action's arguments.
func withArguments(calls []schemas.CallRecord, st *schemas.StepRecord) []schemas.CallRecord {
	if len(calls) == 1 && len(calls[0].Arguments) == 0 && len(st.Action.Arguments) > 0 && len(st.Calls) == 0 {
		c := calls[0]
		c.Arguments = st.Action.Arguments
		return []schemas.CallRecord{c}
	}
	return calls
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
