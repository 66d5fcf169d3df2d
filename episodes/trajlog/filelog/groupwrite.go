package filelog

import "fmt"

// Lines are written in groups. An appender that finds no write in
// progress and no group waiting becomes the writer: it writes its line at
// once, with the log's mutex released during the system call. Appenders
// that come while a write is in progress join the group waiting for the
// next write; the first of them leads it: once the write in progress is
// done it writes the whole group, however many joined meanwhile, in one
// write(2). Each writer writes one group and returns, so no appender's
// own step waits while the writer writes others' lines. Every appender
// returns once its line is with the operating system (or has failed),
// and lines keep the order in which their appenders took the mutex.

// pendingLine is a queued line: its length and the summary change it
// makes once written.
type pendingLine struct {
	n      int
	change change
}

// group is one write's outcome, shared by the appenders whose lines it
// carried.
type group struct {
	done chan struct{} // closed once seq and err are set
	seq  int64         // the log's size after the write
	err  error
}

// append writes one line (see the top of this file), rotating first when
// the segment cannot take it, and counts it in the segment's summary. It
// returns the log's size after the write that carried the line, which End
// waits to see fsynced.
func (l *Log) append(line []byte, c change) (int64, error) {
	l.mu.Lock()
	if err := l.writableLocked(); err != nil {
		l.mu.Unlock()
		return 0, err
	}
	if l.writing || l.next != nil {
		return l.joinGroup(line, c)
	}
	l.writing = true
	seq, err := l.writeGroupLocked(line, []pendingLine{{len(line), c}})
	l.writing = false
	l.idle.Broadcast()
	l.mu.Unlock()
	return seq, err
}

// joinGroup adds line to the group waiting for the next write and waits
// for that write. The appender that started the group writes it once the
// write in progress is done; the others wait for it. Called with mu held,
// which it releases.
func (l *Log) joinGroup(line []byte, c change) (int64, error) {
	lead := l.next == nil
	if lead {
		l.next = &group{done: make(chan struct{})}
	}
	g := l.next
	l.queued = append(l.queued, line...) // line's buffer goes back to its pool on return
	l.queuedLines = append(l.queuedLines, pendingLine{len(line), c})
	if !lead {
		l.mu.Unlock()
		<-g.done
		return g.seq, g.err
	}
	for l.writing {
		l.idle.Wait()
	}
	l.writing = true
	l.flushQueuedLocked()
	l.writing = false
	l.idle.Broadcast()
	l.mu.Unlock()
	return g.seq, g.err
}

// writableLocked says why the log takes no line, if it does not.
func (l *Log) writableLocked() error {
	switch {
	case l.opts.ReadOnly:
		return ErrReadOnly
	case l.closed:
		return ErrClosed
	case l.failed != nil:
		return fmt.Errorf("trajectory log stopped: %w", l.failed)
	}
	return nil
}

// flushQueuedLocked writes the lines queued so far as one group and wakes
// their appenders.
func (l *Log) flushQueuedLocked() {
	buf, lines, g := l.queued, l.queuedLines, l.next
	l.queued, l.queuedLines, l.next = l.spare[:0], l.spareLines[:0], nil
	if err := l.writableFailedLocked(); err != nil {
		g.err = err
	} else {
		g.seq, g.err = l.writeGroupLocked(buf, lines)
	}
	close(g.done)
	l.spare, l.spareLines = buf[:0], lines[:0]
}

// writableFailedLocked is writableLocked for lines already queued: a log
// closed meanwhile still writes them (Close waits for the writer), one
// that failed does not.
func (l *Log) writableFailedLocked() error {
	if l.failed != nil {
		return fmt.Errorf("trajectory log stopped: %w", l.failed)
	}
	return nil
}

// writeGroupLocked writes buf, the lines described by lines, in one
// write(2), rotating first when the segment cannot take them. The caller
// is the writer and holds mu, which is released during the system call.
func (l *Log) writeGroupLocked(buf []byte, lines []pendingLine) (int64, error) {
	if l.seg.size > 0 && l.seg.size+int64(len(buf)) > l.opts.SegmentBytes {
		if err := l.rotateLocked(); err != nil {
			l.failed = err
			l.markSynced(0, err)
			return 0, err
		}
	}
	seg := l.seg
	l.mu.Unlock()
	if l.beforeWrite != nil {
		l.beforeWrite()
	}
	n, err := seg.f.Write(buf)
	l.writes.Add(1)
	l.mu.Lock()
	if err != nil {
		if n > 0 {
			if terr := seg.f.Truncate(seg.size); terr != nil {
				l.failed = fmt.Errorf("cut off a torn line: %w", terr)
			}
		}
		return 0, fmt.Errorf("write trajectory: %w", err)
	}
	seg.size += int64(n)
	l.written += int64(n)
	l.bytes.Add(int64(n))
	l.lines.Add(int64(len(lines)))
	for _, p := range lines {
		seg.sum.add(p.n)
		p.change.apply(seg.sum)
	}
	return l.written, nil
}
