package judge

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

// limitsDB is a real database recording the limits each statement ran
// under.
type limitsDB struct {
	env.DB
	mu   sync.Mutex
	used map[string]env.Limits
}

func (d *limitsDB) Query(ctx context.Context, sql string, lim env.Limits) (*env.ResultSet, error) {
	d.mu.Lock()
	d.used[sql] = lim
	d.mu.Unlock()
	return d.DB.Query(ctx, sql, lim)
}

// TestSubmitLimits: the limits SubmitLimits reports are those a judged
// submission runs under, the configured timeout and bounds included.
func TestSubmitLimits(t *testing.T) {
	db := &limitsDB{DB: openDB(t, singers), used: map[string]env.Limits{}}
	j := New(Config{PredTimeout: 7 * time.Second, MaxRows: 123})
	want := env.Limits{Timeout: 7 * time.Second, MaxRows: 123, MaxResultBytes: DefaultMaxResultBytes, Reads: true}
	if got := j.SubmitLimits(); got != want {
		t.Fatalf("SubmitLimits = %+v, want %+v", got, want)
	}
	pred := "SELECT name FROM singer WHERE age = 30"
	if _, err := j.Judge(context.Background(), db, "test", &env.Task{GoldSQL: "SELECT name FROM singer WHERE age < 31 AND age > 29"}, pred,
		schemas.RewardSpec{Match: schemas.MatchBird}); err != nil {
		t.Fatal(err)
	}
	if got := db.used[pred]; got != want {
		t.Errorf("the submission ran under %+v, want SubmitLimits' %+v", got, want)
	}
}
