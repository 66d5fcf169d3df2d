package trajlog

import "context"

// Unwrapper is a Reader that narrows another: Unwrap returns the one it
// reads through.
type Unwrapper interface {
	Unwrap() Reader
}

// TaskReader reads the episodes of some tasks only; a Filter names one
// task at most (TaskID), this any number.
type TaskReader struct {
	Reader
	ids map[string]bool
}

// OnlyTasks is rd reading the episodes of the tasks ids names only.
func OnlyTasks(rd Reader, ids []string) *TaskReader {
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	return &TaskReader{Reader: rd, ids: set}
}

// Episodes calls fn with the episodes of the reader's tasks that pass f.
func (t *TaskReader) Episodes(ctx context.Context, f Filter, fn func(*Record) error) error {
	return t.Reader.Episodes(ctx, f, func(r *Record) error {
		if !t.ids[r.Task.TaskID] {
			return nil
		}
		return fn(r)
	})
}

// Unwrap is the reader t narrows.
func (t *TaskReader) Unwrap() Reader { return t.Reader }
