package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
)

// logVerbs are the verbs of sqlgym log.
const logVerbs = `usage: sqlgym log VERB [flags]

verbs:
  verify    read every segment of the trajectory log under --data-dir: check each
            line's checksum and each index against its segment; report what is
            damaged and the episodes it touched (exit 3 when damaged). Changes nothing.
`

// runLog runs a verb on the trajectory log.
func runLog(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, logVerbs)
		return usageError{"log: no verb given: want verify"}
	}
	switch args[0] {
	case "verify":
		return runLogVerify(ctx, args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stderr, logVerbs)
		return flag.ErrHelp
	}
	fmt.Fprint(stderr, logVerbs)
	return usageError{fmt.Sprintf("unknown log verb %q: want verify", args[0])}
}

// runLogVerify is sqlgym log verify: an fsck of the trajectory log. It
// prints a line per segment and a summary, and fails with exitDamaged
// when a line or an index is damaged. It reads beside a running server.
func runLogVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("log verify", stderr)
	dataDir := fs.String("data-dir", defaultDataDir, "where serve keeps the trajectory log (<data-dir>/trajectories)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	dir := filelog.LogDir(*dataDir)
	if _, err := os.Stat(dir); err != nil {
		return fmt.Errorf("--data-dir: no trajectory log at %s (serve records there): %w", dir, err)
	}
	l, err := filelog.Open(dir, filelog.Options{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("--data-dir: %w", err)
	}
	defer l.Close()
	rep, err := l.Verify(ctx)
	if err != nil {
		return fmt.Errorf("log verify: %w", err)
	}
	fmt.Fprint(stdout, verifyText(rep))
	if !rep.Clean() {
		return damageError{fmt.Sprintf("log verify: %s is damaged", dir)}
	}
	return nil
}

// verifyText renders a verification: a line per segment, then a summary.
func verifyText(rep *filelog.VerifyReport) string {
	var b strings.Builder
	for _, c := range rep.Segments {
		switch {
		case c.Damage != nil:
			fmt.Fprintf(&b, "DAMAGED %s\n", c.Damage)
		default:
			fmt.Fprintf(&b, "ok      %s (%d bytes, %d lines%s)\n", c.Segment, c.Bytes, c.Lines, segmentNotes(&c))
		}
		if c.IndexFault != "" {
			fmt.Fprintf(&b, "INDEX   %s: faulty index: %s\n", c.Segment, c.IndexFault)
		}
	}
	fmt.Fprintf(&b, "log verify: %d segments, %d lines, %d episodes: ", len(rep.Segments), rep.Lines, rep.Episodes)
	if rep.Clean() {
		b.WriteString("clean\n")
		return b.String()
	}
	ds := rep.Damage()
	sum := filelog.SummarizeDamage(ds)
	fmt.Fprintf(&b, "%d damaged segments (%d lines; %d episodes touched", sum.Segments, sum.Lines, sum.Episodes)
	if sum.Unidentified > 0 {
		fmt.Fprintf(&b, ", and %d whose ids are unknown", sum.Unidentified)
	}
	fmt.Fprintf(&b, "), %d faulty indexes\n", rep.IndexFaults())
	b.WriteString("the readers skip the damaged lines and read every episode on undamaged ones (replay, rescore and export exit 3 unless --allow-damage)\n")
	return b.String()
}

// segmentNotes explains what is normal but worth saying about a segment.
func segmentNotes(c *filelog.SegmentCheck) string {
	var notes []string
	if c.NoIndex {
		notes = append(notes, "no index: being written, or left by a crash; the next server start builds it")
	}
	if c.TornTail {
		notes = append(notes, "last line torn: being written, or torn by a crash; the next server start cuts it off")
	}
	if len(notes) == 0 {
		return ""
	}
	return "; " + strings.Join(notes, "; ")
}
