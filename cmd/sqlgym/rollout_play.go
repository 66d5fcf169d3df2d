package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sqlgym/sqlgym/internal/rollout"
)

// play plays the samples the run has not done yet.
func (rs *rolloutSetup) play(ctx context.Context, f *rolloutFlags, stderr io.Writer) error {
	done, err := rollout.Done(ctx, rs.reader, f.run)
	if err != nil {
		return err
	}
	samples := rollout.Plan(rs.tasks, f.samples, done)
	fmt.Fprintf(stderr, "run %s: %d tasks x %d samples, %d done before, %d to play\n",
		f.run, len(rs.tasks), f.samples, len(rs.tasks)*f.samples-len(samples), len(samples))
	if len(samples) == 0 {
		return nil
	}
	chat, err := rollout.NewChat(f.chat)
	if err != nil {
		return usageError{"--model-url: " + err.Error()}
	}
	ulog, err := rollout.OpenUsageLog(f.usagePath())
	if err != nil {
		return err
	}
	defer ulog.Close()
	kinds, _ := rollout.ParseHintKinds(f.teacher) // checked with the flags
	prog := newRolloutProgress(stderr, len(samples))
	var usageErr error
	sum := rollout.Run(ctx, rollout.Config{Env: rs.env, Chat: chat, ToolCalling: f.toolCalling,
		ActionFormat: f.actionFormat, MaxTurns: f.stack.maxTurns, Run: f.run, Model: f.chat.Model,
		Concurrency: f.concurrency, Hints: rs.hints(kinds),
		OnResult: func(res rollout.Result) {
			usageErr = errors.Join(usageErr, ulog.Add(res))
			prog.add(res)
		}}, samples)
	prog.finish()
	if usageErr != nil {
		return usageErr
	}
	if sum.Err != nil {
		fmt.Fprintf(stderr, "stopped: %d episodes finished, %d closed early (recorded; run again with --run %s to play them)\n",
			sum.Finished, sum.Failed, f.run)
		if ctx.Err() == nil {
			return sum.Err
		}
	}
	return nil
}
