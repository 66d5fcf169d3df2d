package pgstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
)

// episodeRow is one episode as read, before its steps are attached.
type episodeRow struct {
	seq       int64
	startedAt time.Time // as stored, for the cursor
	rec       *trajlog.Record
}

// scanEpisode reads one row of "seq, " + episodeColumns.
func scanEpisode(row pgx.CollectableRow) (*episodeRow, error) {
	var (
		e                      = &episodeRow{rec: &trajlog.Record{}}
		t                      = &e.rec.Trajectory
		dataset, taskID        string
		task, tags, spec, msgs []byte
		closeComps, extra      []byte
		x                      episodeExtra
		endedAt                *time.Time
		outcome                *string
	)
	err := row.Scan(&e.seq, &t.EpisodeID, &dataset, &taskID, &task, &tags, &spec, &t.RewardSpecHash,
		&t.ActionFormat, &t.MaxTurns, &msgs, &t.ServerVersion, &e.startedAt, &endedAt, &outcome,
		&t.FinalReward, &t.TotalReward, &closeComps, &extra)
	if err != nil {
		return nil, err
	}
	t.StartedAt = e.startedAt.UTC()
	if endedAt != nil {
		u := endedAt.UTC()
		t.EndedAt = &u
	}
	if outcome != nil {
		t.Outcome = *outcome
	}
	t.Tags = compact(tags)
	t.Steps = []schemas.StepRecord{}
	e.rec.Complete = endedAt != nil
	for _, d := range []struct {
		raw []byte
		v   any
	}{{task, &t.Task}, {spec, &t.RewardSpec}, {msgs, &t.Messages}, {closeComps, &t.CloseComponents}, {extra, &x}} {
		if err := decode(d.raw, d.v); err != nil {
			return nil, fmt.Errorf("episode %s: %w", t.EpisodeID, err)
		}
	}
	t.Tools, t.MaxCallsPerTurn, t.PromptStyle = x.Tools, x.MaxCallsPerTurn, x.PromptStyle
	return e, nil
}

// scanStep reads one row of stepColumns.
func scanStep(rows pgx.Rows) (string, schemas.StepRecord, error) {
	var (
		id                        string
		st                        schemas.StepRecord
		action, args, toolErr, rm []byte
		comps, extra              []byte
		outcome                   *string
	)
	err := rows.Scan(&id, &st.Turn, &st.Tool, &action, &args, &st.Observation, &toolErr, &rm,
		&st.Reward, &comps, &outcome, &st.ElapsedMS, &st.At, &extra)
	if err != nil {
		return "", st, err
	}
	st.At = st.At.UTC()
	st.Arguments = compact(args)
	if outcome != nil {
		st.Outcome = *outcome
	}
	for _, d := range []struct {
		raw []byte
		v   any
	}{{action, &st.Action}, {toolErr, &st.Error}, {rm, &st.ResultMeta}, {comps, &st.RewardComponents}, {extra, &st}} {
		if err := decode(d.raw, d.v); err != nil {
			return "", st, fmt.Errorf("episode %s step %d: %w", id, st.Turn, err)
		}
	}
	st.Action.Arguments = compact(st.Action.Arguments)
	return id, st, nil
}

// finish completes a record once its steps are attached: an episode whose
// end was never recorded has the reward its steps were paid.
func (e *episodeRow) finish() {
	if e.rec.Complete {
		return
	}
	total := 0.0
	for _, st := range e.rec.Steps {
		total += st.Reward
	}
	e.rec.TotalReward = total
}

// decode unmarshals a jsonb value; SQL NULL leaves v as it is.
func decode(raw []byte, v any) error {
	if raw == nil {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	return nil
}

// compact is jsonb text without the spaces PostgreSQL adds; nil for NULL.
func compact(raw []byte) json.RawMessage {
	if raw == nil {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}
