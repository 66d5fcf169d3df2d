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

// metaOf describes a result set without its rows, for the trajectory.
func metaOf(rs *env.ResultSet) *schemas.ResultMeta {
	return &schemas.ResultMeta{
		Columns: rs.Columns, RowCount: len(rs.Rows), Truncated: rs.Truncated,
		ElapsedMS: schemas.Milliseconds(rs.Elapsed),
	}
}
