package suitegen

import "github.com/sqlgym/sqlgym/reward/testsuite"

// Report is what a build did, dataset-wide; it marshals to JSON.
type Report struct {
	Dataset   string     `json:"dataset"`
	Databases []DBReport `json:"databases"`
	Totals    Totals     `json:"totals"`
}

// DBReport is the build of one source database's suites.
type DBReport struct {
	DBID string `json:"db_id"`
	// Reused is set when the suites on disk were current and kept.
	Reused bool `json:"reused"`
	// Figures are the build's: time, candidates and held-out databases
	// generated, databases kept and their bytes (those of the build that
	// made them, for reused suites).
	testsuite.Figures
	// Golds counts the distinct gold queries; Timeouts adds up their runs
	// over the time limit.
	Golds    int          `json:"golds"`
	Timeouts int          `json:"timeouts"`
	Tasks    []TaskReport `json:"tasks"`
}

// TaskReport is one task's suite: its size and its gold's counts.
type TaskReport struct {
	TaskID string `json:"task_id"`
	Suite  int    `json:"suite"`
	testsuite.Counts
}

// Totals add up the databases and tasks of a build. The neighbour counts
// add up over tasks: a gold asked by two tasks counts twice, as each task
// is judged.
type Totals struct {
	Databases int     `json:"databases"`
	Reused    int     `json:"reused"`
	Seconds   float64 `json:"seconds"` // database build times added up
	Files     int     `json:"files"`
	Bytes     int64   `json:"bytes"`
	Golds     int     `json:"golds"`
	Tasks     int     `json:"tasks"`
	// SuiteDatabases adds up the tasks' suite sizes.
	SuiteDatabases    int `json:"suite_databases"`
	Neighbours        int `json:"neighbours"`
	ByOriginal        int `json:"by_original"`
	BySuite           int `json:"by_suite"`
	HeldOutApart      int `json:"held_out_apart"`
	SuiteOfHeldOut    int `json:"suite_of_held_out"`
	OriginalOfHeldOut int `json:"original_of_held_out"`
	// Nondeterministic are the tasks whose gold depends on tie order on
	// the source database; GoldFailed those whose gold fails there.
	Nondeterministic int `json:"nondeterministic"`
	GoldFailed       int `json:"gold_failed"`
	// TiedCandidates adds up the candidates passed over for tie order.
	TiedCandidates int `json:"tied_candidates"`
	// Timeouts adds up the golds' runs over the time limit, each gold
	// once (not once per task).
	Timeouts int `json:"timeouts"`
}

// SuiteShare is the figure a suite is measured by: of the neighbours some
// held-out database tells apart, the share the suites tell apart (0 when
// none was drawn).
func (t Totals) SuiteShare() float64 { return share(t.SuiteOfHeldOut, t.HeldOutApart) }

// OriginalShare is the same share for the source databases alone.
func (t Totals) OriginalShare() float64 { return share(t.OriginalOfHeldOut, t.HeldOutApart) }

// MeanSuite is the mean suite size of a task.
func (t Totals) MeanSuite() float64 { return share(t.SuiteDatabases, t.Tasks) }

// share is n/of, or 0 when of is 0.
func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// add counts one database's report into the totals.
func (t *Totals) add(db DBReport) {
	t.Databases++
	if db.Reused {
		t.Reused++
	}
	t.Seconds += db.Seconds
	t.Files += db.Files
	t.Bytes += db.Bytes
	t.Golds += db.Golds
	t.Timeouts += db.Timeouts
	for _, task := range db.Tasks {
		t.addTask(task)
	}
}

// addTask counts one task into the totals.
func (t *Totals) addTask(task TaskReport) {
	t.Tasks++
	t.SuiteDatabases += task.Suite
	t.Neighbours += task.Neighbours
	t.ByOriginal += task.ByOriginal
	t.BySuite += task.BySuite
	t.HeldOutApart += task.HeldOutApart
	t.SuiteOfHeldOut += task.SuiteOfHeldOut
	t.OriginalOfHeldOut += task.OriginalOfHeldOut
	t.TiedCandidates += task.TiedCandidates
	if task.Nondeterministic {
		t.Nondeterministic++
	}
	if task.GoldFailed {
		t.GoldFailed++
	}
}
