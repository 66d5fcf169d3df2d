package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sqlgym/sqlgym/internal/app/rollout"
)

// play plays the samples the run has not done yet. It returns how many
// episodes were closed early by a failure, once the run went through.
func (rs *rolloutSetup) play(ctx context.Context, f *rolloutFlags, stderr io.Writer) (closedEarly int, err error) {
	done, err := rollout.Done(ctx, rs.reader, f.run)
	if err != nil {
		return 0, err
	}
	samples := rollout.Plan(rs.tasks, f.samples, done)
	fmt.Fprintf(stderr, "run %s: %d tasks x %d samples, %d done before, %d to play\n",
		f.run, len(rs.tasks), f.samples, len(rs.tasks)*f.samples-len(samples), len(samples))
	if len(samples) == 0 {
		return 0, nil
	}
	chat, err := rollout.NewChat(f.chat)
	if err != nil {
		return 0, usageError{"--model-url: " + err.Error()}
	}
	if err := chat.Check(ctx); err != nil {
		return 0, fmt.Errorf("%w; nothing was played or recorded", err)
	}
	ulog, err := rollout.OpenUsageLog(f.usagePath())
	if err != nil {
		return 0, err
	}
	defer ulog.Close()
	kinds, _ := rollout.ParseHintKinds(f.teacher) // checked with the flags
	prog := rollout.NewProgress(stderr, isTerminal(stderr), len(samples), nil)
	var usageErr error
	sum := rollout.Run(ctx, rollout.Config{Env: rs.env, Chat: chat, ToolCalling: f.toolCalling,
		ActionFormat: f.actionFormat, MaxTurns: f.stack.maxTurns, Run: f.run, Model: f.chat.Model,
		Concurrency: f.concurrency, Hints: rs.hints(kinds), MaxReplyCalls: f.replyCalls, MaxConversationBytes: f.convBytes,
		OnResult: func(res rollout.Result) {
			usageErr = errors.Join(usageErr, ulog.Add(res))
			prog.Add(res)
		}}, samples)
	prog.Finish()
	if usageErr != nil {
		return 0, usageErr
	}
	if sum.Err != nil {
		fmt.Fprintf(stderr, "stopped: %d episodes finished, %d closed early (recorded; run again with --run %s to play them)\n",
			sum.Finished, sum.Failed, f.run)
		if ctx.Err() == nil {
			return 0, sum.Err
		}
	}
	return sum.Failed, nil
}

// closedEarlyError is the command's error when episodes of a run that
// went through were closed early by a failure (the model's endpoint
// failing, most often): their samples are not played, so the command
// must not exit 0.
func closedEarlyError(n int, run string) error {
	return fmt.Errorf("%d episodes were closed early by a failure (recorded; run again with --run %s to play them)", n, run)
}
