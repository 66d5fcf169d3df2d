package filelog

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
)

// SegmentCheck is what Verify found in one segment.
type SegmentCheck struct {
	Segment string
	Bytes   int64 // size of the file
	Lines   int64 // lines in it, damaged ones included
	// NoIndex: the segment has no index. That is the segment being
	// written, or one whose sealing a crash interrupted; the next server
	// start builds it. Not a fault.
	NoIndex bool
	// IndexFault says what is wrong with the index, when it cannot be read
	// or disagrees with a segment that has no damage to explain it.
	IndexFault string
	// TornTail: the last line of the last segment, which has no index, is
	// torn: the line being written, or one a crash tore (the next server
	// start cuts it off). Not a fault.
	TornTail bool
	Damage   *SegmentDamage // nil when every line checks
}

// VerifyReport is what Verify found in the whole log.
type VerifyReport struct {
	Segments []SegmentCheck
	Lines    int64 // lines read
	Episodes int64 // episodes rebuilt, complete or not
}

// Damage lists the damage of every damaged segment.
func (r *VerifyReport) Damage() []SegmentDamage {
	var ds []SegmentDamage
	for _, c := range r.Segments {
		if c.Damage != nil {
			ds = append(ds, *c.Damage)
		}
	}
	return ds
}

// IndexFaults counts the segments whose index is at fault.
func (r *VerifyReport) IndexFaults() int {
	n := 0
	for _, c := range r.Segments {
		if c.IndexFault != "" {
			n++
		}
	}
	return n
}

// Clean reports whether every line checks and every index agrees.
func (r *VerifyReport) Clean() bool { return len(r.Damage()) == 0 && r.IndexFaults() == 0 }

// Verify reads every segment of the log, checks each line's checksum and
// each index against its segment, and reports what is damaged and the
// episodes it touched. It changes nothing, and may run beside a server
// writing the log.
func (l *Log) Verify(ctx context.Context) (*VerifyReport, error) {
	return l.verify(ctx.Err, 0)
}

// verify is Verify over the segments up to upTo (all when 0), which are
// then all sealed; check says when to stop.
func (l *Log) verify(check func() error, upTo int) (*VerifyReport, error) {
	nums, err := listSegments(l.dir)
	if err != nil {
		return nil, err
	}
	if upTo > 0 {
		for len(nums) > 0 && nums[len(nums)-1] > upTo {
			nums = nums[:len(nums)-1]
		}
	}
	rb := newRebuilder(&trajlog.Filter{Incomplete: true}, func(*trajlog.Record) error { return nil }, func(Damage) {})
	rb.keep = false
	rep := &VerifyReport{}
	for i, n := range nums {
		if err := check(); err != nil {
			return rep, err
		}
		x, xerr := loadIndex(l.dir, n)
		if err := l.readSegment(check, n, x, upTo == 0 && i == len(nums)-1, rb); err != nil {
			return rep, err
		}
		rep.Segments = append(rep.Segments, checkSegment(&rb.seg, xerr))
	}
	if err := rb.flush(); err != nil {
		return rep, err
	}
	for _, d := range rb.damageFound() {
		for i := range rep.Segments {
			if rep.Segments[i].Segment == d.Segment {
				rep.Segments[i].Damage = &d
			}
		}
	}
	rep.Lines, rep.Episodes = rb.stats.Lines, rb.stats.Complete+rb.stats.Incomplete
	return rep, nil
}

// checkSegment holds a segment just read to its index.
func checkSegment(s *segRead, xerr error) SegmentCheck {
	c := SegmentCheck{Segment: s.name, Bytes: s.size, Lines: s.lines, TornTail: s.torn}
	x := s.idx
	switch {
	case xerr != nil:
		c.IndexFault = xerr.Error()
	case x == nil:
		c.NoIndex = true
	case s.cur != nil:
		// The damage explains any difference.
	case x.Bytes != s.size || x.Lines != s.lines:
		c.IndexFault = fmt.Sprintf("the index records %d bytes in %d lines, the segment has %d in %d", x.Bytes, x.Lines, s.size, s.lines)
	case x.Begins != s.begins || x.Steps != s.steps || x.Ends != s.ends:
		c.IndexFault = fmt.Sprintf("the index counts %d begins, %d steps and %d ends, the segment holds %d, %d and %d",
			x.Begins, x.Steps, x.Ends, s.begins, s.steps, s.ends)
	}
	return c
}

// logIDs is the most episode ids a log line names.
const logIDs = 100

// verifySealed verifies the segments up to upTo, all sealed, and logs a
// warning for each damaged segment and each faulty index, then a
// summary. Close stops it.
func (l *Log) verifySealed(upTo int) {
	defer close(l.verifyDone)
	if upTo < 1 {
		return
	}
	check := func() error {
		select {
		case <-l.stop:
			return ErrClosed
		default:
			return nil
		}
	}
	rep, err := l.verify(check, upTo)
	switch {
	case errors.Is(err, ErrClosed):
		return
	case err != nil:
		l.opts.Logger.Warn("trajectory log not verified", zap.String("dir", l.dir), zap.Error(err))
		return
	}
	l.logVerify(rep)
}

// logVerify logs what a verification found.
func (l *Log) logVerify(rep *VerifyReport) {
	log := l.opts.Logger.With(zap.String("dir", l.dir))
	for _, c := range rep.Segments {
		if d := c.Damage; d != nil {
			ids := d.Episodes[:min(len(d.Episodes), logIDs)]
			log.Warn("damaged trajectory segment", zap.String("segment", d.Segment), zap.Int64("offset", d.Offset),
				zap.Int64("line", d.Line), zap.Int64("lines", d.Lines), zap.Int64("bytes", d.Bytes),
				zap.Int64("missing_bytes", d.Missing), zap.String("reason", d.Reason), zap.Strings("episodes", ids),
				zap.Int("episodes_touched", len(d.Episodes)), zap.Int("episodes_unidentified", d.Unidentified),
				zap.Bool("uncounted", d.Uncounted))
		}
		if c.IndexFault != "" {
			log.Warn("faulty trajectory segment index", zap.String("segment", c.Segment), zap.String("fault", c.IndexFault))
		}
	}
	ds := rep.Damage()
	if len(ds) == 0 && rep.IndexFaults() == 0 {
		log.Info("trajectory log verified", zap.Int("segments", len(rep.Segments)), zap.Int64("lines", rep.Lines))
		return
	}
	sum := SummarizeDamage(ds)
	log.Warn("trajectory log damaged; the undamaged episodes are served and read", zap.Int("segments", len(rep.Segments)),
		zap.Int("damaged_segments", sum.Segments), zap.Int64("damaged_lines", sum.Lines),
		zap.Int("episodes_touched", sum.Episodes), zap.Int("episodes_unidentified", sum.Unidentified),
		zap.Int("faulty_indexes", rep.IndexFaults()))
}
