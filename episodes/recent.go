package episodes

import (
	"container/list"

	"github.com/sqlgym/sqlgym/schemas"
)

// recentSet remembers the last ended episodes, for episode.get, for
// episode.close after the end, and to tell a step on an ended episode
// (-32002) from one on an unknown id (-32001). It keeps a summary of each
// of the last maxCount, and the whole trajectory of the newest of them
// within maxBytes (as trajectorySize counts them): an older one's
// trajectory is dropped, and episode.get then points to the trajectory
// store. Not safe for concurrent use: the manager's lock guards it.
type recentSet struct {
	maxCount int
	maxBytes int64
	bytes    int64                    // trajectory bytes held
	order    *list.List               // of *recentEntry, oldest first
	byID     map[string]*list.Element // episode id -> element of order
	held     *list.List               // of *recentEntry still holding a trajectory, oldest first
}

// recentEntry is one ended episode.
type recentEntry struct {
	id      string
	summary *schemas.CloseResult
	traj    *schemas.Trajectory // nil once dropped
	size    int64
	heldAt  *list.Element // element of held; nil once dropped
}

func newRecentSet(maxCount int, maxBytes int64) *recentSet {
	return &recentSet{maxCount: maxCount, maxBytes: maxBytes, order: list.New(),
		byID: map[string]*list.Element{}, held: list.New()}
}

// put remembers an ended episode.
func (r *recentSet) put(t *schemas.Trajectory) {
	if _, ok := r.byID[t.EpisodeID]; ok {
		return
	}
	e := &recentEntry{id: t.EpisodeID, summary: summary(t), traj: t, size: trajectorySize(t)}
	r.byID[t.EpisodeID] = r.order.PushBack(e)
	e.heldAt = r.held.PushBack(e)
	r.bytes += e.size
	for r.order.Len() > r.maxCount {
		oldest := r.order.Front()
		r.drop(oldest.Value.(*recentEntry))
		delete(r.byID, oldest.Value.(*recentEntry).id)
		r.order.Remove(oldest)
	}
	for r.bytes > r.maxBytes && r.held.Len() > 0 {
		r.drop(r.held.Front().Value.(*recentEntry))
	}
}

// drop lets go of an entry's trajectory, keeping its summary.
func (r *recentSet) drop(e *recentEntry) {
	if e.heldAt == nil {
		return
	}
	r.held.Remove(e.heldAt)
	r.bytes -= e.size
	e.traj, e.heldAt = nil, nil
}

// get returns the entry of an ended episode, or nil when it is not
// remembered at all.
func (r *recentSet) get(id string) *recentEntry {
	if e, ok := r.byID[id]; ok {
		return e.Value.(*recentEntry)
	}
	return nil
}

// trajectorySize estimates the memory a trajectory holds: the bytes of
// its texts (the client's tags, the prompt, each step's action, arguments,
// observation and result columns) plus a fixed cost per step.
func trajectorySize(t *schemas.Trajectory) int64 {
	const perStep, perRecord = 512, 1024
	n := int64(perRecord + len(t.Tags))
	for _, m := range t.Messages {
		n += int64(len(m.Content))
	}
	for i := range t.Steps {
		st := &t.Steps[i]
		n += perStep + int64(len(st.Action.Arguments)+len(st.Arguments)+len(st.Observation))
		if st.Action.Text != nil {
			n += int64(len(*st.Action.Text))
		}
		if st.ResultMeta != nil {
			for _, c := range st.ResultMeta.Columns {
				n += int64(len(c))
			}
		}
	}
	return n
}
