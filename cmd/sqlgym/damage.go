package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
)

// damageError says the trajectory log is damaged; the command exits with
// exitDamaged.
type damageError struct{ msg string }

func (e damageError) Error() string { return e.msg }

// reportIDs is the most episode ids a reading command names per damaged
// segment; sqlgym log verify names them all.
const reportIDs = 20

// damageFlags say what a reading command does about a damaged log.
type damageFlags struct {
	allow bool
}

func (d *damageFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&d.allow, "allow-damage", false, "exit 0 although the trajectory log has damaged lines (they are reported on standard error either way)")
}

// report writes the damage rd's read found to w (standard error) and,
// unless damage is allowed, returns a damageError for cmd to exit with.
// Readers other than the file log report nothing.
func (d *damageFlags) report(w io.Writer, cmd string, rd trajlog.Reader) error {
	ds := filelog.DamageOf(rd)
	if len(ds) == 0 {
		return nil
	}
	fmt.Fprintf(w, "%s: %s", cmd, filelog.DamageReport(ds, reportIDs))
	fmt.Fprintf(w, "%s: the damaged lines were skipped and every episode on undamaged lines read; "+
		"`sqlgym log verify` lists the whole log's damage\n", cmd)
	if d.allow {
		return nil
	}
	return damageError{fmt.Sprintf("%s: the trajectory log is damaged: %s (reported above; --allow-damage exits 0)",
		cmd, filelog.SummarizeDamage(ds))}
}
