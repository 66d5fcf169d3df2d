package episodes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// Reset starts an episode.
func (m *Manager) Reset(ctx context.Context, p schemas.ResetParams) (*schemas.ResetResult, error) {
	return m.ResetWith(ctx, p, ResetOptions{})
}

// ResetOptions are settings of an episode that no wire chooses: an
// in-process caller that replays a recorded episode sets them as the
// record has them.
type ResetOptions struct {
	// MaxCallsPerTurn is how many calls of one turn run, from 1 to
	// MaxMessageCalls; 0 means the Manager's Config.MaxCallsPerTurn.
	MaxCallsPerTurn int
}

// ResetWith is Reset with the settings of o.
func (m *Manager) ResetWith(ctx context.Context, p schemas.ResetParams, o ResetOptions) (*schemas.ResetResult, error) {
	if err := m.refuseDraining(); err != nil {
		return nil, err
	}
	task, ds, err := m.pickTask(p)
	if err != nil {
		return nil, err
	}
	maxTurns, format, err := m.episodeShape(p)
	if err != nil {
		return nil, err
	}
	style, err := m.promptStyle(ds, p.PromptStyle)
	if err != nil {
		return nil, err
	}
	maxCalls, err := m.maxCalls(o.MaxCallsPerTurn)
	if err != nil {
		return nil, err
	}
	spec, err := m.rewardOf(p.Reward)
	if err != nil {
		return nil, err
	}
	if err := m.checkTags(p.Tags); err != nil {
		return nil, err
	}
	db, err := m.cfg.Catalog.DB(ctx, ds, task.DBID)
	if err != nil {
		return nil, m.openFailed(ctx, ds, task, err)
	}
	set, err := m.episodeTools(ds, p.Tools)
	if err != nil {
		return nil, err
	}
	prompt := tools.PromptFor(task, tools.PromptSpec{Dialect: ds.Dialect, Format: format, Style: style, MaxTurns: maxTurns,
		Tools: set, RowLimit: m.cfg.Runner.Config().RowLimit, MaxCalls: maxCalls})
	if m.cfg.PromptDescriptions && p.Descriptions == nil || p.Descriptions != nil && *p.Descriptions {
		prompt = tools.WithNotes(prompt, ds.Notes[task.DBID])
	}
	s := newSession(m.deps, newEpisodeID(), episodeSpec{task: task, ds: ds, db: db, reward: spec,
		format: format, maxTurns: maxTurns, tools: set, prompt: prompt, tags: p.Tags, style: style, maxCalls: maxCalls})
	if err := m.admitBytes(s, resetBytes(prompt, p.Tags)); err != nil {
		return nil, err
	}
	if err := m.admit(ctx, s); err != nil {
		m.releaseBytes(s)
		return nil, err
	}
	t := s.snapshot()
	if err := m.cfg.Recorder.Begin(ctx, &t); err != nil {
		m.mu.Lock()
		delete(m.live, s.id)
		m.mu.Unlock()
		s.share.Release()
		m.releaseBytes(s)
		return nil, m.deps.recordFailed(s.id, "begin", err)
	}
	m.mu.Lock()
	m.metrics.started(len(m.live)) // under m.mu, so the live count set last is the latest
	m.mu.Unlock()
	return &schemas.ResetResult{
		EpisodeID: s.id, Task: task.View(ds.Dialect), Messages: prompt,
		Tools: set.SharedDefinitions(), MaxTurns: maxTurns, ActionFormat: format, // only encoded, never changed
	}, nil
}

// openFailed logs a database that would not open for a reset, and returns
// the error the client gets: which database, and why.
func (m *Manager) openFailed(ctx context.Context, ds *env.Dataset, task *env.Task, err error) error {
	if ctx.Err() == nil { // not the caller giving up
		m.cfg.Logger.Error("database would not open", zap.String("dataset", ds.Name), zap.String("db_id", task.DBID),
			zap.String("task", task.ID), zap.Error(err))
	}
	return fmt.Errorf("reset %s: database %s/%s would not open: %w", task.ID, ds.Name, task.DBID, err)
}

