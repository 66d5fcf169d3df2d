package dbimport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/reward/judge"
)

// answerSegments is every right answer of a task given as rows whose
// SQLite gold has ties (a LIMIT cutting through rows that tie under its
// ORDER BY, or a LIMIT without one), read as the judge reads a gold under
// TiesAny; nil when the gold has one answer, row order aside. Without
// them, a prediction that returns the other tied rows would be paid or
// not by the order the target engine happens to break ties in. A probe
// the engine refuses leaves the task with its one answer.
func answerSegments(ctx context.Context, src env.DB, sqliteGold string, lim env.Limits) ([]reward.Segment, error) {
	ans, err := judge.GoldAnswer(ctx, src, sqliteGold, lim)
	var qe *env.QueryError
	switch {
	case errors.As(err, &qe), errors.Is(err, judge.ErrGoldTooLarge):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read the SQLite gold's ties: %w", err)
	case ans.Unique():
		return nil, nil
	}
	return ans.Segments, nil
}

// segmentsJSON writes segs as a task's gold_segments:
// [{"take": N, "rows": [...]}, ...], each segment's rows as gold_answer's.
func segmentsJSON(segs []reward.Segment) (json.RawMessage, error) {
	if len(segs) == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, s := range segs {
		rows, err := answerJSON(s.Rows)
		if err != nil {
			return nil, fmt.Errorf("segment %d: %w", i, err)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"take":` + strconv.Itoa(s.Take) + `,"rows":`)
		b.Write(rows)
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}
