package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/internal/app/rollout"
)

// rolloutFlags are the flags of sqlgym rollout.
type rolloutFlags struct {
	stack        stackFlags // the datasets (loaded here for their tasks, hints and votes) and, without --url, the episodes' server
	chat         rollout.ChatConfig
	apiKeyEnv    string
	temperature  optFloat
	topP         optFloat
	tasks        string
	limit        int
	samples      int
	concurrency  int
	toolCalling  string
	actionFormat string
	run          string
	out          string
	url, token   string
	reconnect    time.Duration
	teacher      string
	logLevel     string
	replyCalls   int
	convBytes    int64
	damage       damageFlags // of the trajectory log read for resume and the report
}

func parseRolloutFlags(args []string, stderr io.Writer) (*rolloutFlags, error) {
	fs := newFlagSet("rollout", stderr)
	var f rolloutFlags
	f.stack.register(fs)
	fs.StringVar(&f.chat.BaseURL, "model-url", "", "OpenAI-compatible base URL of the model, such as http://localhost:8000/v1 (requests go to <base>/chat/completions)")
	fs.StringVar(&f.chat.Model, "model", "", "model name sent in each request (and the episodes' model tag)")
	fs.StringVar(&f.apiKeyEnv, "api-key-env", "OPENAI_API_KEY", "environment `VAR` holding the API key, sent as a bearer token when set")
	fs.Var(&f.temperature, "temperature", "sampling temperature (default: the endpoint's)")
	fs.Var(&f.topP, "top-p", "nucleus sampling top_p (default: the endpoint's)")
	fs.IntVar(&f.chat.MaxTokens, "max-tokens", 0, "max_tokens of each completion (0: the endpoint's default)")
	fs.StringVar(&f.tasks, "tasks", "", "only these tasks, `ID,ID,...` as tasks.list names them (default: every task of every --dataset, in order)")
	fs.IntVar(&f.limit, "limit", 0, "only the first N tasks (0: all)")
	fs.IntVar(&f.samples, "samples", 1, "episodes per task, K (pass@k is reported for k = 1..K)")
	fs.IntVar(&f.concurrency, "workers", rollout.DefaultConcurrency, "episodes played at once (each holds one request to the model at a time)")
	deprecatedAlias(fs, "concurrency", "workers")
	fs.StringVar(&f.toolCalling, "tool-calling", rollout.ToolCallingNative, "native (tools in the request, tool_calls in the reply) or text (the whole completion is a text action)")
	fs.StringVar(&f.actionFormat, "action-format", "hermes", "--tool-calling text: how the episode parses the completion, hermes (<tool_call>) or tags (<sql>, <solution>)")
	fs.StringVar(&f.run, "run", "", "run `NAME`, the episodes' run tag; a name already used resumes that run (default: MODEL-TIMESTAMP)")
	fs.StringVar(&f.out, "out", "", "`folder` for report.json and usage.jsonl, created when missing (default: rollout-RUN)")
	fs.StringVar(&f.url, "url", "", "run the episodes on this server, ws://HOST:PORT/v1/ws, serving the same --dataset; --data-dir or --trajectories then name its store, read for resume and the report (empty: in this process)")
	fs.StringVar(&f.token, "token", "", "bearer token of the server at --url")
	fs.DurationVar(&f.reconnect, "reconnect-timeout", client.DefaultReconnectTimeout, "--url: how long a call may spend reconnecting (through the load balancer, to a live replica) and being sent again after its connection was lost or its replica handed its episode on; 0: never reconnect")
	fs.StringVar(&f.teacher, "teacher-hints", "", "teacher mode: privileged hints in the system prompt, `KINDS` among "+strings.Join(rollout.HintKinds(), ", ")+" (comma-separated); recorded apart from the prompt")
	fs.IntVar(&f.chat.Attempts, "attempts", rollout.DefaultAttempts, "tries per request to the model, at least 3: on 429, 5xx, timeouts and broken connections")
	fs.DurationVar(&f.chat.RequestTimeout, "request-timeout", rollout.DefaultRequestTimeout, "time limit of one try of a request to the model")
	fs.DurationVar(&f.chat.Backoff, "retry-backoff", rollout.DefaultBackoff, "wait before the second try, doubling for each further one (a 429's Retry-After wins)")
	fs.StringVar(&f.logLevel, "log-level", "warn", "log level (to stderr): debug, info, warn or error")
	fs.IntVar(&f.replyCalls, "max-reply-calls", rollout.DefaultMaxReplyCalls, "tool calls of one model reply carried on; a reply with more closes its episode early")
	f.damage.register(fs)
	bytesVar(fs, &f.convBytes, "max-conversation-bytes", rollout.DefaultMaxConversationBytes, "bytes of one episode's chat, which every request sends whole; past it the episode is closed early")
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	return &f, f.check()
}