// pickTask finds the task a reset asks for: by id, or drawn from a dataset
// by seed (at random without one).
func (m *Manager) pickTask(p schemas.ResetParams) (*env.Task, *env.Dataset, error) {
	if p.TaskID != "" {
		name, _, _ := strings.Cut(p.TaskID, "/")
		ds, ok := m.datasets[name]
		if p.Dataset != "" && p.Dataset != name {
			return nil, nil, errorf(InvalidArgument,
				"task_id %q is not in dataset %q", p.TaskID, p.Dataset)
		}
		if !ok {
			return nil, nil, errorf(TaskNotFound, "no task %q: no dataset %q (datasets: %s)",
				p.TaskID, name, strings.Join(m.names, ", "))
		}
		t, ok := ds.Task(p.TaskID)
		if !ok {
			return nil, nil, errorf(TaskNotFound, "no task %q in dataset %q", p.TaskID, name)
		}
		return t, ds, nil
	}
	ds, err := m.dataset(p.Dataset)
	if err != nil {
		return nil, nil, err
	}
	seed := rand.Int64()
	if p.Seed != nil {
		seed = *p.Seed
	}
	return ds.Draw(seed), ds, nil
}

// dataset returns the named dataset, or the default one for "".
func (m *Manager) dataset(name string) (*env.Dataset, error) {
	if name == "" {
		return m.cfg.Datasets[0], nil
	}
	ds, ok := m.datasets[name]
	if !ok {
		return nil, errorf(TaskNotFound, "no dataset %q (datasets: %s)",
			name, strings.Join(m.names, ", "))
	}
	return ds, nil
}

// episodeShape checks the reset's turn budget and action format.
func (m *Manager) episodeShape(p schemas.ResetParams) (int, string, error) {
	maxTurns := m.cfg.MaxTurns
	if p.MaxTurns != nil {
		if *p.MaxTurns < 1 || *p.MaxTurns > m.cfg.MaxTurnsLimit {
			return 0, "", errorf(InvalidArgument,
				"max_turns must be between 1 and %d, got %d", m.cfg.MaxTurnsLimit, *p.MaxTurns)
		}
		maxTurns = *p.MaxTurns
	}
	format := schemas.FormatHermes
	if p.ActionFormat != "" {
		if !tools.ValidFormat(p.ActionFormat) {
			return 0, "", errorf(InvalidArgument,
				"action_format must be %q or %q, got %q", schemas.FormatHermes, schemas.FormatTags, p.ActionFormat)
		}
		format = p.ActionFormat
	}
	return maxTurns, format, nil
}

// checkTags checks that a reset's tags are a JSON object within the
// server's --max-tags-bytes: they are kept with the episode in memory.
func (m *Manager) checkTags(tags json.RawMessage) error {
	if len(tags) > m.cfg.MaxTagsBytes {
		return errorf(InvalidArgument, "tags: %d bytes, at most %d (the server's --max-tags-bytes)",
			len(tags), m.cfg.MaxTagsBytes)
	}
	if len(tags) > 0 && !isJSONObject(tags) {
		return errorf(InvalidArgument, "tags must be a JSON object")
	}
	if d := jsonDepth(tags); d > MaxTagsDepth {
		return errorf(InvalidArgument,
			"tags: nested %d deep, at most %d (objects and arrays within one another, the tags object included)", d, MaxTagsDepth)
	}
	return nil
}

// MaxTagsDepth bounds how deep a reset's tags nest, the tags object
// itself counting 1: every JSON reader reads them back (Python's json
// stops near 1,000; Go's encoding/json at 10,000).
const MaxTagsDepth = 32

// jsonDepth is how deep valid JSON nests: its largest count of objects
// and arrays open at once. Brackets inside strings do not count.
func jsonDepth(raw []byte) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// isJSONObject reports whether raw is one JSON object: valid JSON that
// opens with a brace (the scanner of json.Valid, without decoding it).
func isJSONObject(raw json.RawMessage) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && t[0] == '{' && json.Valid(raw)
}
