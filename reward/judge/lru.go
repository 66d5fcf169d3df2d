package judge

import (
	"container/list"

	"github.com/sqlgym/sqlgym/env"
)

// goldLRU orders the finished, cached gold runs from most to least
// recently used, and their estimated size, so the cache can stay within
// Config.GoldCacheBytes. Runs in flight are not in it. The Judge's mutex
// guards it.
type goldLRU struct {
	order *list.List // of goldKey, most recently used first
	bytes int64      // the summed size of the runs in order
}

func newGoldLRU() *goldLRU { return &goldLRU{order: list.New()} }

// add puts a finished run at the front.
func (l *goldLRU) add(key goldKey, run *goldRun) {
	run.size = resultSize(run.rs)
	if run.match != nil && run.match.answer != nil {
		for _, seg := range run.match.answer.Segments {
			run.size += rowsSize(seg.Rows)
		}
	}
	run.elem = l.order.PushFront(key)
	l.bytes += run.size
}

// touch marks a cached run as just used.
func (l *goldLRU) touch(run *goldRun) {
	if run.elem != nil {
		l.order.MoveToFront(run.elem)
	}
}

// evict drops least recently used runs from cache until the rest fit in
// budget; the newest run always stays, however large.
func (l *goldLRU) evict(cache map[goldKey]*goldRun, budget int64) {
	for l.bytes > budget && l.order.Len() > 1 {
		last := l.order.Back()
		key := l.order.Remove(last).(goldKey)
		l.bytes -= cache[key].size
		delete(cache, key)
	}
}

// resultSize estimates the memory a result holds: its values' bytes plus
// a fixed cost per value and per row, each counting what the row set
// built for the bird mode adds (a key per row, an id per value).
func resultSize(rs *env.ResultSet) int64 {
	if rs == nil {
		return 64
	}
	return 64 + rowsSize(rs.Rows)
}

// rowsSize estimates the memory rows hold.
func rowsSize(rows [][]any) int64 {
	var n int64
	for _, row := range rows {
		n += 24 + 48
		for _, v := range row {
			n += 16 + 8
			switch v := v.(type) {
			case string:
				n += int64(len(v))
			case []byte:
				n += int64(len(v))
			}
		}
	}
	return n
}
