package rollout

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

// Bounds of the queries a Voter runs again.
const (
	voteTimeout = 30 * time.Second
	voteRows    = 100000
)

// Voter keys submitted queries by the rows they return, run again on the
// task's database: two queries get the same key exactly when they return
// the same set of rows (BIRD's rule), which is what a self-consistency
// vote compares. It implements report.Voter.
type Voter struct {
	Catalog  *env.Catalog
	Datasets []*env.Dataset
}

// ResultKey runs sql on the task's database and keys its rows; ok is
// false when the query fails, or the task's dataset is not at hand.
func (v *Voter) ResultKey(ctx context.Context, task schemas.TaskView, sql string) (string, bool) {
	ds := v.dataset(task.Dataset)
	if ds == nil {
		return "", false
	}
	db, err := v.Catalog.DB(ctx, ds, task.DBID)
	if err != nil {
		return "", false
	}
	rs, err := db.Query(ctx, sql, env.Limits{Timeout: voteTimeout, MaxRows: voteRows})
	if err != nil || rs.Truncated {
		return "", false
	}
	return rowsKey(rs.Rows), true
}

func (v *Voter) dataset(name string) *env.Dataset {
	for _, ds := range v.Datasets {
		if ds.Name == name {
			return ds
		}
	}
	return nil
}

// rowsKey hashes the set of rows: each row as JSON, sorted, repeats dropped.
func rowsKey(rows [][]any) string {
	lines := make([]string, 0, len(rows))
	for _, r := range rows {
		b, _ := json.Marshal(r) // values are nil, int64, float64, string or []byte
		lines = append(lines, string(b))
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}
