package bench

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlgym/sqlgym/episodes/client"
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
	}
	for _, k := range latencyKeys() {
		r.lat[k] = &histogram{}
	}
	return r
}

// errStop tells a worker to stop: its socket is gone or the run was cancelled.
var errStop = errors.New("bench: stop")

// errNoGold fails a gold-script episode whose task has no gold on this
// side; the worker goes on with the next.
var errNoGold = errors.New("bench: no gold")

// worker plays episodes one after another on c until the run's bounds,
// ctx, or the socket end.
func (r *run) worker(ctx context.Context, c *client.Client) {
	for ctx.Err() == nil {
		n, ok := r.ticket()
		if !ok {
			return
		}
		if err := r.episode(ctx, c, n); errors.Is(err, errStop) {
			return
		}
	}
}

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

// call makes one call within the call timeout, timing it under key when
// the server answered (with a result or a JSON-RPC error) and counting
// its error. A paced call is timed from due, its scheduled send time, so
// that the wait for a free episode counts; others (due zero) from now.
func (r *run) call(ctx context.Context, c *client.Client, key, method string, params, result any, due time.Time) error {
	cctx, cancel := context.WithTimeout(ctx, r.cfg.CallTimeout)
	defer cancel()
	t0 := time.Now()
	if !due.IsZero() {
		r.lag.record(t0.Sub(due))
		t0 = due
	}
	if key != keyReset && key != keyClose {
		r.sent.Add(1)
	}
	err := c.Call(cctx, method, params, result)
	d := time.Since(t0)
	var rpcErr *schemas.Error
	if err == nil || errors.As(err, &rpcErr) {
		r.lat[key].record(d)
		if key != method {
			r.lat[method].record(d)
		}
	}
	if err != nil {
		r.errCount.Add(1)
		r.count(r.errs, errorCode(ctx, err))
	}
	return err
}

// errorCode names a failed call in the report: its JSON-RPC code, or what
// happened to it on the way.
func errorCode(ctx context.Context, err error) string {
	var rpcErr *schemas.Error
	switch {
	case errors.As(err, &rpcErr):
		return strconv.Itoa(rpcErr.Code)
	case ctx.Err() != nil:
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, client.ErrClosed):
		return "closed"
	default:
		return "transport"
	}
}

// afterError decides how a worker goes on after a failed call: on a
// JSON-RPC error it plays the next episode (after a pause when the server
// said it is full), on anything else it stops.
func (r *run) afterError(ctx context.Context, err error) error {
	var rpcErr *schemas.Error
	if errors.Is(err, errNoGold) {
		return nil
	}
	if !errors.As(err, &rpcErr) {
		return errStop
	}
	if rpcErr.Code == schemas.CodeCapacity || rpcErr.Code == schemas.CodeEpisodeBusy {
		select {
		case <-ctx.Done():
			return errStop
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}

// count adds one to m[key] under the run's lock.
func (r *run) count(m map[string]int64, key string) {
	r.mu.Lock()
	m[key]++
	r.mu.Unlock()
}
