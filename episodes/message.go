package episodes

import (
	"bytes"
	"fmt"

	"github.com/sqlgym/sqlgym/schemas"
)

// checkMessage checks an action that carries an assistant message: no
// tool, arguments or text beside it, role "assistant", every call of type
// "function" (or none given) with arguments that are a JSON string, an
// object or null, no two calls with the same id, and at most
// MaxMessageCalls calls. What the model put in a call (a tool that does
// not exist, arguments that are not JSON) is not checked here: that
// call fails, as an observation. The error is of kind InvalidArgument.
func checkMessage(a *schemas.Action) error {
	m := a.Message
	switch {
	case a.Tool != "" || a.Text != nil || len(a.Arguments) > 0:
		return errorf(InvalidArgument, "action: give exactly one of tool (with arguments), text or message, not both")
	case m.Role != "assistant":
		return errorf(InvalidArgument, `action.message.role must be "assistant", got %q`, m.Role)
	case len(m.ToolCalls) > MaxMessageCalls:
		return errorf(InvalidArgument, "action.message.tool_calls holds %d calls; a message may hold at most %d",
			len(m.ToolCalls), MaxMessageCalls)
	}
	seen := make(map[string]int, len(m.ToolCalls))
	for i, tc := range m.ToolCalls {
		where := fmt.Sprintf("action.message.tool_calls[%d]", i)
		if tc.Type != "" && tc.Type != "function" {
			return errorf(InvalidArgument, `%s.type must be "function", got %q`, where, tc.Type)
		}
		if args := bytes.TrimSpace(tc.Function.Arguments); len(args) > 0 && args[0] != '"' && args[0] != '{' && !bytes.Equal(args, []byte("null")) {
			return errorf(InvalidArgument,
				"%s.function.arguments must be a JSON string (the OpenAI shape), an object or null", where)
		}
		if tc.ID == "" {
			continue
		}
		if j, ok := seen[tc.ID]; ok {
			return errorf(InvalidArgument, "%s.id %q is tool_calls[%d]'s too: each call needs an id of its own", where, tc.ID, j)
		}
		seen[tc.ID] = i
	}
	return nil
}
