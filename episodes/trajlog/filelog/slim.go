package filelog

import (
	"github.com/sqlgym/sqlgym/schemas"
)

// A done line is the slim end of an episode whose begin and every step
// were logged: it holds only what the end set (endFields), and a reader
// takes the rest of the record, its header, from the begin line. It is
// an event kind of its own, not an end line with a marker, so that a
// reader that predates it reports it as damage instead of handing over
// a record with an empty header. The header (episode id, task, tags,
// reward spec and its hash, action format, tools, max turns, prompt
// messages, start time, server version) is set at reset and never
// changes, so the begin line already holds it as the end would.

// endFields are the fields of a trajectory that are set or change once
// it has begun (schemas.TrajectoryEnd): the outcome, the rewards, the end
// time and the close components. Their JSON names are the Trajectory's,
// so that a slim end's record decodes as a Trajectory with only these
// fields set.
type endFields = schemas.TrajectoryEnd

// endOf is what t's end set.
func endOf(t *schemas.Trajectory) endFields {
	return endFields{EndedAt: t.EndedAt, Outcome: t.Outcome, FinalReward: t.FinalReward,
		TotalReward: t.TotalReward, CloseComponents: t.CloseComponents}
}

// setEnd puts the end's fields e on t, a record rebuilt from its begin.
func setEnd(t *schemas.Trajectory, e endFields) {
	t.EndedAt, t.Outcome, t.FinalReward = e.EndedAt, e.Outcome, e.FinalReward
	t.TotalReward, t.CloseComponents = e.TotalReward, e.CloseComponents
}

// slimEvent is a done line as it is written; it reads back as an end
// event with Slim set and a Traj holding only the end's fields.
type slimEvent struct {
	Ev    string    `json:"ev"` // evDone
	Ep    string    `json:"ep"`
	Traj  endFields `json:"traj"`
	Turns int       `json:"turns,omitempty"`
}

// asEnd turns a done event, as decoded, into the end event with Slim set
// that readers rebuild from.
func asEnd(ev *event) {
	if ev.Ev == evDone {
		ev.Ev, ev.Slim = evEnd, true
	}
}

// withBegin is the record of a slim end (its Traj) on the header of
// begun, the record its begin line and step lines rebuilt.
func withBegin(begun, end *schemas.Trajectory) schemas.Trajectory {
	t := *begun
	setEnd(&t, endOf(end))
	return t
}