func (f *rolloutFlags) check() error {
	switch {
	case f.chat.BaseURL == "" || f.chat.Model == "":
		return usageError{"--model-url and --model are required"}
	case f.samples < 1 || f.concurrency < 1:
		return usageError{"--samples and --workers must be at least 1"}
	case f.limit < 0 || f.chat.MaxTokens < 0:
		return usageError{"--limit and --max-tokens must not be negative"}
	case f.replyCalls < 1 || f.convBytes < 64<<10:
		return usageError{fmt.Sprintf("--max-reply-calls must be at least 1 and --max-conversation-bytes at least 65536, got %d and %d", f.replyCalls, f.convBytes)}
	case f.reconnect < 0:
		return usageError{fmt.Sprintf("--reconnect-timeout must be 0 (never reconnect) or more, got %s", f.reconnect)}
	case f.chat.Attempts < 3:
		return usageError{fmt.Sprintf("--attempts must be at least 3, got %d", f.chat.Attempts)}
	case f.toolCalling != rollout.ToolCallingNative && f.toolCalling != rollout.ToolCallingText:
		return usageError{fmt.Sprintf("--tool-calling must be native or text, got %q", f.toolCalling)}
	case f.actionFormat != "hermes" && f.actionFormat != "tags":
		return usageError{fmt.Sprintf("--action-format must be hermes or tags, got %q", f.actionFormat)}
	case f.toolCalling == rollout.ToolCallingNative && f.actionFormat != "hermes":
		return usageError{"--action-format is for --tool-calling text"}
	}
	if _, err := rollout.ParseHintKinds(f.teacher); err != nil {
		return usageError{"--teacher-hints: " + err.Error()}
	}
	f.chat.Temperature, f.chat.TopP = f.temperature.ptr(), f.topP.ptr()
	f.chat.APIKey = os.Getenv(f.apiKeyEnv)
	if f.run == "" {
		f.run = f.chat.Model + "-" + time.Now().UTC().Format("20060102T150405")
	}
	if f.out == "" {
		f.out = "rollout-" + strings.NewReplacer("/", "_", ":", "_").Replace(f.run)
	}
	return nil
}

func runRollout(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, err := parseRolloutFlags(args, stderr)
	if err != nil {
		return err
	}
	log, err := newLogger("console", f.logLevel, stderr)
	if err != nil {
		return err
	}
	_, statErr := os.Stat(f.out)
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	rs, err := f.setup(ctx, log)
	if err != nil {
		removeIfMadeEmpty(f.out, statErr)
		return err
	}
	defer rs.close(log)
	closedEarly, err := rs.play(ctx, f, stderr)
	if err != nil {
		removeIfMadeEmpty(f.out, statErr)
		return err
	}
	if err := rs.report(ctx, f, stdout); err != nil {
		return err
	}
	if err := f.damage.report(stderr, "rollout", rs.reader); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: every acknowledged step is recorded; run again with --run %s to resume", f.run)
	}
	if closedEarly > 0 {
		return closedEarlyError(closedEarly, f.run)
	}
	return nil
}

// removeIfMadeEmpty removes the folder dir when this run made it (its
// stat before failed with statErr, not found) and nothing was written
// into it, so that a rollout that failed before playing leaves no empty
// run folder behind. A folder holding anything stays.
func removeIfMadeEmpty(dir string, statErr error) {
	if errors.Is(statErr, os.ErrNotExist) {
		os.Remove(dir) // fails, and keeps it, unless it is empty
	}
}

// selectTasks lists the task ids to play: --tasks (each checked), or
// every task of the datasets in order, cut to --limit.
func (f *rolloutFlags) selectTasks(known func(string) bool, all []string) ([]string, error) {
	ids := all
	if f.tasks != "" {
		ids = nil
		for _, id := range strings.Split(f.tasks, ",") {
			id = strings.TrimSpace(id)
			if !known(id) {
				return nil, usageError{fmt.Sprintf("--tasks: no task %q in the datasets", id)}
			}
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	if f.limit > 0 && f.limit < len(ids) {
		ids = ids[:f.limit]
	}
	return ids, nil
}

func (f *rolloutFlags) usagePath() string { return filepath.Join(f.out, rollout.UsageFile) }
