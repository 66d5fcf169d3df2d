package jsonrpc

import (
	"errors"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/schemas"
)

// kindCodes are the JSON-RPC error codes of protocol sqlgym/1 for the
// episodes' kinds of failure; this is the one place that maps them.
var kindCodes = [...]int{
	episodes.Internal:        schemas.CodeInternal,
	episodes.InvalidArgument: schemas.CodeInvalidParams,
	episodes.TaskNotFound:    schemas.CodeTaskNotFound,
	episodes.NotFound:        schemas.CodeEpisodeNotFound,
	episodes.Ended:           schemas.CodeEpisodeEnded,
	episodes.Busy:            schemas.CodeEpisodeBusy,
	episodes.Capacity:        schemas.CodeCapacity,
	episodes.Draining:        schemas.CodeDraining,
	episodes.Elsewhere:       schemas.CodeElsewhere,
}

// rpcError turns an error from the manager into the JSON-RPC error sent
// to the client: an *episodes.Error becomes its kind's code with its
// message, and any other error is the server's (-32603).
func rpcError(err error) *schemas.Error {
	var e *episodes.Error
	if errors.As(err, &e) && e.Kind != episodes.Internal && int(e.Kind) < len(kindCodes) {
		return &schemas.Error{Code: kindCodes[e.Kind], Message: e.Message}
	}
	return &schemas.Error{Code: schemas.CodeInternal, Message: "internal error: " + err.Error()}
}
