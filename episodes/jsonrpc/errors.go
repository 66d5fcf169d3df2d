package jsonrpc

import (
	"errors"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/schemas"
)

// rpcError turns an error from the manager into the JSON-RPC error sent
// to the client.
func rpcError(err error) *schemas.Error {
	var re *schemas.Error
	switch {
	case errors.As(err, &re):
		return re
	case errors.Is(err, episodes.ErrNotFound):
		return &schemas.Error{Code: schemas.CodeEpisodeNotFound, Message: err.Error()}
	case errors.Is(err, episodes.ErrBusy):
		return &schemas.Error{Code: schemas.CodeEpisodeBusy, Message: err.Error()}
	case errors.Is(err, episodes.ErrEnded):
		return &schemas.Error{Code: schemas.CodeEpisodeEnded, Message: err.Error()}
	case errors.Is(err, episodes.ErrCapacity):
		return &schemas.Error{Code: schemas.CodeCapacity, Message: err.Error()}
	}
	return &schemas.Error{Code: schemas.CodeInternal, Message: "internal error: " + err.Error()}
}
