package env

import "github.com/sqlgym/sqlgym/schemas"

// Task is one question with its gold answer.
type Task struct {
	ID         string // unique across datasets: "<dataset>/<key>"
	Dataset    string
	DBID       string
	Question   string
	Evidence   string // external knowledge (BIRD), shown with the question
	Difficulty string // easy, medium, hard, ... where the dataset says

	// GoldSQL is the reference query. Empty when the gold is given as rows.
	GoldSQL string
	// GoldRows is the reference answer for weak supervision, where a task
	// has question-answer pairs only; used when GoldSQL is empty, or when
	// GoldSQL fails on the engine (a task imported into another dialect
	// carries both).
	GoldRows [][]any
	// GoldSegments, when set, are every right answer of a task given as
	// rows whose gold has ties (a LIMIT cutting through rows that tie
	// under its ORDER BY, or a LIMIT without one): an answer takes Take
	// rows of each segment's Rows. GoldRows is then one of them.
	GoldSegments []Segment
}

// Segment is a part of a gold given as rows: Take of its Rows, any of
// them (rows that tie under the gold's ORDER BY).
type Segment struct {
	Rows [][]any
	Take int
}

// Summary is the task as tasks.list shows it.
func (t *Task) Summary() schemas.TaskSummary {
	return schemas.TaskSummary{
		TaskID: t.ID, Dataset: t.Dataset, DBID: t.DBID,
		Question: t.Question, Evidence: t.Evidence, Difficulty: t.Difficulty,
	}
}

// View is the task as an episode shows it.
func (t *Task) View(dialect Dialect) schemas.TaskView {
	return schemas.TaskView{
		TaskID: t.ID, Dataset: t.Dataset, DBID: t.DBID, Question: t.Question,
		Evidence: t.Evidence, Difficulty: t.Difficulty, Dialect: string(dialect),
	}
}
