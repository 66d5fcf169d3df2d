package filelog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

// ReadStats count what one read of the log saw.
type ReadStats struct {
	Segments   int   // segments parsed
	Skipped    int   // segments skipped by their index
	Lines      int64 // lines parsed
	Damaged    int64 // lines skipped as damaged (torn, corrupt), the torn tail included
	Orphans    int64 // events of episodes whose begin was not read (in a skipped segment, or damaged)
	Complete   int64 // complete episodes rebuilt
	Incomplete int64 // episodes whose end was never recorded
	Matched    int64 // episodes that passed the filter and were handed over
	// TornTail counts a torn last line of the last segment, when it has
	// no index: the line being written beside a running server, or one a
	// crash tore, which the next server start cuts off. It is no damage
	// to what was written, and is not in Damage.
	TornTail int64
	// Damage is the damage read, segment by segment, with the episodes
	// it touched.
	Damage []SegmentDamage
}

// Episodes calls fn with each episode in the log that passes f: a
// complete episode as soon as its end is read (so in the order episodes
// ended), an incomplete one (with f.Incomplete) once the log shows it
// will never end. Damaged lines are skipped and reported to the logger
// and OnDamage, never returned as an error.
func (l *Log) Episodes(ctx context.Context, f trajlog.Filter, fn func(*trajlog.Record) error) error {
	_, err := l.Scan(ctx, f, fn)
	return err
}

// Scan is Episodes, and also returns what the read saw, its damage
// included. It reads the segments present when it starts; memory is
// bounded by the episodes live at once, not by the size of the log.
func (l *Log) Scan(ctx context.Context, f trajlog.Filter, fn func(*trajlog.Record) error) (ReadStats, error) {
	rb := newRebuilder(&f, fn, l.report)
	err := l.scan(ctx.Err, rb)
	rb.stats.Damage = rb.damageFound()
	return rb.stats, err
}

// scan reads every segment into rb but those whose index proves they
// hold nothing rb's filter wants.
func (l *Log) scan(check func() error, rb *rebuilder) error {
	nums, err := listSegments(l.dir)
	if err != nil {
		return err
	}
	for i, n := range nums {
		if err := check(); err != nil {
			return err
		}
		x, ok := readIndex(l.dir, n)
		if !ok {
			x = nil
		}
		if x != nil && sizeIs(segmentPath(l.dir, n), x.Bytes) && !x.mayHold(rb.f) {
			if err := rb.skip(x); err != nil {
				return err
			}
			continue
		}
		if err := l.readSegment(check, n, x, i == len(nums)-1, rb); err != nil {
			return err
		}
	}
	return rb.flush()
}

func sizeIs(path string, n int64) bool {
	st, err := os.Stat(path)
	return err == nil && st.Size() == n
}

// readSegment feeds every line of segment n, whose index is x (nil for
// none), to rb; check says when to stop.
func (l *Log) readSegment(check func() error, n int, x *index, last bool, rb *rebuilder) error {
	name := segmentName(n)
	f, err := os.Open(segmentPath(l.dir, n))
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	defer f.Close()
	rb.stats.Segments++
	rb.startSegment(name, x, last)
	lr := newLineReader(f)
	for {
		line, off, rerr := lr.next()
		if rerr == io.EOF {
			break
		}
		if rerr != nil && !errors.Is(rerr, errTorn) {
			return fmt.Errorf("read %s: %w", name, rerr)
		}
		rb.seg.lines++
		if rb.stats.Lines++; rb.stats.Lines%4096 == 0 {
			if err := check(); err != nil {
				return err
			}
		}
		ev, derr := decodeEvent(line, rerr, !rb.keep)
		if derr != nil {
			d := Damage{Segment: name, Offset: off, Line: rb.seg.lines, Bytes: int(lr.off - off), Reason: derr.Error()}
			rb.damagedLine(d, line, rerr != nil)
			continue
		}
		if err := rb.apply(ev); err != nil {
			return err
		}
	}
	rb.seg.size = lr.off
	rb.endSegment()
	return nil
}

// decodeEvent checks and decodes one line; light decodes only what
// counting needs (Verify), several times faster.
func decodeEvent(line []byte, readErr error, light bool) (*event, error) {
	if readErr != nil {
		return nil, readErr
	}
	if err := verifyLine(line); err != nil {
		return nil, err
	}
	var ev event
	var err error
	if light {
		err = decodeShape(line, &ev)
	} else {
		err = json.Unmarshal(line, &ev)
	}
	if err != nil {
		return nil, fmt.Errorf("bad JSON: %w", err)
	}
	ok := false
	switch ev.Ev {
	case evOpen:
		ok = true
	case evBegin, evEnd:
		ok = ev.Ep != "" && ev.Traj != nil
	case evDone:
		ok = ev.Ep != "" && ev.Traj != nil && ev.Traj.Steps == nil
	case evStep:
		ok = ev.Ep != "" && ev.Step != nil
	}
	if !ok {
		return nil, fmt.Errorf("malformed %q event", ev.Ev)
	}
	asEnd(&ev)
	return &ev, nil
}
