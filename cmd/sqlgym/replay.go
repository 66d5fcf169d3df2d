package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sqlgym/sqlgym/episodes/replay"
)

// replayFlags are the flags of sqlgym replay.
type replayFlags struct {
	offlineFlags
	workers int
	all     bool
}

// runReplay re-executes every recorded step of the selected episodes and
// reports, per episode, whether observations and rewards reproduce, and
// the damage found in the log. It fails when an episode diverged.
func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("replay", stderr)
	var f replayFlags
	f.offlineFlags.register(fs)
	fs.IntVar(&f.workers, "workers", 2, "episodes replayed at once")
	fs.BoolVar(&f.all, "all", false, "list every episode, not only those that diverged or could not be verified")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if f.workers < 1 {
		return usageError{"replay: --workers must be at least 1"}
	}
	off, flt, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer off.close()
	rp, err := replay.New(replay.Config{Datasets: off.datasets, Catalog: off.catalog, Runner: off.runner,
		Judge: off.judge, Workers: f.workers, MaxCallsPerTurn: f.stack.maxCalls})
	if err != nil {
		return err
	}
	sum, err := rp.Run(ctx, off.reader, flt, func(r *replay.Result) error {
		if f.all || r.Status != replay.Reproduced {
			_, err := io.WriteString(stdout, r.Text())
			return err
		}
		return nil
	})
	if err != nil && sum.Episodes == 0 {
		return fmt.Errorf("replay: %w", err) // nothing was replayed: no summary to give
	}
	fmt.Fprintln(stdout, "replay:", sum)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	derr := f.damage.report(stderr, "replay", off.reader)
	return errors.Join(replayVerdict(sum), derr)
}

// replayVerdict fails a replay in which an episode diverged, or in which
// no episode could be checked at all: that is no evidence of
// reproduction, and must not pass as one.
func replayVerdict(sum replay.Summary) error {
	switch {
	case sum.Diverged > 0:
		return fmt.Errorf("replay: %d of %d episodes diverged", sum.Diverged, sum.Episodes)
	case sum.Episodes > 0 && sum.Unverifiable == sum.Episodes:
		return fmt.Errorf("replay: NONE of the %d episodes could be verified, so nothing was checked "+
			"(the reasons are listed above: a missing dataset or task, or another --dataset than the server's?)",
			sum.Episodes)
	}
	return nil
}
