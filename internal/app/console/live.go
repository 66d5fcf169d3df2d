package console

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlgym/sqlgym/base/fairshare"
	"github.com/sqlgym/sqlgym/schemas"
)

// Defaults of the live page's bounds.
const (
	// DefaultMaxLiveSubscribers bounds the live pages connected at
	// once, shared among clients (base/fairshare): a client below its
	// share at the bound closes the largest holder's oldest stream, one at
	// or above it gets 503.
	DefaultMaxLiveSubscribers = 16
	DefaultMaxLiveSeries      = 256 // tag values counted apart; past it a value counts under (other)
	// DefaultLiveWriteTimeout bounds the write of one update to a live
	// page: a page that stops reading is let go, and its room with it.
	DefaultLiveWriteTimeout = 10 * time.Second
	liveBuffer              = 4 // updates queued for one subscriber; past it updates are dropped for it
)

// LiveConfig bounds the live page.
type LiveConfig struct {
	MaxSubscribers int           // DefaultMaxLiveSubscribers
	MaxSeries      int           // DefaultMaxLiveSeries
	WriteTimeout   time.Duration // DefaultLiveWriteTimeout
}

// Live counts what the episode server does (through Tap) and pushes it,
// once a tick, to the live pages connected, by server-sent events. A
// subscriber too slow to take an update loses it: the ticks and the
// episode server never wait for a page.
type Live struct {
	cfg     LiveConfig
	stats   *stats
	shares  *fairshare.Pool // the subscribers' rooms, shared among clients
	mu      sync.Mutex
	subs    map[*subscriber]struct{}
	dropped atomic.Int64
	last    time.Time
	onEnd   func(*schemas.Trajectory) // set before serving: the log index's Ended
}

// OnEnd has f called with every episode that ends, after the store has
// recorded it (a LogIndex's Ended). Call it before the server starts.
func (l *Live) OnEnd(f func(*schemas.Trajectory)) { l.onEnd = f }

// subscriber is one live page: the tag key it splits by, its queue, its
// room, and what ends it early (a reclaim for another client).
type subscriber struct {
	key     string
	ch      chan []byte
	l       *Live
	ticket  *fairshare.Ticket
	started time.Time
	gone    chan struct{} // closed by Reclaim
	once    sync.Once
}

// LastUsed is when the stream began: the oldest is reclaimed first.
func (s *subscriber) LastUsed() time.Time { return s.started }

// Reclaim ends the stream (the page reconnects) and gives its room back.
// A stream only ever waits for the next update, so it is always idle.
func (s *subscriber) Reclaim() bool {
	s.once.Do(func() { close(s.gone) })
	s.l.unsubscribe(s)
	return true
}

// NewLive returns a Live with cfg's bounds.
func NewLive(cfg LiveConfig) *Live {
	if cfg.MaxSubscribers <= 0 {
		cfg.MaxSubscribers = DefaultMaxLiveSubscribers
	}
	if cfg.MaxSeries <= 0 {
		cfg.MaxSeries = DefaultMaxLiveSeries
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultLiveWriteTimeout
	}
	return &Live{cfg: cfg, stats: newStats(cfg.MaxSeries), subs: map[*subscriber]struct{}{},
		shares: fairshare.New(cfg.MaxSubscribers, true)}
}

func (l *Live) begin(id string, tags json.RawMessage) { l.stats.begin(id, tags) }
func (l *Live) step(id string, ms float64)            { l.stats.step(id, ms) }
func (l *Live) end(id, outcome string, reward float64) {
	l.stats.end(id, outcome, reward)
}

// Run pushes an update at each tick until ctx ends (sqlgym serve gives
// it a one-second ticker).
func (l *Live) Run(ctx context.Context, ticks <-chan time.Time) {
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-ticks:
			l.push(now)
		}
	}
}

// Dropped counts the updates dropped for slow subscribers.
func (l *Live) Dropped() int64 { return l.dropped.Load() }

// Subscribers counts the live pages connected.
func (l *Live) Subscribers() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.subs)
}

// livePoint is one update of a live page: every series of its tag key.
type livePoint struct {
	T      int64        `json:"t"` // Unix milliseconds
	Key    string       `json:"key"`
	Series []liveSeries `json:"series"`
}

// liveSeries is what one tag value (or every episode) did in a tick.
type liveSeries struct {
	Value      string         `json:"value"`
	InFlight   int            `json:"in_flight"`
	StepsPerS  float64        `json:"steps_per_s"`
	P50MS      float64        `json:"p50_ms"`
	P99MS      float64        `json:"p99_ms"`
	Ended      int            `json:"ended"`
	Outcomes   map[string]int `json:"outcomes,omitempty"`
	MeanReward *float64       `json:"mean_reward,omitempty"`
}

