package pgstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym/schemas"
)

// Column lists, in the order encodeEpisode and encodeStep give values.
const (
	episodeColumns = `episode_id, dataset, task_id, task, tags, reward_spec, reward_spec_hash,
		action_format, max_turns, messages, server_version, started_at, ended_at, outcome,
		final_reward, total_reward, close_components, extra`
	stepColumns = `episode_id, turn, tool, action, arguments, observation, error, result_meta,
		reward, reward_components, outcome, elapsed_ms, at, extra`
)

// stepExtra is the part of a step record the extra column keeps: what a
// step carries beside protocol v1's fields. Its JSON names are the
// record's, so it decodes into a StepRecord.
type stepExtra struct {
	Usage        *schemas.Usage       `json:"usage,omitempty"`
	Content      *string              `json:"content,omitempty"`
	Calls        []schemas.CallRecord `json:"calls,omitempty"`
	FinishReason string               `json:"finish_reason,omitempty"`
	Judge        *schemas.JudgeInfo   `json:"judge,omitempty"`
}

// extraValue is the extra column of a step: NULL when it has none of it.
func extraValue(s *schemas.StepRecord) ([]byte, error) {
	if s.Usage == nil && s.Content == nil && len(s.Calls) == 0 && s.FinishReason == "" && s.Judge == nil {
		return nil, nil
	}
	return jsonValue(stepExtra{Usage: s.Usage, Content: s.Content, Calls: s.Calls, FinishReason: s.FinishReason, Judge: s.Judge})
}

// episodeExtra is the part of a begin line the episodes' extra column
// keeps: the settings that have no column of their own. Its JSON names
// are the record's, so it decodes into a Trajectory.
type episodeExtra struct {
	Tools           []string `json:"tools,omitempty"`
	MaxCallsPerTurn int      `json:"max_calls_per_turn,omitempty"`
	PromptStyle     string   `json:"prompt_style,omitempty"`
}

// episodeExtraValue is the extra column of an episode: NULL when it has
// none of it.
func episodeExtraValue(t *schemas.Trajectory) ([]byte, error) {
	x := episodeExtra{Tools: t.Tools, MaxCallsPerTurn: t.MaxCallsPerTurn, PromptStyle: t.PromptStyle}
	if len(x.Tools) == 0 && x.MaxCallsPerTurn == 0 && x.PromptStyle == "" {
		return nil, nil
	}
	return jsonValue(x)
}

// encodeEpisode turns t into the values of episodeColumns and the search
// column (search.go). Unless ended,
// the episode is written as begun: no end time and no outcome, whatever t
// holds.
func encodeEpisode(t *schemas.Trajectory, ended bool) ([]any, error) {
	task, err := jsonValue(t.Task)
	if err != nil {
		return nil, err
	}
	spec, err := jsonValue(t.RewardSpec)
	if err != nil {
		return nil, err
	}
	msgs, err := jsonValue(t.Messages)
	if err != nil {
		return nil, err
	}
	var closeComps []byte
	if t.CloseComponents != nil {
		if closeComps, err = jsonValue(t.CloseComponents); err != nil {
			return nil, err
		}
	}
	if err := checkText(t.EpisodeID, t.RewardSpecHash, t.ActionFormat, t.ServerVersion, t.Outcome); err != nil {
		return nil, err
	}
	tags, err := rawValue(t.Tags)
	if err != nil {
		return nil, fmt.Errorf("tags: %w", err)
	}
	extra, err := episodeExtraValue(t)
	if err != nil {
		return nil, err
	}
	endedAt, outcome := t.EndedAt, nullText(t.Outcome)
	if !ended {
		endedAt, outcome, closeComps = nil, nil, nil
	} else if endedAt == nil {
		return nil, fmt.Errorf("pgstore: end without an end time")
	}
	return []any{
		t.EpisodeID, t.Task.Dataset, t.Task.TaskID, task, tags, spec, t.RewardSpecHash,
		t.ActionFormat, t.MaxTurns, msgs, t.ServerVersion, t.StartedAt, endedAt, outcome,
		t.FinalReward, t.TotalReward, closeComps, extra, strings.ReplaceAll(searchText(t), "\x00", ""),
	}, nil
}

// encodeStep turns one step of an episode into the values of stepColumns.
func encodeStep(episodeID string, s *schemas.StepRecord) ([]any, error) {
	action, err := jsonValue(s.Action)
	if err != nil {
		return nil, err
	}
	args, err := rawValue(s.Arguments)
	if err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	comps, err := jsonValue(nonNil(s.RewardComponents))
	if err != nil {
		return nil, err
	}
	var toolErr, meta []byte
	if s.Error != nil {
		if toolErr, err = jsonValue(s.Error); err != nil {
			return nil, err
		}
	}
	if s.ResultMeta != nil {
		if meta, err = jsonValue(s.ResultMeta); err != nil {
			return nil, err
		}
	}
	if err := checkText(episodeID, s.Tool, s.Observation, s.Outcome); err != nil {
		return nil, fmt.Errorf("step %d: %w", s.Turn, err)
	}
	extra, err := extraValue(s)
	if err != nil {
		return nil, err
	}
	return []any{
		episodeID, s.Turn, s.Tool, action, args, s.Observation, toolErr, meta,
		s.Reward, comps, nullText(s.Outcome), s.ElapsedMS, s.At, extra,
	}, nil
}

// jsonValue marshals v for a jsonb column.
func jsonValue(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("pgstore: encode: %w", err)
	}
	if bytes.Contains(b, []byte(`\u0000`)) {
		return nil, ErrNUL
	}
	return b, nil
}

// rawValue is raw JSON for a jsonb column: nil (SQL NULL) when empty.
func rawValue(raw json.RawMessage) ([]byte, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	if !json.Valid(raw) {
		return nil, fmt.Errorf("pgstore: invalid JSON")
	}
	if bytes.Contains(raw, []byte(`\u0000`)) || bytes.IndexByte(raw, 0) >= 0 {
		return nil, ErrNUL
	}
	return raw, nil
}

// checkText refuses text that holds a NUL character.
func checkText(ss ...string) error {
	for _, s := range ss {
		if strings.IndexByte(s, 0) >= 0 {
			return ErrNUL
		}
	}
	return nil
}

// nullText is s, or SQL NULL for "".
func nullText(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func nonNil(m map[string]float64) map[string]float64 {
	if m == nil {
		return map[string]float64{}
	}
	return m
}
