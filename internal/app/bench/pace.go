package bench

import (
	"context"
	"sync/atomic"
	"time"
)

// pacer hands out send times at a fixed rate, open loop: slot i is due
// at start + i/rate, whatever the replies do. A step claims the next slot
// and waits until it is due. When every episode was busy as a slot came
// due, the next step to claim it finds it past and goes at once; its
// latency still counts from the slot's time, so the queueing shows
// (coordinated omission would hide it). Steps sent by any time t are at
// most rate*(t-start)+1.
//
// The waiting sleeps at most once a tick (pacerTick): the steps whose
// slots come due within a tick of the last wake go out together at the
// next, up to a tick late, which their latency counts. At thousands of
// steps a second a wake per step cost the bench more CPU than the server
// spent on the step, on the machine they share. Only one goroutine waits.
type pacer struct {
	start time.Time
	every float64      // nanoseconds between slots
	next  atomic.Int64 // the next slot to claim
	woke  time.Time    // when the last sleep ended
}

// pacerTick is the shortest time between two of the pacer's sleeps'
// ends.
const pacerTick = time.Millisecond

func newPacer(start time.Time, rate float64) *pacer {
	return &pacer{start: start, every: float64(time.Second) / rate}
}

// wait claims the next slot and returns its due time once it has come;
// zero, at once, without a pacer.
func (p *pacer) wait(ctx context.Context) (time.Time, error) {
	if p == nil {
		return time.Time{}, nil
	}
	i := p.next.Add(1) - 1
	due := p.start.Add(time.Duration(float64(i) * p.every))
	wake := due
	if tick := p.woke.Add(pacerTick); tick.After(wake) {
		wake = tick
	}
	d := time.Until(wake)
	if !due.After(time.Now()) || d <= 0 {
		return due, nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return time.Time{}, ctx.Err()
	case <-t.C:
		p.woke = wake
		return due, nil
	}
}
