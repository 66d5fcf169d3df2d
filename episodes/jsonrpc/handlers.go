package jsonrpc

import (
	"context"
	"encoding/json"

	"github.com/sqlgym/sqlgym/schemas"
)

// handler checks a method's params and returns the call to run, and what
// gives up the place the call took in an episode's queue if it is never
// run (nil when it took none).
type handler func(d *Dispatcher, params json.RawMessage) (runFunc, func(), *schemas.Error)

// handlers maps each method of protocol sqlgym/1 to its handler. It is
// never written after package initialization.
var handlers = map[string]handler{
	schemas.MethodServerInfo:  handleInfo,
	schemas.MethodTasksList:   handleTasksList,
	schemas.MethodTasksSchema: handleTasksSchema,
	schemas.MethodReset:       handleReset,
	schemas.MethodStep:        handleStep,
	schemas.MethodClose:       handleClose,
	schemas.MethodEpisodeGet:  handleGet,
}

func handleInfo(d *Dispatcher, params json.RawMessage) (runFunc, func(), *schemas.Error) {
	var p struct{}
	if e := decodeParams(params, &p); e != nil {
		return nil, nil, e
	}
	return func(context.Context) (any, error) { return d.m.Info(d.limits), nil }, nil, nil
}

func handleTasksList(d *Dispatcher, params json.RawMessage) (runFunc, func(), *schemas.Error) {
	var p schemas.TasksListParams
	if e := decodeParams(params, &p); e != nil {
		return nil, nil, e
	}
	return func(context.Context) (any, error) { return d.m.ListTasks(p) }, nil, nil
}

func handleTasksSchema(d *Dispatcher, params json.RawMessage) (runFunc, func(), *schemas.Error) {
	var p schemas.TasksSchemaParams
	if e := decodeParams(params, &p); e != nil {
		return nil, nil, e
	}
	return func(ctx context.Context) (any, error) { return d.m.TaskSchema(ctx, p) }, nil, nil
}

func handleReset(d *Dispatcher, params json.RawMessage) (runFunc, func(), *schemas.Error) {
	p, e := decodeFast(params, fastReset)
	if e != nil {
		return nil, nil, e
	}
	return func(ctx context.Context) (any, error) { return d.m.Reset(ctx, p) }, nil, nil
}

func handleStep(d *Dispatcher, params json.RawMessage) (runFunc, func(), *schemas.Error) {
	p, e := decodeFast(params, fastStep)
	if e != nil {
		return nil, nil, e
	}
	if e := checkArguments(&p.Action); e != nil {
		return nil, nil, e
	}
	st, err := d.m.Enqueue(&p) // checks the params, once for every surface
	if err != nil {
		return nil, nil, rpcError(err)
	}
	// The call keeps copies: p, whose address was taken, stays on the
	// stack. Without a finish reason (most steps) it keeps less.
	if p.FinishReason == "" {
		action, usage, turn := p.Action, p.Usage, p.Turn
		return func(ctx context.Context) (any, error) {
			return d.m.StepQueued(ctx, st, schemas.StepParams{Action: action, Usage: usage, Turn: turn})
		}, st.Abandon, nil
	}
	full := p
	return func(ctx context.Context) (any, error) { return d.m.StepQueued(ctx, st, full) }, st.Abandon, nil
}

func handleClose(d *Dispatcher, params json.RawMessage) (runFunc, func(), *schemas.Error) {
	id, e := episodeParam(params)
	if e != nil {
		return nil, nil, e
	}
	ct := d.m.EnqueueClose(id)
	return func(ctx context.Context) (any, error) { return d.m.CloseQueued(ctx, id, ct) }, ct.Abandon, nil
}

func handleGet(d *Dispatcher, params json.RawMessage) (runFunc, func(), *schemas.Error) {
	id, e := episodeParam(params)
	if e != nil {
		return nil, nil, e
	}
	return func(context.Context) (any, error) {
		s, err := d.m.Get(id)
		if err != nil {
			return nil, err
		}
		return s.JSON()
	}, nil, nil
}

func episodeParam(params json.RawMessage) (string, *schemas.Error) {
	p, e := decodeFast(params, fastClose)
	if e != nil {
		return "", e
	}
	if p.EpisodeID == "" {
		return "", schemas.Errorf(schemas.CodeInvalidParams, "episode_id is missing")
	}
	return p.EpisodeID, nil
}
