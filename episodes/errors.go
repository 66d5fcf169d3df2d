package episodes

import (
	"errors"
)

// Sentinel states that callers match with errors.Is; the JSON-RPC layer
// (episodes/jsonrpc) turns them into error codes.
var (
	ErrNotFound = errors.New("episode not found")     // no live or recent episode has that id
	ErrBusy     = errors.New("episode busy")          // too many steps of the episode wait
	ErrEnded    = errors.New("episode already ended") // a step on an ended episode
	ErrCapacity = errors.New("capacity reached")      // --max-episodes live episodes
)
