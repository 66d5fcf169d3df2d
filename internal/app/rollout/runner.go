package rollout

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/sqlgym/sqlgym/schemas"
)

// Defaults of a Config.
const (
	DefaultConcurrency = 8
	// MaxFailuresInARow stops a run once this many episodes in a row
	// could not finish (an endpoint that is down fails every one).
	MaxFailuresInARow = 3
	// DefaultMaxReplyCalls bounds the tool calls of one reply.
	DefaultMaxReplyCalls = 64
	// DefaultMaxConversationBytes bounds one episode's chat.
	DefaultMaxConversationBytes = 8 << 20
)

// Config configures a Run.
type Config struct {
	Env         Env
	Chat        *Chat
	ToolCalling string // ToolCallingNative (the default) or ToolCallingText
	// ActionFormat is the episodes' action_format in text mode (hermes
	// or tags); native mode always uses hermes, the text a malformed call
	// is sent as.
	ActionFormat string
	MaxTurns     int    // the episodes' turn budget; 0: the server's default
	Run          string // the run tag
	Model        string // the model tag
	Concurrency  int    // episodes at once (DefaultConcurrency)
	// Hints returns the teacher's hints for a task; nil for none.
	Hints func(ctx context.Context, taskID string) (Hints, error)
	// OnResult is called with each result as its episode ends, one call
	// at a time.
	OnResult func(Result)
	// MaxReplyCalls bounds the tool calls of one reply the chat carries
	// on (DefaultMaxReplyCalls); a reply with more ends its episode early.
	MaxReplyCalls int
	// MaxConversationBytes bounds the bytes of an episode's chat, which
	// every request sends whole (DefaultMaxConversationBytes); a chat
	// past it ends its episode early instead of asking again.
	MaxConversationBytes int64
}

// Summary counts what a Run did.
type Summary struct {
	Finished int   // episodes that ended by their own steps
	Failed   int   // episodes closed early because they could not go on
	Usage    Usage // tokens of every request answered
	// Err is why the run stopped before playing every sample: the
	// failure that made MaxFailuresInARow, or the cancellation.
	Err error
}

// Run plays the samples, Concurrency at a time. It returns once every
// episode it started has ended and been recorded: when ctx is cancelled
// (Ctrl-C), it starts no more, and the episodes in flight are closed
// early, so every step the server acknowledged is recorded.
func Run(ctx context.Context, cfg Config, samples []Sample) Summary {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	p := &player{env: cfg.Env, chat: cfg.Chat, native: cfg.ToolCalling != ToolCallingText,
		format: cfg.ActionFormat, maxTurns: cfg.MaxTurns, run: cfg.Run, model: cfg.Model,
		maxCalls: cfg.MaxReplyCalls, maxBytes: cfg.MaxConversationBytes}
	if p.maxCalls <= 0 {
		p.maxCalls = DefaultMaxReplyCalls
	}
	if p.maxBytes <= 0 {
		p.maxBytes = DefaultMaxConversationBytes
	}
	if p.native {
		p.format = schemas.FormatHermes
	}
	var mu sync.Mutex // guards sum and inARow, and serializes OnResult
	var sum Summary
	inARow := 0
	var g errgroup.Group
	g.SetLimit(max(cfg.Concurrency, 1))
	for _, s := range samples {
		if ctx.Err() != nil {
			break // start no more; the episodes in flight end early
		}
		g.Go(func() error {
			if ctx.Err() != nil {
				return nil // stopped while this one waited for a slot
			}
			res := p.playWithHints(ctx, cfg.Hints, s)
			mu.Lock()
			defer mu.Unlock()
			inARow = sum.add(res, inARow, cancel)
			if cfg.OnResult != nil {
				cfg.OnResult(res)
			}
			return nil
		})
	}
	g.Wait()
	if sum.Err == nil && ctx.Err() != nil {
		sum.Err = context.Cause(ctx)
	}
	return sum
}

// add counts one result, and stops the run (cancel) after too many
// failures in a row. It returns the new count of failures in a row.
func (sum *Summary) add(res Result, inARow int, cancel context.CancelCauseFunc) int {
	sum.Usage.Add(res.Usage)
	if res.Err == nil {
		sum.Finished++
		return 0
	}
	sum.Failed++
	inARow++
	if inARow >= MaxFailuresInARow && sum.Err == nil && !errors.Is(res.Err, context.Canceled) {
		sum.Err = fmt.Errorf("%d episodes in a row could not finish; the last: %w", inARow, res.Err)
		cancel(sum.Err)
	}
	return inARow
}

// playWithHints plays a sample with its task's hints.
func (p *player) playWithHints(ctx context.Context, hints func(context.Context, string) (Hints, error), s Sample) Result {
	if hints != nil {
		h, err := hints(ctx, s.TaskID)
		if err != nil {
			return Result{Sample: s, Err: fmt.Errorf("hints: %w", err)}
		}
		s.Hints = h
	}
	return p.play(ctx, s)
}
