package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

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
	fmt.Fprint(stdout, rep.Text())
	if !rep.Clean() {
		return damageError{fmt.Sprintf("log verify: %s is damaged", dir)}
	}
	return nil
}
