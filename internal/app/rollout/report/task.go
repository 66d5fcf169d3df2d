package report

import "crypto/sha256"

// voteID is a vote key, hashed: every key costs the same few bytes,
// however long the SQL text it was made of.
type voteID [16]byte

func voteIDOf(key string) voteID {
	sum := sha256.Sum256([]byte(key))
	return voteID(sum[:16])
}

// vote is one group of a task's self-consistency vote: how many samples
// it has, and the first of them (its order, and whether it was correct).
type vote struct {
	count, first int
	correct      bool
}

// taskAgg is what the report keeps of a task while episodes stream by:
// counts, one entry per distinct answer, one bit per sample index. It
// holds no trajectory.
type taskAgg struct {
	id, difficulty, db string // as its first episode gave them
	n, c               int    // episodes counted, correct ones
	first              int    // correct ones at the first shot
	votes              map[voteID]vote
	seen, ended        sampleSet // a sampled run's indexes: any episode, one that ended by its steps
	constant           *ConstantAnswer
	fail               *failure  // the last failing episode counted (by order)
	failOrder          int       // its order
	gold               goldCount // the gold's rows, asked for on a mismatch
}

// add counts one of the task's episodes.
func (t *taskAgg) add(f *fact) {
	t.n++
	if f.correct {
		t.c++
	}
	if f.firstShot {
		t.first++
	}
	if f.fail != nil && (t.fail == nil || f.order >= t.failOrder) {
		t.fail, t.failOrder = f.fail, f.order
	}
	if f.noTable {
		if t.constant == nil {
			t.constant = &ConstantAnswer{TaskID: t.id, EpisodeID: f.episode, SQL: clipSQL(f.sql)}
		}
		t.constant.Episodes++
	}
	if f.vote == "" {
		return
	}
	if t.votes == nil {
		t.votes = map[voteID]vote{}
	}
	k := voteIDOf(f.vote)
	v, ok := t.votes[k]
	if !ok {
		t.votes[k] = vote{count: 1, first: f.order, correct: f.correct}
		return
	}
	v.count++
	if f.order < v.first {
		v.first, v.correct = f.order, f.correct
	}
	t.votes[k] = v
}

// scRight reports whether the task's majority vote is correct: the
// largest group wins, a tie goes to the group whose first sample came
// first, and the task counts as correct when that group's first
// submission was. A task no submission of which ran counts as wrong.
func (t *taskAgg) scRight() bool {
	var best vote
	var bestID voteID
	for id, v := range t.votes {
		if best.count == 0 || v.count > best.count || v.count == best.count &&
			(v.first < best.first || v.first == best.first && string(id[:]) < string(bestID[:])) {
			best, bestID = v, id
		}
	}
	return best.count > 0 && best.correct
}

// unfinished counts the task's samples none of whose episodes ended by
// their own steps.
func (t *taskAgg) unfinished() int { return t.seen.len() - t.ended.len() }

// tally is what pass@k and the vote need of the task.
func (t *taskAgg) tally() taskTally { return taskTally{n: t.n, c: t.c, scRight: t.scRight()} }
