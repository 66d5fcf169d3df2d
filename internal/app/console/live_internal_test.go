package console

import (
	"encoding/json"
	"testing"
	"time"
)

// TestSlowSubscriberLosesUpdatesWithoutSlowingTheTicks pushes more
// updates than a subscriber that never reads can queue: the pushes all
// return, the excess is counted as dropped, and a subscriber that reads
// gets every one.
func TestSlowSubscriberLosesUpdatesWithoutSlowingTheTicks(t *testing.T) {
	l := NewLive(LiveConfig{MaxSubscribers: 2})
	slow, _ := l.subscribe("", "a")
	fast, _ := l.subscribe("run", "a")
	l.begin("ep1", json.RawMessage(`{"run":"a"}`))
	now := time.Unix(1000, 0)
	const pushes = liveBuffer + 3
	for i := 0; i < pushes; i++ {
		l.step("ep1", 2)
		now = now.Add(time.Second)
		l.push(now)
		var p livePoint
		if err := json.Unmarshal(<-fast.ch, &p); err != nil {
			t.Fatal(err)
		}
		if len(p.Series) != 1 || p.Series[0].Value != "a" || p.Series[0].StepsPerS != 1 || p.Series[0].InFlight != 1 {
			t.Fatalf("update %d split by run: %+v, want run a with 1 step/s and 1 in flight", i, p.Series)
		}
	}
	if len(slow.ch) != liveBuffer || l.Dropped() != pushes-liveBuffer {
		t.Fatalf("slow subscriber: %d queued, %d dropped; want %d and %d", len(slow.ch), l.Dropped(), liveBuffer, pushes-liveBuffer)
	}
	if _, err := l.subscribe("", "a"); err == nil {
		t.Fatalf("a third subscriber past the bound of 2 was taken")
	}
}

// TestSeriesPastTheBoundCountAsOther bounds the series to three: the
// total, run=a and run=b; run=c then counts under run=(other).
func TestSeriesPastTheBoundCountAsOther(t *testing.T) {
	s := newStats(3)
	for i, run := range []string{"a", "b", "c"} {
		s.begin(string(rune('x'+i)), json.RawMessage(`{"run":"`+run+`"}`))
	}
	_, flight := s.tick()
	if flight[seriesKey{"run", "c"}] != 0 || flight[seriesKey{"run", otherValue}] != 1 || flight[seriesKey{"", ""}] != 3 {
		t.Fatalf("in flight: %v", flight)
	}
}

// TestLatencyQuantiles reads p50 and p99 from the histogram's buckets:
// each within one bucket's growth of the true value.
func TestLatencyQuantiles(t *testing.T) {
	var h [latBuckets]int
	for i := 1; i <= 100; i++ {
		h[latBucket(float64(i))]++
	}
	p50, p99 := latQuantile(&h, 0.5), latQuantile(&h, 0.99)
	if p50 < 50 || p50 > 50*latGrowth || p99 < 99 || p99 > 99*latGrowth {
		t.Fatalf("p50 %.2f, p99 %.2f of 1..100 ms", p50, p99)
	}
}
