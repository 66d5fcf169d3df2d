package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/schemas"
)

// Dispatcher turns JSON-RPC frames into manager calls and replies.
type Dispatcher struct {
	m       *episodes.Manager
	limits  schemas.Limits
	metrics *metrics
}

// NewDispatcher returns a dispatcher over m; limits are what server.info
// reports. The dispatcher enforces two of them: MaxBatch, the requests in
// one batch, and MaxReplyBytes, the bytes of one reply frame (zero means
// DefaultMaxBatch and DefaultMaxReplyBytes).
func NewDispatcher(m *episodes.Manager, limits schemas.Limits) *Dispatcher {
	if limits.MaxBatch <= 0 {
		limits.MaxBatch = DefaultMaxBatch
	}
	if limits.MaxReplyBytes <= 0 {
		limits.MaxReplyBytes = DefaultMaxReplyBytes
	}
	return &Dispatcher{m: m, limits: limits, metrics: newMetrics(m.Metrics().Registry)}
}

// runFunc runs a prepared call and returns its result.
type runFunc func(ctx context.Context) (any, error)

// prepared is one request, checked and ready to run.
type prepared struct {
	id      json.RawMessage
	method  string
	notify  bool
	run     runFunc
	abandon func()         // gives up a place taken in an episode's queue, when run is not called; may be nil
	err     *schemas.Error // set when the request failed before running
}

// Job is the work of one frame: prepared in arrival order (steps take
// their place in their episode's queue then), run later, concurrently.
type Job struct {
	d     *Dispatcher
	batch bool
	calls []prepared
	one   [1]prepared // the call of a lone request: calls without a slice of its own
}

// Prepare reads a frame: a request or a batch of them. The job may hold
// slices of a small frame (a request's id): the caller must not change
// frame until the job's Run has returned.
func (d *Dispatcher) Prepare(frame []byte) *Job {
	frame = bytes.TrimSpace(frame)
	j := &Job{d: d}
	if len(frame) > 0 && frame[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(frame, &items); err != nil {
			j.calls = []prepared{failed(schemas.CodeParseError, "parse error: "+describeJSONError(err))}
			return j
		}
		if len(items) == 0 {
			j.calls = []prepared{failed(schemas.CodeInvalidRequest, "invalid request: empty batch")}
			return j
		}
		if len(items) > d.limits.MaxBatch {
			j.calls = []prepared{failed(schemas.CodeInvalidRequest, fmt.Sprintf(
				"invalid request: a batch of %d requests; at most %d per batch (the server's --max-batch)",
				len(items), d.limits.MaxBatch))}
			return j
		}
		j.batch = true
		for _, it := range items {
			j.calls = append(j.calls, d.prepare(it))
		}
		return j
	}
	j.one[0] = d.prepare(frame)
	j.calls = j.one[:]
	return j
}

func failed(code int, msg string) prepared {
	return prepared{id: schemas.NullID, err: &schemas.Error{Code: code, Message: msg}}
}

// prepare checks one request and binds it to its handler.
func (d *Dispatcher) prepare(raw []byte) prepared {
	req, e := decodeRequest(raw)
	if e != nil {
		return prepared{id: schemas.NullID, err: e}
	}
	p := prepared{id: keptID(req.ID, raw), method: req.Method, notify: req.IsNotification()}
	if p.id == nil {
		p.id = schemas.NullID
	}
	if e := checkRequest(&req); e != nil {
		p.err, p.notify = e, false
		if !validID(req.ID) {
			p.id = schemas.NullID // an id we cannot echo back
		}
		return p
	}
	h, ok := handlers[req.Method]
	if !ok {
		p.err = schemas.Errorf(schemas.CodeMethodNotFound, "method not found: %q", req.Method)
		return p
	}
	p.run, p.abandon, p.err = h(d, req.Params)
	return p
}

// maxKeptFrame is the largest frame a job keeps alive through a slice of
// it (its request's id). The reading budget takes a frame back once it is
// parsed, and the connection counts a job as its frame's size: a larger
// frame's id is copied, so that the job does not keep the frame as well
// as what its params decode to.
const maxKeptFrame = 4 << 10

// keptID is the id a call keeps of a request read from raw.
func keptID(id json.RawMessage, raw []byte) json.RawMessage {
	if len(raw) <= maxKeptFrame {
		return id
	}
	return append(json.RawMessage(nil), id...)
}

// decodeRequest reads a request object; a frame that is not one gets the
// error to answer it with. The request may hold slices of raw.
func decodeRequest(raw []byte) (schemas.Request, *schemas.Error) {
	if req, ok := fastRequest(raw); ok {
		return req, nil
	}
	var req schemas.Request
	if err := json.Unmarshal(raw, &req); err != nil || bytes.TrimSpace(raw)[0] != '{' {
		if err != nil && !json.Valid(raw) { // scanned a second time only when it failed
			return req, &schemas.Error{Code: schemas.CodeParseError, Message: "parse error: the frame is not valid JSON"}
		}
		return req, &schemas.Error{Code: schemas.CodeInvalidRequest, Message: "invalid request: not a JSON-RPC 2.0 request object"}
	}
	return req, nil
}

