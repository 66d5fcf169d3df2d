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

// CheckStepParams checks what a step's params carry beside the action:
// the usage (CheckUsage) and the finish reason's length. A step that
// fails it runs nothing and costs no turn.
func CheckStepParams(p *schemas.StepParams) error {
	if e := CheckUsage(p.Usage); e != nil {
		return e
	}
	if len(p.FinishReason) > schemas.MaxFinishReasonBytes {
		return errorf(InvalidArgument, "finish_reason holds %d bytes; at most %d",
			len(p.FinishReason), schemas.MaxFinishReasonBytes)
	}
	return nil
}
