package main

import (
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
)

// openFileWriter opens the durable trajectory log under dataDir for
// writing; what recovery found after a crash is logged, and every sealed
// segment is verified in the background, with a warning for each damaged
// one, while the server serves. d says when the log is fsynced.
func openFileWriter(dataDir string, d durabilityFlags, log *zap.Logger) (trajlog.Writer, error) {
	l, err := filelog.Open(filelog.LogDir(dataDir), filelog.Options{Logger: log, Verify: true,
		Durability: d.mode, SyncInterval: d.syncInterval, CommitDelay: d.commitDelay})
	if errors.Is(err, filelog.ErrLocked) {
		return nil, fmt.Errorf("--data-dir %s: %w\n  another sqlgym (a server or a REPL) is using this data dir: give this one its own with --data-dir DIR,\n  or attach a REPL to the running server instead: sqlgym repl --url URL (the URL its banner prints)", dataDir, err)
	}
	if err != nil {
		return nil, fmt.Errorf("--data-dir: %w", err)
	}
	r := l.Recovery()
	log.Info("trajectory log open", zap.String("dir", l.Dir()), zap.Int("segments", r.Segments),
		zap.Int("incomplete_episodes", r.Live), zap.Int64("torn_bytes", r.TornBytes),
		zap.Stringer("durability", d.mode))
	return l, nil
}