// push sends every subscriber the tick's series of its key, dropping
// the update for one whose queue is full.
func (l *Live) push(now time.Time) {
	secs := 1.0
	if !l.last.IsZero() {
		secs = max(now.Sub(l.last).Seconds(), 1e-3)
	}
	l.last = now
	wins, flight := l.stats.tick()
	l.mu.Lock()
	defer l.mu.Unlock()
	enc := map[string][]byte{}
	for s := range l.subs {
		b, ok := enc[s.key]
		if !ok {
			b, _ = json.Marshal(livePoint{T: now.UnixMilli(), Key: s.key, Series: seriesFor(s.key, wins, flight, secs)})
			enc[s.key] = b
		}
		select {
		case s.ch <- b:
		default:
			l.dropped.Add(1)
		}
	}
}

// seriesFor are the series of one tag key ("": every episode), by value.
func seriesFor(key string, wins map[seriesKey]*window, flight map[seriesKey]int, secs float64) []liveSeries {
	keys := map[seriesKey]bool{}
	for k := range wins {
		keys[k] = k.Key == key
	}
	for k := range flight {
		keys[k] = k.Key == key
	}
	var out []liveSeries
	for _, k := range slices.SortedFunc(maps.Keys(keys), func(a, b seriesKey) int { return strings.Compare(a.Value, b.Value) }) {
		if !keys[k] {
			continue
		}
		s := liveSeries{Value: k.Value, InFlight: flight[k]}
		if w := wins[k]; w != nil {
			s.StepsPerS = float64(w.steps) / secs
			s.P50MS, s.P99MS = latQuantile(&w.lat, 0.5), latQuantile(&w.lat, 0.99)
			s.Ended, s.Outcomes = w.ended, w.outcomes
			if w.ended > 0 {
				m := w.rewardSum / float64(w.ended)
				s.MeanReward = &m
			}
		}
		out = append(out, s)
	}
	return out
}

// subscribe adds a subscriber for client, or says why not.
func (l *Live) subscribe(key, client string) (*subscriber, error) {
	t, err := l.shares.Acquire(client)
	if err != nil {
		return nil, fmt.Errorf("busy: %d live pages are connected, the bound (--console-max-live): %v; close one",
			l.cfg.MaxSubscribers, err)
	}
	s := &subscriber{key: key, ch: make(chan []byte, liveBuffer), l: l, ticket: t, started: time.Now(),
		gone: make(chan struct{})}
	l.mu.Lock()
	l.subs[s] = struct{}{}
	l.mu.Unlock()
	t.Hold(s)
	return s, nil
}

// unsubscribe drops s and gives its room back; again does nothing.
func (l *Live) unsubscribe(s *subscriber) {
	l.mu.Lock()
	delete(l.subs, s)
	l.mu.Unlock()
	s.ticket.Release()
}

// events streams a live page's updates as server-sent events; a page
// that does not take one within the write timeout is let go.
func (c *Console) events(w http.ResponseWriter, r *http.Request) {
	l := c.cfg.Live
	if l == nil {
		c.fail(w, http.StatusNotFound, "This console has no live server: sqlgym console reads a log only.")
		return
	}
	s, err := l.subscribe(strings.TrimSpace(r.URL.Query().Get("tag")), fairshare.ClientOfAddr(r.RemoteAddr))
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer l.unsubscribe(s)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	rc := http.NewResponseController(w)
	if l.send(rc, w, ": connected\n\n") != nil {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.gone:
			return // reclaimed for a client below its share
		case b := <-s.ch:
			if l.send(rc, w, "data: "+string(b)+"\n\n") != nil {
				return // the page stopped reading, or left
			}
		}
	}
}

// send writes one event within the write timeout, so that a page that
// never reads holds its room no longer than that.
func (l *Live) send(rc *http.ResponseController, w http.ResponseWriter, event string) error {
	if err := rc.SetWriteDeadline(time.Now().Add(l.cfg.WriteTimeout)); err != nil {
		return err
	}
	if _, err := io.WriteString(w, event); err != nil {
		return err
	}
	return rc.Flush()
}

// livePage is the page the script live.js draws into.
func (c *Console) livePage(w http.ResponseWriter, r *http.Request) {
	v := struct {
		frame
		Tag     string
		HasLive bool
	}{frame{Title: "Live"}, r.URL.Query().Get("tag"), c.cfg.Live != nil}
	w.Header().Set("Content-Security-Policy", liveCSP)
	c.render(w, http.StatusOK, "live", v)
}