// checkRequest checks the envelope: version, method, id type.
func checkRequest(r *schemas.Request) *schemas.Error {
	if r.JSONRPC != "2.0" {
		return schemas.Errorf(schemas.CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
	}
	if r.Method == "" {
		return schemas.Errorf(schemas.CodeInvalidRequest, `invalid request: "method" is missing`)
	}
	if !validID(r.ID) {
		return schemas.Errorf(schemas.CodeInvalidRequest, `invalid request: "id" must be a string, a number or null`)
	}
	return nil
}

// validID reports whether id is absent, a string, a number or null.
func validID(id json.RawMessage) bool {
	if len(id) == 0 {
		return true
	}
	switch id[0] {
	case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// batchParallel bounds the calls of one batch that run at once: with the
// reply budget checked as each call starts, a batch cannot make the
// server compute much more than the budget before the calls past it are
// refused.
const batchParallel = 4

// Run runs the job's calls and returns the reply frame, or nil when no
// reply is due (notifications only). The calls of a batch start in order,
// at most batchParallel at a time. The frame never exceeds the
// dispatcher's MaxReplyBytes: calls past the budget get an error instead.
func (j *Job) Run(ctx context.Context) []byte {
	budget, ok := newReplyBudget(j.d.limits.MaxReplyBytes, j.reserve())
	if !ok {
		for i := range j.calls {
			j.calls[i].giveUp()
		}
		return encode(&schemas.Response{JSONRPC: "2.0", ID: schemas.NullID, Error: schemas.Errorf(schemas.CodeInvalidRequest,
			"invalid request: the batch's ids alone would fill the %s reply budget (the server's --max-reply-bytes)",
			byteSize(j.d.limits.MaxReplyBytes))})
	}
	replies := j.runCalls(ctx, budget)
	var out [][]byte
	for _, r := range replies {
		if r != nil {
			out = append(out, r)
		}
	}
	switch {
	case len(out) == 0:
		return nil
	case !j.batch:
		return out[0]
	}
	return joinArray(out)
}

// runCalls runs the job's calls and returns their replies, in order. A
// lone request runs on the caller's goroutine; a batch's calls start in
// order, at most batchParallel at a time.
func (j *Job) runCalls(ctx context.Context, budget *replyBudget) [][]byte {
	replies := make([][]byte, len(j.calls))
	if len(j.calls) == 1 {
		replies[0] = j.d.run(ctx, &j.calls[0], budget)
		return replies
	}
	var g errgroup.Group
	g.SetLimit(batchParallel)
	for i := range j.calls {
		// Go waits for a free slot, so calls start in order: a step never
		// waits for one of its episode's that has not started.
		g.Go(func() error {
			replies[i] = j.d.run(ctx, &j.calls[i], budget)
			return nil
		})
	}
	g.Wait()
	return replies
}

// reserve is the room the job's replies keep for errors: every call's id
// with an error, and a batch's brackets and commas.
func (j *Job) reserve() int64 {
	n := int64(len(j.calls) + 1)
	for i := range j.calls {
		n += errorReserve + int64(len(j.calls[i].id))
	}
	return n
}

// giveUp releases what a call that will not run holds.
func (p *prepared) giveUp() {
	if p.abandon != nil {
		p.abandon()
	}
}

// run runs one prepared call and returns its encoded reply; nil for a
// notification.
func (d *Dispatcher) run(ctx context.Context, p *prepared, budget *replyBudget) []byte {
	resp := &schemas.Response{JSONRPC: "2.0", ID: p.id}
	switch {
	case p.err != nil:
		resp.Error = p.err
	case budget.spent():
		p.giveUp()
		resp.Error = budget.notRun()
	default:
		if result, err := p.run(ctx); err != nil {
			resp.Error = rpcError(err)
		} else {
			resp.Result = result
		}
	}
	if p.notify {
		d.countError(resp.Error)
		return nil
	}
	if resp.Error == nil {
		b := encode(resp)
		if budget.take(len(b)) {
			return b
		}
		resp.Result, resp.Error = nil, budget.tooLarge(p.method, len(b))
	}
	d.countError(resp.Error)
	resp.Error = cutMessage(resp.Error)
	b := encode(resp)
	if !budget.take(len(b)) { // the shortest error, paid from the call's reserve
		resp.Error = &schemas.Error{Code: schemas.CodeCapacity, Message: spentMessage}
		b = encode(resp)
	}
	return b
}

func (d *Dispatcher) countError(e *schemas.Error) {
	if e != nil {
		d.metrics.rpcError(e.Code)
	}
}

// joinArray frames encoded replies as a JSON array; their buffers go back
// to the pool.
func joinArray(items [][]byte) []byte {
	n := len(items) + 1
	for _, it := range items {
		n += len(it)
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, it := range items {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, it...)
		ReleaseFrame(it)
	}
	return append(out, ']')
}
