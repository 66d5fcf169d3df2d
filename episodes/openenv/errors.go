package openenv

import (
	"errors"
	"net/http"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/schemas"
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
// server CAPACITY_REACHED (503), an unknown, ended or busy episode
// SESSION_ERROR (404, 409), anything else EXECUTION_ERROR (500).
func failureOf(err error) *failure {
	var f *failure
	if errors.As(err, &f) {
		return f
	}
	code := schemas.CodeInternal
	var re *schemas.Error
	switch {
	case errors.As(err, &re):
		code = re.Code
	case errors.Is(err, episodes.ErrNotFound):
		code = schemas.CodeEpisodeNotFound
	case errors.Is(err, episodes.ErrBusy):
		code = schemas.CodeEpisodeBusy
	case errors.Is(err, episodes.ErrEnded):
		code = schemas.CodeEpisodeEnded
	case errors.Is(err, episodes.ErrCapacity):
		code = schemas.CodeCapacity
	}
	switch code {
	case schemas.CodeInvalidParams, schemas.CodeTaskNotFound:
		return invalid(err.Error())
	case schemas.CodeCapacity:
		return &failure{Code: CodeCapacityReached, Status: http.StatusServiceUnavailable, Message: err.Error()}
	case schemas.CodeEpisodeNotFound:
		return &failure{Code: CodeSession, Status: http.StatusNotFound, Message: err.Error()}
	case schemas.CodeEpisodeEnded, schemas.CodeEpisodeBusy:
		return &failure{Code: CodeSession, Status: http.StatusConflict, Message: err.Error()}
	}
	return &failure{Code: CodeExecution, Status: http.StatusInternalServerError, Message: err.Error()}
}
