package tools

import (
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/schemas"
)

// SubmitText renders the observation of a submit by its outcome
// (schemas.Outcome*); message is the engine's message of a failed query.
// The text stays within DefaultObservationBytes.
func SubmitText(outcome, message string) string {
	var s string
	switch outcome {
	case schemas.OutcomeCorrect:
		s = "Submitted. Correct."
	case schemas.OutcomeMismatch:
		s = "Submitted. The result does not match the expected answer."
	case schemas.OutcomePredError:
		s = "Submitted. The query failed: " + message
	case schemas.OutcomePredTimeout:
		s = "Submitted. The query ran past the time limit."
	case schemas.OutcomeGoldError, schemas.OutcomeGoldTimeout:
		s = "Submitted. The expected answer of this task could not be computed, so the submission was not scored; this is not held against you."
	default:
		s = strings.TrimSpace("Submitted. " + message)
	}
	return clip(s, DefaultObservationBytes)
}

// NoTableReadText is the verdict on a submission whose result matches
// but which reads no table of the database while the answer does (SELECT
// 4 when the answer is 4), under a spec with final.requires_table_read.
const NoTableReadText = "Submitted. The result matches, but the query reads no table of the database, so it is not paid as correct: compute the answer from the data."

// TurnsLeft appends the turns-left line ("7 turns left.", "1 turn left.",
// "No turns left.") to content on a line of its own, cutting content when
// the whole would pass ObservationBytes.
func (r *Runner) TurnsLeft(content string, left int) string {
	var buf [32]byte
	line := appendTurnsLine(buf[:0], left) // copied only into the result
	limit := r.cfg.ObservationBytes
	if len(line) >= limit {
		return clip(string(line), limit)
	}
	if content == "" {
		return string(line)
	}
	return clip(content, limit-len(line)-1) + "\n" + string(line)
}

func appendTurnsLine(dst []byte, left int) []byte {
	switch {
	case left <= 0:
		return append(dst, "No turns left."...)
	case left == 1:
		return append(dst, "1 turn left."...)
	}
	return append(strconv.AppendInt(dst, int64(left), 10), " turns left."...)
}
