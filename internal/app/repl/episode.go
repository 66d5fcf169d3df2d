package repl

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// episode is what the REPL knows of the episode it is playing.
type episode struct {
	reset   *schemas.ResetResult
	turns   int     // steps taken
	total   float64 // the rewards of those steps, summed
	ended   bool
	outcome string
}

// stepReply is a step's result with the rows kept raw, so that numbers
// print exactly as the server sent them. Its Info shadows the embedded
// StepResult's when decoding, and rawInfo's Result shadows StepInfo's.
type stepReply struct {
	schemas.StepResult
	Info rawInfo `json:"info"`
}

type rawInfo struct {
	schemas.StepInfo
	Result *rawResult `json:"result,omitempty"`
}

// rawResult is schemas.ResultInfo with undecoded cells.
type rawResult struct {
	Columns   []string            `json:"columns"`
	Rows      [][]json.RawMessage `json:"rows"`
	RowCount  int                 `json:"row_count"`
	Truncated bool                `json:"truncated"`
	ElapsedMS float64             `json:"elapsed_ms"`
}

// live checks that an episode can take a step, and says what to do when
// it cannot.
func (s *session) live() bool {
	switch {
	case s.ep == nil:
		s.out.errorf("no episode: .reset starts one (.reset TASK_ID, .reset DATASET, or .reset for a random task)")
		return false
	case s.ep.ended:
		s.out.errorf("the episode has ended (%s): .reset starts another", s.ep.outcome)
		return false
	}
	return true
}

// step sends one action of the live episode and keeps count of its
// turns and reward; nil when the call failed (and the failure was shown).
func (s *session) step(ctx context.Context, a schemas.Action) *stepReply {
	if !s.live() {
		return nil
	}
	var r stepReply
	p := schemas.StepParams{EpisodeID: s.ep.reset.EpisodeID, Action: a}
	if err := s.c.Call(ctx, schemas.MethodStep, p, &r); err != nil {
		s.callFailed(err)
		return nil
	}
	s.ep.turns = r.Info.Turn
	s.ep.total += r.Reward
	if r.Terminated || r.Truncated {
		s.ep.ended, s.ep.outcome = true, r.Info.Outcome
	}
	return &r
}

// callFailed shows why a call failed, forgets an episode the server no
// longer has, and ends the session when the connection is gone.
func (s *session) callFailed(err error) {
	var rpc *schemas.Error
	switch {
	case errors.As(err, &rpc) && rpc.Code == schemas.CodeEpisodeNotFound:
		s.out.errorf("error: %s", rpc.Message)
		s.out.errorf("the server no longer has this episode (idle past its idle timeout?): .reset starts another")
		s.ep = nil
	case errors.As(err, &rpc) && rpc.Code == schemas.CodeEpisodeEnded && s.ep != nil:
		s.out.errorf("error: %s", rpc.Message)
		s.ep.ended = true
	case errors.As(err, &rpc):
		s.out.errorf("error: %s", rpc.Message)
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		s.out.errorf("error: %v", err)
	default:
		// The call could not be written, or its reply read: the socket
		// is gone. The session goes on; the next call dials again.
		s.out.errorf("the server went away (%v); the session goes on, and the next command that needs the server connects again", err)
		s.lost = true
	}
}

// closeEpisode closes the live episode, so the server records it now
// (as no_submit) instead of when it idles out.
func (s *session) closeEpisode(ctx context.Context) {
	if s.ep == nil || s.ep.ended || s.lost {
		return
	}
	r, err := s.c.CloseEpisode(ctx, s.ep.reset.EpisodeID)
	s.ep.ended = true
	if err != nil {
		s.callFailed(err)
		return
	}
	s.ep.outcome = r.Outcome
	s.out.linef("closed episode %s (%s, total reward %s)", r.EpisodeID, r.Outcome, num(r.TotalReward))
}

// runSQL runs execute_sql with the statement as typed, its final ";"
// removed.
func (s *session) runSQL(ctx context.Context, sql string) {
	s.callTool(ctx, schemas.ToolExecuteSQL, map[string]any{"sql": trimStatement(sql)}, false)
}

// schema runs inspect_schema, for one table or all.
func (s *session) schema(ctx context.Context, args []string) {
	if len(args) > 1 {
		s.out.errorf("usage: .schema [table]")
		return
	}
	a := map[string]any{}
	if len(args) == 1 {
		a["table"] = args[0]
	}
	s.callTool(ctx, schemas.ToolInspectSchema, a, true)
}

// submit sends the final answer.
func (s *session) submit(ctx context.Context, rest string) {
	sql := trimStatement(rest)
	if sql == "" {
		s.out.errorf("usage: .submit SQL")
		return
	}
	s.callTool(ctx, schemas.ToolSubmit, map[string]any{"sql": sql}, false)
}

// text sends a model's raw completion, then shows how the server parsed
// it (the last step of episode.get) and the observation the model gets.
func (s *session) text(ctx context.Context, first string) {
	if !s.live() {
		return
	}
	body, ok := s.readText(first)
	if !ok {
		return
	}
	r := s.step(ctx, client.Text(body))
	if r == nil {
		return
	}
	if t, err := s.c.Episode(ctx, s.ep.reset.EpisodeID); err == nil && len(t.Steps) > 0 {
		last := t.Steps[len(t.Steps)-1]
		if calls := last.CallList(); len(calls) > 1 {
			parts := make([]string, len(calls))
			for i, c := range calls {
				parts[i] = callText(c.Tool, c.Arguments)
			}
			s.out.styledf(styleBold, "parsed as %d calls, run in order: %s", len(calls), strings.Join(parts, "; "))
		} else if last.Error == nil || last.Error.Code != schemas.ErrCodeFormat {
			s.out.styledf(styleBold, "parsed as %s", callText(last.Tool, last.Arguments))
		}
	}
	s.showStep(ctx, r, true)
}
