package openenv

import (
	"errors"
	"net/http"

	"github.com/sqlgym/sqlgym/episodes"
)

// OpenEnv's WebSocket error codes (WSErrorCode of
// src/openenv/core/env_server/types.py).
const (
	CodeInvalidJSON     = "INVALID_JSON"
	CodeUnknownType     = "UNKNOWN_TYPE"
	CodeValidation      = "VALIDATION_ERROR"
	CodeExecution       = "EXECUTION_ERROR"
	CodeCapacityReached = "CAPACITY_REACHED"
	CodeFactory         = "FACTORY_ERROR"
	CodeSession         = "SESSION_ERROR"
)

// failure is an error as OpenEnv's clients get it: a WSErrorCode, the HTTP
// status of the same error on the HTTP routes, and the message.
type failure struct {
	Code    string
	Status  int
	Message string
}

func (f *failure) Error() string { return f.Message }

// invalid is a VALIDATION_ERROR: the client sent something malformed.
func invalid(msg string) *failure {
	return &failure{Code: CodeValidation, Status: http.StatusUnprocessableEntity, Message: msg}
}

// failureOf maps an error of the Manager (or of this package) to
// OpenEnv's codes: malformed params are VALIDATION_ERROR (HTTP 422), a full
// server CAPACITY_REACHED (503), a draining server EXECUTION_ERROR (503), an unknown, ended or busy episode
// SESSION_ERROR (404, 409), anything else EXECUTION_ERROR (500).
func failureOf(err error) *failure {
	var f *failure
	if errors.As(err, &f) {
		return f
	}
	switch episodes.KindOf(err) {
	case episodes.InvalidArgument, episodes.TaskNotFound:
		return invalid(err.Error())
	case episodes.Capacity:
		return &failure{Code: CodeCapacityReached, Status: http.StatusServiceUnavailable, Message: err.Error()}
	case episodes.Draining, episodes.Elsewhere: // not CAPACITY_REACHED: a session's restart would end its episode to make room
		return &failure{Code: CodeExecution, Status: http.StatusServiceUnavailable, Message: err.Error()}
	case episodes.NotFound:
		return &failure{Code: CodeSession, Status: http.StatusNotFound, Message: err.Error()}
	case episodes.Ended, episodes.Busy:
		return &failure{Code: CodeSession, Status: http.StatusConflict, Message: err.Error()}
	}
	return &failure{Code: CodeExecution, Status: http.StatusInternalServerError, Message: err.Error()}
}
