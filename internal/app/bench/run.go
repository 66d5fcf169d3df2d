package bench

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlgym/sqlgym/schemas"
)

// Latency keys: the methods, and episode.step once more per tool.
const (
	keyReset = schemas.MethodReset
	keyStep  = schemas.MethodStep
	keyClose = schemas.MethodClose
)

// stepKey is the latency key of the steps calling tool.
func stepKey(tool string) string { return keyStep + " " + tool }

// latencyKeys lists every latency key, in the order reports show them.
func latencyKeys() []string {
	return []string{keyReset, keyStep, stepKey("inspect_schema"), stepKey("execute_sql"), stepKey("submit"), keyClose}
}

// run is the state of one benchmark run, shared by its workers.
type run struct {
	cfg      Config
	start    time.Time
	deadline time.Time // zero when only the episode count bounds the run

	tickets                              atomic.Int64 // episodes claimed, each by one worker
	started, ended, failed, resetsFailed atomic.Int64
	steps, sqlSteps, sent, errCount      atomic.Int64

	tags  json.RawMessage   // every reset's tags
	golds map[string]string // the gold script's gold of each task id; read-only
	pace  *pacer            // nil unless cfg.Rate is set
	ready chan pacedStep    // paced steps waiting for their slots, from every socket

	lat map[string]*histogram // one per latency key; the map is read-only
	lag histogram             // paced steps: from the scheduled send time to the sending

	mu         sync.Mutex // guards the three maps below
	errs       map[string]int64
	toolErrors map[string]int64
	outcomes   map[string]int64
}

func newRun(cfg Config) *run {
	r := &run{cfg: cfg, start: time.Now(), lat: map[string]*histogram{}, golds: map[string]string{},
		errs: map[string]int64{}, toolErrors: map[string]int64{}, outcomes: map[string]int64{}}
	if cfg.Duration > 0 {
		r.deadline = r.start.Add(cfg.Duration)
	}
	r.tags, _ = json.Marshal(map[string]any{TagKey: true, "source": "sqlgym bench", "script": cfg.Script})
	for _, t := range cfg.Tasks {
		r.golds[t.ID] = t.GoldSQL
	}
	if cfg.Rate > 0 {
		r.pace = newPacer(r.start, cfg.Rate)
		r.ready = make(chan pacedStep, cfg.Sockets*cfg.EpisodesPerSocket)
	}
	for _, k := range latencyKeys() {
		r.lat[k] = &histogram{}
	}
	return r
}

// errNoGold fails a gold-script episode whose task has no gold on this
// side; the slot goes on with the next.
var errNoGold = errors.New("bench: no gold")

// ticket claims the next episode's number, unless a bound is reached.
func (r *run) ticket() (int64, bool) {
	if !r.deadline.IsZero() && !time.Now().Before(r.deadline) {
		return 0, false
	}
	n := r.tickets.Add(1) - 1
	if r.cfg.Episodes > 0 && n >= r.cfg.Episodes {
		return 0, false
	}
	return n, true
}

// count adds one to m[key] under the run's lock.
func (r *run) count(m map[string]int64, key string) {
	r.mu.Lock()
	m[key]++
	r.mu.Unlock()
}

// sendPaced sends each step that becomes ready on any socket at its send
// slot, until stop; then it counts the steps still waiting as failed. A
// step whose slot the run's end cancelled fails, and its slot retires.
func (r *run) sendPaced(ctx context.Context, stop <-chan struct{}) {
	for {
		var st pacedStep
		select {
		case st = <-r.ready:
		case <-stop:
			for range len(r.ready) { // steps that never got a slot
				<-r.ready
				r.failed.Add(1)
			}
			return
		}
		due, err := r.pace.wait(ctx)
		if err != nil {
			r.failed.Add(1)
			st.s.retire()
			continue
		}
		r.lag.record(time.Since(due))
		st.s.sendStep(st.ep, st.act, due)
	}
}
