package episodes

import (
	"container/list"

	"github.com/sqlgym/sqlgym/schemas"
)

// recentSet remembers the last ended episodes, for episode.get, for
// episode.close after the end, and to tell a step on an ended episode
// (-32002) from one on an unknown id (-32001). It keeps a summary of each
// of the last maxCount, and the whole trajectory of the newest of them
// within maxBytes of its JSON: an older one's trajectory is dropped, and
// episode.get then points to the trajectory store. Trajectories are kept
// encoded: up to maxBytes (256 MiB by default) of pointer-free bytes the
// GC never scans, where the same trajectories as structs cost 12% of the
// server's CPU in GC marking under load. Not safe for concurrent use: the
// manager's lock guards it.
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
	enc     []byte        // the trajectory's JSON (schemas.Marshal); nil once dropped
	heldAt  *list.Element // element of held; nil once dropped
}

func newRecentSet(maxCount int, maxBytes int64) *recentSet {
	return &recentSet{maxCount: maxCount, maxBytes: maxBytes, order: list.New(),
		byID: map[string]*list.Element{}, held: list.New()}
}

// put remembers an ended episode: its summary, and its trajectory
// encoded (nil: none to keep).
func (r *recentSet) put(id string, sum *schemas.CloseResult, enc []byte) {
	if _, ok := r.byID[id]; ok {
		return
	}
	e := &recentEntry{id: id, summary: sum}
	r.byID[id] = r.order.PushBack(e)
	if enc != nil {
		e.enc = enc
		e.heldAt = r.held.PushBack(e)
		r.bytes += int64(len(enc))
	}
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
	r.bytes -= int64(len(e.enc))
	e.enc, e.heldAt = nil, nil
}

// get returns the entry of an ended episode, or nil when it is not
// remembered at all.
func (r *recentSet) get(id string) *recentEntry {
	if e, ok := r.byID[id]; ok {
		return e.Value.(*recentEntry)
	}
	return nil
}
