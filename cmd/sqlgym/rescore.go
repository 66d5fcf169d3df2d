package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sqlgym/sqlgym/episodes/export"
	"github.com/sqlgym/sqlgym/episodes/replay"
	"github.com/sqlgym/sqlgym/examples/rewards"
)

// rescoreFlags are the flags of sqlgym rescore.
type rescoreFlags struct {
	offlineFlags
	rewardFile string
	out        string
}

// runRescore pays the selected episodes under another reward spec and
// prints how the reward distribution and the outcome counts changed, and
// the damage found in the log.
func runRescore(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("rescore", stderr)
	var f rescoreFlags
	f.offlineFlags.register(fs)
	fs.StringVar(&f.rewardFile, "reward", "", "the spec to pay under: a preset `name` (default, binary, retoolsql, arctic-text2sql-r1) or a reward spec file (JSON, merged over the defaults, as serve reads it; required)")
	fs.StringVar(&f.out, "out", "", "write the rescored trajectory records to this `file` (JSON lines, as export --format raw)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if f.rewardFile == "" {
		return usageError{"rescore: --reward is required"}
	}
	spec, err := rewards.Load(f.rewardFile)
	if err != nil {
		return fmt.Errorf("--reward: %w", err)
	}
	off, flt, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer off.close()
	rs := replay.NewRescorer(replay.RescoreConfig{Spec: spec, Datasets: off.datasets, Catalog: off.catalog, Judge: off.judge})
	var rep *replay.RescoreReport
	run := func(w io.Writer) error {
		rep, err = rs.Run(ctx, off.reader, flt, func(r *replay.Rescored) error {
			if w == nil {
				return nil
			}
			return export.WriteRaw(w, r.Record)
		})
		return err
	}
	if f.out == "" {
		err = run(nil)
	} else {
		err = writeFile(f.out, run)
	}
	var missing *replay.MissingDatasetError
	if errors.As(err, &missing) {
		return usageError{fmt.Sprintf("rescore: the episodes' submissions must be judged again under this spec, on dataset %q, which is not loaded: give it with --dataset %s=FORMAT:PATH (FORMAT spider, bird or jsonl); nothing was rescored",
			missing.Dataset, missing.Dataset)}
	}
	if rep != nil {
		fmt.Fprint(stdout, rep.Summary())
	}
	if err != nil {
		return fmt.Errorf("rescore: %w", err)
	}
	if f.out != "" {
		fmt.Fprintf(stdout, "\nwrote %d rescored records to %s\n", rep.Episodes, f.out)
	}
	return f.damage.report(stderr, "rescore", off.reader)
}
