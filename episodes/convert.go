package episodes

import (
	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// toolError is the observation error for a failed submission.
func toolError(qe *env.QueryError) *schemas.ToolError {
	return &schemas.ToolError{Code: tools.ErrorCode(qe), Message: qe.Message}
}
