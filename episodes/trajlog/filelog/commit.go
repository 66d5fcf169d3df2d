package filelog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

// flushLoop is the one goroutine that fsyncs the log; Close stops it.
// Under DurabilityEpisode each End that needs its line on disk kicks it;
// one fsync then covers every line written so far, so End calls that
// arrive while an fsync runs share the next one. Under
// DurabilityInterval it fsyncs every SyncInterval, when anything was
// written since the last fsync.
func (l *Log) flushLoop() {
	defer close(l.flushDone)
	var tick <-chan time.Time
	if l.opts.Durability == trajlog.DurabilityInterval {
		t := time.NewTicker(l.opts.SyncInterval)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-l.stop:
			return
		case <-tick:
			l.commit()
			continue
		case <-l.kick:
		}
		if d := l.opts.CommitDelay; d > 0 && l.othersLive() {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-l.stop:
				t.Stop()
				return // Close seals the segment, which syncs it
			}
		}
		l.commit()
	}
}

// othersLive reports whether episodes are live, whose ends a commit may
// wait for.
func (l *Log) othersLive() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.live) > 0
}

// commit fsyncs the segment being written and wakes the End calls it
// covers.
func (l *Log) commit() {
	l.mu.Lock()
	f, target, failed := l.seg.f, l.written, l.failed
	l.mu.Unlock()
	if failed != nil {
		l.markSynced(0, failed)
		return
	}
	if l.syncedUpTo() >= target {
		return
	}
	err := f.Sync()
	l.fsyncs.Add(1)
	if errors.Is(err, os.ErrClosed) {
		// A rotation sealed the segment, with an fsync, after target was
		// read; it holds mu until it has set failed if that went wrong.
		l.mu.Lock()
		err = l.failed
		l.mu.Unlock()
	} else if err != nil {
		// After a failed fsync the kernel may have dropped the dirty
		// pages: nothing later can be trusted to reach the disk.
		err = fmt.Errorf("fsync %s: %w", f.Name(), err)
		l.mu.Lock()
		l.failed = err
		l.mu.Unlock()
	}
	l.markSynced(target, err)
}

func (l *Log) syncedUpTo() int64 {
	l.smu.Lock()
	defer l.smu.Unlock()
	return l.synced
}

// markSynced records that the first target bytes are on disk, or that an
// fsync failed (which every later wait reports), and wakes the waiters.
func (l *Log) markSynced(target int64, err error) {
	l.smu.Lock()
	defer l.smu.Unlock()
	if err != nil && l.syncErr == nil {
		l.syncErr = err
	}
	if err == nil && target > l.synced {
		l.synced = target
	}
	close(l.syncedCh)
	l.syncedCh = make(chan struct{})
}

// waitSynced returns once the first seq bytes are on disk.
func (l *Log) waitSynced(ctx context.Context, seq int64) error {
	for {
		l.smu.Lock()
		synced, serr, ch := l.synced, l.syncErr, l.syncedCh
		l.smu.Unlock()
		if synced >= seq {
			return nil
		}
		if serr != nil {
			return fmt.Errorf("commit trajectory: %w", serr)
		}
		select {
		case l.kick <- struct{}{}:
		default:
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("commit trajectory: %w", ctx.Err())
		}
	}
}
