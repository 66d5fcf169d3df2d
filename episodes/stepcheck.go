package episodes

import "github.com/sqlgym/sqlgym/schemas"

// CheckUsage checks the token counts a step reports (none when u is nil)
// against the protocol's bounds: each from 0 to schemas.MaxCompletionTokens.
// Every way into an episode's step checks them with it: a Manager's step
// (in process, as sqlgym rollout plays) and a client of the server alike.
func CheckUsage(u *schemas.Usage) error {
	if u == nil {
		return nil
	}
	if u.CompletionTokens < 0 || u.CompletionTokens > schemas.MaxCompletionTokens {
		return errorf(InvalidArgument, "usage.completion_tokens must be from 0 to %d, got %d",
			schemas.MaxCompletionTokens, u.CompletionTokens)
	}
	if u.PromptTokens < 0 || u.PromptTokens > schemas.MaxCompletionTokens {
		return errorf(InvalidArgument, "usage.prompt_tokens must be from 0 to %d, got %d",
			schemas.MaxCompletionTokens, u.PromptTokens)
	}
	return nil
}

// checkStep checks a step's params where the domain receives them
// (Enqueue), once for every surface: the episode's id, the action's shape
// (checkAction), the usage (CheckUsage) and the finish reason's length.
// A step that fails it takes no place in the queue, runs nothing and
// costs no turn; its error is of kind InvalidArgument.
func checkStep(p *schemas.StepParams) error {
	if p.EpisodeID == "" {
		return errorf(InvalidArgument, "episode_id is missing")
	}
	if err := checkAction(&p.Action); err != nil {
		return err
	}
	if e := CheckUsage(p.Usage); e != nil {
		return e
	}
	if p.Turn < 0 {
		return errorf(InvalidArgument, "turn must be 1 or more (the number the step will have), got %d", p.Turn)
	}
	if len(p.FinishReason) > schemas.MaxFinishReasonBytes {
		return errorf(InvalidArgument, "finish_reason holds %d bytes; at most %d",
			len(p.FinishReason), schemas.MaxFinishReasonBytes)
	}
	return nil
}

// checkAction checks an action's shape: a tool call, a text, or an
// assistant message (checkMessage), exactly one of them. What a tool's
// arguments hold is the call's to judge (an observation), except where a
// surface's wire format fixes their type (JSON-RPC: an object).
func checkAction(a *schemas.Action) error {
	if a.Message != nil {
		return checkMessage(a)
	}
	switch {
	case a.Tool != "" && a.Text != nil:
		return errorf(InvalidArgument, "action: give exactly one of tool (with arguments), text or message, not both")
	case a.Tool == "" && a.Text == nil:
		return errorf(InvalidArgument, `action: needs "tool" with "arguments", "text", or "message"`)
	case a.Text != nil && len(a.Arguments) > 0:
		return errorf(InvalidArgument, "action: arguments go with tool, not with text")
	}
	return nil
}
