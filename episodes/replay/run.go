package replay

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

// Summary counts the episodes and steps of a replay.
type Summary struct {
	Episodes     int
	Reproduced   int
	Diverged     int
	Unverifiable int
	Steps        int // recorded steps of the episodes replayed
	StepsMatched int // steps whose replay matched the record
}

func (s *Summary) add(r *Result) {
	s.Episodes++
	s.Steps += r.Steps
	s.StepsMatched += r.Matched
	switch r.Status {
	case Reproduced:
		s.Reproduced++
	case Diverged:
		s.Diverged++
	default:
		s.Unverifiable++
	}
}

// String is the summary as one line.
func (s Summary) String() string {
	line := fmt.Sprintf("%d episodes: %d reproduced, %d diverged, %d unverifiable; %d of %d steps reproduced",
		s.Episodes, s.Reproduced, s.Diverged, s.Unverifiable, s.StepsMatched, s.Steps)
	if s.Steps == 0 {
		return line // no rate of nothing
	}
	return line + fmt.Sprintf(" (%.1f%%)", 100*float64(s.StepsMatched)/float64(s.Steps))
}

// Run replays every episode of rd that passes f, Config.Workers at a
// time, and calls fn with each result (one call at a time, in the order
// they finish). It stops at the first error of rd or fn.
func (r *Replayer) Run(ctx context.Context, rd trajlog.Reader, f trajlog.Filter, fn func(*Result) error) (Summary, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		sum   Summary
		mu    sync.Mutex // guards sum, fnErr and the calls of fn
		fnErr error
		g     errgroup.Group
	)
	g.SetLimit(r.workers)
	err := rd.Episodes(ctx, f, func(rec *trajlog.Record) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		g.Go(func() error {
			if ctx.Err() != nil {
				return nil // stopped while this one waited for a slot
			}
			res := r.Episode(ctx, rec)
			mu.Lock()
			defer mu.Unlock()
			if fnErr == nil && ctx.Err() == nil {
				sum.add(res)
				if fnErr = fn(res); fnErr != nil {
					cancel()
				}
			}
			return nil
		})
		return nil
	})
	g.Wait()
	if fnErr != nil {
		return sum, fnErr
	}
	return sum, err
}

// Text is the result as a line, and a line for each difference.
func (res *Result) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s %s %s: %d/%d steps", res.Status, res.EpisodeID, res.TaskID, res.Matched, res.Steps)
	if res.Reason != "" {
		fmt.Fprintf(&b, " (%s)", res.Reason)
	}
	b.WriteByte('\n')
	for _, d := range res.Diffs {
		where := fmt.Sprintf("turn %d", d.Turn)
		if d.Turn == 0 {
			where = "episode"
		}
		fmt.Fprintf(&b, "    %s %s:\n      recorded %q\n      replayed %q\n", where, d.Field, d.Recorded, d.Replayed)
	}
	return b.String()
}
