package sandbox

import (
	"fmt"

	"github.com/sqlgym/sqlgym/env"
)

// SampleCellBytes bounds each cell of the sample rows an engine's
// Describe shows of a table.
const SampleCellBytes = 1024

// SampleLimits are the bounds of n sample rows of a table.
func SampleLimits(n int) env.Limits { return env.Limits{MaxRows: n, MaxCellBytes: SampleCellBytes} }

// OneTable is the table an engine's catalog read found for name, which
// must be exactly one.
func OneTable(name string, tables []env.Table) (*env.Table, error) {
	if len(tables) != 1 {
		return nil, fmt.Errorf("describe %s: %d tables found", name, len(tables))
	}
	return &tables[0], nil
}
