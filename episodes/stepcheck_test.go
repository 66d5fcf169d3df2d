package episodes

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/schemas"
)

// TestCheckStepRefusesBadParams checks the shapes a step's params are
// refused for, wherever they come from, each with a message that says
// what was wrong.
func TestCheckStepRefusesBadParams(t *testing.T) {
	submit := schemas.Action{Tool: "submit"}
	for _, tt := range []struct {
		p    schemas.StepParams
		want string
	}{
		{schemas.StepParams{Action: submit}, "episode_id is missing"},
		{schemas.StepParams{Action: schemas.Action{Tool: "submit", Text: new(string)}}, "exactly one of tool (with arguments), text or message"},
		{schemas.StepParams{Action: schemas.Action{}}, `needs "tool" with "arguments", "text", or "message"`},
		{schemas.StepParams{Action: schemas.Action{Text: new(string), Arguments: json.RawMessage(`{}`)}}, "arguments go with tool, not with text"},
		{schemas.StepParams{Action: schemas.Action{Tool: "submit", Message: &schemas.AssistantMessage{Role: "assistant"}}}, "exactly one of"},
		{schemas.StepParams{Action: schemas.Action{Message: &schemas.AssistantMessage{Role: "user"}}}, `role must be "assistant", got "user"`},
		{schemas.StepParams{Action: submit, Usage: &schemas.Usage{PromptTokens: -1}}, "usage.prompt_tokens must be from 0 to 16777216, got -1"},
		{schemas.StepParams{Action: submit, Usage: &schemas.Usage{CompletionTokens: 1 << 25}}, "usage.completion_tokens must be from 0"},
		{schemas.StepParams{Action: submit, FinishReason: strings.Repeat("x", 65)}, "finish_reason holds 65 bytes; at most 64"},
	} {
		if tt.p.EpisodeID == "" && tt.want != "episode_id is missing" {
			tt.p.EpisodeID = "ep_1"
		}
		err := checkStep(&tt.p)
		var e *Error
		if !errors.As(err, &e) || e.Kind != InvalidArgument || !strings.Contains(e.Message, tt.want) {
			t.Errorf("%+v: error %v, want InvalidArgument containing %q", tt.p, err, tt.want)
		}
	}
	many := make([]schemas.ToolCall, MaxMessageCalls+1)
	p := schemas.StepParams{EpisodeID: "e", Action: schemas.Action{Message: &schemas.AssistantMessage{Role: "assistant", ToolCalls: many}}}
	if err := checkStep(&p); err == nil || !strings.Contains(err.Error(), "holds 1025 calls; a message may hold at most 1024") {
		t.Errorf("1025 calls: error %v", err)
	}
}
