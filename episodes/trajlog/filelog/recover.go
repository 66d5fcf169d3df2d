package filelog

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"go.uber.org/zap"
)

// Recovery reports what Open found in the log and repaired.
type Recovery struct {
	Segments  int   // segments found
	Indexed   int   // segments with no index (the last writer died) parsed to build one
	TornBytes int64 // bytes cut off the end of the last segment: lines a crash tore
	Damaged   int64 // damaged lines found while indexing, the cut-off ones included
	Live      int   // episodes live when the last writer stopped: incomplete on disk
}

// recover indexes every segment that has no index (the one a crashed
// writer left open, or one sealed by a rotation the crash interrupted),
// cutting a torn tail off the last segment so that nothing is appended
// after garbage. It returns the number of the last segment (0 for none).
func (l *Log) recover() (int, error) {
	nums, err := listSegments(l.dir)
	if err != nil {
		return 0, err
	}
	l.recovery.Segments = len(nums)
	live := map[string]*liveEntry{}
	for i, n := range nums {
		x, ok := readIndex(l.dir, n)
		if !ok {
			if x, err = l.reindex(n, live, i == len(nums)-1); err != nil {
				return 0, err
			}
			l.recovery.Indexed++
		}
		live = x.liveMap()
	}
	l.recovery.Live = len(live)
	if l.recovery.Indexed > 0 {
		r := l.recovery
		l.opts.Logger.Warn("trajectory log recovered", zap.String("dir", l.dir), zap.Int("segments_indexed", r.Indexed),
			zap.Int64("torn_bytes", r.TornBytes), zap.Int64("damaged_lines", r.Damaged), zap.Int("incomplete_episodes", r.Live))
	}
	if len(nums) == 0 {
		return 0, nil
	}
	return nums[len(nums)-1], nil
}

// reindex parses segment n, which carries the episodes in live, and
// writes its index; the last segment loses whatever follows its last
// good line.
func (l *Log) reindex(n int, live map[string]*liveEntry, last bool) (*index, error) {
	path := segmentPath(l.dir, n)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("recover: %w", err)
	}
	sum := newSummary(n, live)
	good, size, damaged, err := scanMeta(f, sum)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("recover %s: %w", segmentName(n), err)
	}
	kept := int64(0) // damaged lines left in the segment
	for _, d := range damaged {
		if last && d.Offset >= good {
			d.Reason += "; cut off"
		} else {
			kept++
		}
		l.report(d)
		l.recovery.Damaged++
	}
	if last && good < size {
		if err := l.cut(path, good); err != nil {
			return nil, err
		}
		l.recovery.TornBytes += size - good
		size = good
	}
	x := sum.seal()
	x.Bytes, x.Damaged = size, kept
	if last {
		x.Lines -= int64(len(damaged)) - kept // the lines cut off
	}
	return x, writeIndex(l.dir, x, l.opts.syncs())
}

// cut truncates a segment to its last good line.
func (l *Log) cut(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("recover: %w", err)
	}
	err = f.Truncate(size)
	if err == nil && l.opts.syncs() {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("recover: cut off torn tail: %w", err)
	}
	return nil
}

// meta is the part of a line an index needs.
type meta struct {
	Ev   string `json:"ev"`
	Ep   string `json:"ep"`
	Traj *struct {
		Task struct {
			Dataset string `json:"dataset"`
		} `json:"task"`
		StartedAt time.Time `json:"started_at"`
		Outcome   string    `json:"outcome"`
	} `json:"traj"`
}

// scanMeta feeds every good line of a segment to sum. It returns the end
// offset of the last good line, the size read and the damaged lines.
func scanMeta(r io.Reader, sum *summary) (good, size int64, damaged []Damage, err error) {
	lr := newLineReader(r)
	for {
		line, off, err := lr.next()
		if err == io.EOF {
			return good, lr.off, damaged, nil
		}
		if err != nil && !errors.Is(err, errTorn) {
			return good, lr.off, damaged, err
		}
		sum.add(len(line) + 1)
		var m meta
		if err == nil {
			if err = verifyLine(line); err == nil {
				err = decodeMeta(line, &m)
			}
		}
		if err != nil {
			damaged = append(damaged, Damage{Segment: segmentName(sum.idx.Segment), Offset: off, Line: sum.idx.Lines,
				Bytes: int(lr.off - off), Reason: err.Error()})
			continue
		}
		good = lr.off
		m.apply(sum)
	}
}

func decodeMeta(line []byte, m *meta) error {
	if err := json.Unmarshal(line, m); err != nil {
		return fmt.Errorf("bad JSON: %w", err)
	}
	if m.Ev != evOpen && m.Ep == "" || (m.Ev == evBegin || m.Ev == evEnd || m.Ev == evDone) && m.Traj == nil {
		return fmt.Errorf("malformed %q event", m.Ev)
	}
	return nil
}

func (m *meta) apply(sum *summary) {
	c := change{kind: m.Ev, ep: m.Ep}
	if m.Traj != nil {
		c.outcome, c.startedAt, c.dataset = m.Traj.Outcome, m.Traj.StartedAt, m.Traj.Task.Dataset
	}
	c.apply(sum)
}
