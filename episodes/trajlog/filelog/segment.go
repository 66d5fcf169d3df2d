package filelog

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/base/atomicfile"
)

// Segment files are traj-NNNNNN.log, numbered from 1 in the order they
// were written; a sealed segment has traj-NNNNNN.idx beside it.
const (
	segPrefix = "traj-"
	segSuffix = ".log"
	idxSuffix = ".idx"
)

// LogDir is where the log lives under a server's --data-dir.
func LogDir(dataDir string) string { return filepath.Join(dataDir, "trajectories") }

func segmentName(n int) string { return fmt.Sprintf("%s%06d%s", segPrefix, n, segSuffix) }

func segmentPath(dir string, n int) string { return filepath.Join(dir, segmentName(n)) }

func indexPath(dir string, n int) string {
	return filepath.Join(dir, fmt.Sprintf("%s%06d%s", segPrefix, n, idxSuffix))
}

// listSegments returns the numbers of the segments in dir, in order. A
// missing dir holds no segment.
func listSegments(dir string) ([]int, error) {
	ents, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list segments: %w", err)
	}
	var nums []int
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, segPrefix) || !strings.HasSuffix(name, segSuffix) {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, segPrefix), segSuffix))
		if err == nil && n > 0 {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	return nums, nil
}

// segment is the segment being written.
type segment struct {
	n    int
	f    *os.File
	size int64
	sum  *summary
}

// createSegment creates segment n, which must not exist, and makes its
// directory entry durable when sync is set.
func createSegment(dir string, n int, live map[string]*liveEntry, sync bool) (*segment, error) {
	f, err := os.OpenFile(segmentPath(dir, n), os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create segment: %w", err)
	}
	if sync {
		if err := atomicfile.SyncDir(dir); err != nil {
			f.Close()
			return nil, fmt.Errorf("create segment: %w", err)
		}
	}
	return &segment{n: n, f: f, sum: newSummary(n, live)}, nil
}

// seal syncs and closes the segment and writes its index. Nothing is
// written to a sealed segment again.
func (s *segment) seal(dir string, sync bool) error {
	var err error
	if sync {
		err = s.f.Sync()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("seal %s: %w", segmentName(s.n), err)
	}
	return writeIndex(dir, s.sum.seal(), sync)
}
