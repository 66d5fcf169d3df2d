package rollout

import (
	"context"
	"fmt"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
)

// Key names one sample of a run: a task and the sample's index.
type Key struct {
	TaskID string
	Sample int
}

// Done reads the samples a run already played to their end: the complete
// episodes tagged run=NAME that ended by their own steps. An episode the
// run closed early (Ctrl-C, an endpoint that failed) is recorded but not
// done, and is played again.
func Done(ctx context.Context, rd trajlog.Reader, run string) (map[Key]bool, error) {
	done := map[Key]bool{}
	err := rd.Episodes(ctx, trajlog.Filter{Tags: map[string]string{TagRun: run}}, func(r *trajlog.Record) error {
		if i, ok := report.SampleOf(&r.Trajectory); ok && report.EndedByStep(&r.Trajectory) {
			done[Key{r.Task.TaskID, i}] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read run %s: %w", run, err)
	}
	return done, nil
}

// Plan lists the samples to play: k of each task, in task order, sample
// by sample, leaving out those done.
func Plan(taskIDs []string, k int, done map[Key]bool) []Sample {
	var out []Sample
	for _, id := range taskIDs {
		for i := range k {
			if !done[Key{id, i}] {
				out = append(out, Sample{TaskID: id, Index: i})
			}
		}
	}
	return out
}
