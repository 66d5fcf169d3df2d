package rollout

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sqlgym/sqlgym/schemas"
)

// closeTimeout bounds the close of an episode that could not go on, which
// runs even after the run was cancelled: it is what records the episode.
const closeTimeout = 30 * time.Second

// Sample is one episode to play: a task, the sample's index among the
// task's K, and the teacher's hints (none for an evaluation).
type Sample struct {
	TaskID string
	Index  int
	Hints  Hints
}

// Result is what playing one sample did.
type Result struct {
	Sample    Sample
	EpisodeID string
	Outcome   string // how the episode ended; "" when it did not finish
	Steps     int    // steps the episode acknowledged
	Requests  int    // chat requests answered
	Usage     Usage
	Err       error // why the episode did not finish (it was closed, and recorded, early)
}

// player plays samples: one episode each, on env, asking chat.
type player struct {
	env      Env
	chat     *Chat
	native   bool
	format   string // action_format of the episodes
	maxTurns int    // 0: the server's default
	run      string
	model    string
	maxCalls int   // tool calls of one reply carried on
	maxBytes int64 // bytes of one episode's chat
}

// play runs one episode to its end. An episode that cannot go on (the
// model's endpoint failed past its retries, the run was cancelled) is
// closed, which records it with outcome no_submit, and the result says why.
func (p *player) play(ctx context.Context, s Sample) Result {
	res := Result{Sample: s}
	tags, err := p.tags(s)
	if err != nil {
		res.Err = err
		return res
	}
	rp := schemas.ResetParams{TaskID: s.TaskID, ActionFormat: p.format, Tags: tags}
	if p.maxTurns > 0 {
		rp.MaxTurns = &p.maxTurns
	}
	if p.native {
		rp.PromptStyle = schemas.PromptStyleNative // the tools go in the request, in the chat template's words
	}
	reset, err := p.env.Reset(ctx, rp)
	if err != nil {
		res.Err = fmt.Errorf("reset %s: %w", s.TaskID, err)
		return res
	}
	res.EpisodeID = reset.EpisodeID
	conv, err := newConversation(reset, p.native, s.Hints.Prompt())
	if err == nil {
		err = p.turns(ctx, conv, &res)
	}
	if err != nil {
		res.Err = err
		p.closeEarly(ctx, &res)
	}
	return res
}

// turns asks the model and steps the episode until it ends.
func (p *player) turns(ctx context.Context, conv *conversation, res *Result) error {
	for {
		if conv.bytes > p.maxBytes {
			return fmt.Errorf("the conversation holds %d bytes, more than the %d a request may carry (--max-conversation-bytes): "+
				"the episode ends here", conv.bytes, p.maxBytes)
		}
		choice, usage, err := p.chat.Reply(ctx, conv.msgs, conv.tools)
		msg := choice.Message
		if uerr := checkUsage(usage); uerr != nil {
			return uerr // counted nowhere: not in the run's tokens, not in a step
		}
		res.Usage.Add(usage)
		if err != nil {
			return err
		}
		res.Requests++
		if n := len(msg.ToolCalls); p.native && n > p.maxCalls {
			return fmt.Errorf("the model's reply holds %d tool calls, more than %d (--max-reply-calls): the episode ends here", n, p.maxCalls)
		}
		step, err := p.env.Step(ctx, schemas.StepParams{EpisodeID: res.EpisodeID, Action: conv.reply(msg),
			Usage: stepUsage(usage), FinishReason: choice.FinishReason})
		if err != nil {
			return fmt.Errorf("step %s: %w", res.EpisodeID, err)
		}
		res.Steps++
		if step.Terminated || step.Truncated {
			res.Outcome = step.Info.Outcome
			return nil
		}
		conv.observe(step)
	}
}

// stepUsage is what a completion cost, as the step reports it to the
// episode (recorded with it); nil when the endpoint reported no tokens.
func stepUsage(u Usage) *schemas.Usage {
	if u.CompletionTokens <= 0 && u.PromptTokens <= 0 {
		return nil
	}
	return &schemas.Usage{CompletionTokens: u.CompletionTokens, PromptTokens: u.PromptTokens}
}

// closeEarly closes an episode that cannot go on, even when ctx was
// cancelled: the close is what records it.
func (p *player) closeEarly(ctx context.Context, res *Result) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
	defer cancel()
	if _, err := p.env.Close(ctx, res.EpisodeID); err != nil {
		res.Err = fmt.Errorf("%w; close %s: %v", res.Err, res.EpisodeID, err)
	}
}

// Tag keys of a rollout's episodes.
const (
	TagRun    = "run"
	TagModel  = "model"
	TagSample = "sample"
	TagHints  = "teacher_hints"
)

// tags are the episode's tags: the run, the model, the sample index, and
// the teacher's hints (kept here, apart from the prompt).
func (p *player) tags(s Sample) (json.RawMessage, error) {
	t := map[string]any{TagRun: p.run, TagModel: p.model, TagSample: s.Index}
	if len(s.Hints) > 0 {
		t[TagHints] = s.Hints
	}
	raw, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("encode tags: %w", err)
	}
	return raw, nil
}
