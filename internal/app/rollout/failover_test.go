package rollout_test

import (
	"context"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/internal/app/rollout"
	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/cutproxy"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// TestRolloutSurvivesItsReplica plays the mixed script on two `sqlgym
// serve --takeover` replicas sharing a PostgreSQL store, behind a proxy
// that gives each connection to the first while it accepts; at the sixth
// request to the model the first replica is killed (SIGKILL) or drained
// (SIGTERM), with episodes live on it. Every sample finishes on the
// second, each recorded complete with its turns 1, 2, ... (none run
// twice), ending as the same script ends in process.
func TestRolloutSurvivesItsReplica(t *testing.T) {
	bin := binserver.Build(t)
	want := outcomes(t, newWorld(t), nil)
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			ctx := context.Background()
			store, _ := pgtest.URL(t)
			first := binserver.StartReplica(t, bin, store, "first", "--max-turns", "4") // the world's turn budget
			second := binserver.StartReplica(t, bin, store, "second", "--max-turns", "4")
			p := cutproxy.Start(t, cutproxy.HostPort(first.URL), cutproxy.HostPort(second.URL))
			r, err := client.DialResuming(ctx, p.URL(first.URL), "", time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			w := newWorld(t) // the tasks and golds the scripts are made of
			w.env = rollout.ClientEnv{C: r}
			strike := func(n int) {
				if n == 6 {
					first.Cmd.Process.Signal(sig)
				}
			}
			results := outcomes(t, w, strike)
			if !slices.Equal(results.outcomes, want.outcomes) {
				t.Errorf("outcomes %v, want %v as in process", results.outcomes, want.outcomes)
			}
			if r.Reconnects() == 0 {
				t.Errorf("the client never left the first replica")
			}
			waitfor.Until(t, "the first replica gone", func() bool { return first.Cmd.Process.Signal(syscall.Signal(0)) != nil })
			for _, id := range results.episodes {
				tr, err := r.Episode(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if tr.EndedAt == nil {
					t.Errorf("episode %s did not end", id)
				}
				for i, s := range tr.Steps {
					if s.Turn != i+1 {
						t.Errorf("episode %s: step %d is turn %d: a step lost or run twice", id, i, s.Turn)
					}
				}
			}
		})
	}
}

// played is what a run of the mixed script did: each sample's outcome,
// sorted, and its episodes.
type played struct {
	outcomes []string
	episodes []string
}

// outcomes plays the mixed script on w, calling strike with the number
// of each request to the model (1, 2, ...) as it comes.
func outcomes(t *testing.T, w *world, strike func(n int)) played {
	t.Helper()
	m := newStubModel(t, mixScripts(t, w))
	if strike != nil {
		var mu sync.Mutex
		n := 0
		m.onRequest = func() {
			mu.Lock()
			n++
			k := n
			mu.Unlock()
			strike(k)
		}
	}
	var out played
	onResult := func(res rollout.Result) {
		if res.Err != nil {
			t.Errorf("sample %v: %v", res.Sample, res.Err)
		}
		out.outcomes = append(out.outcomes, res.Outcome)
		out.episodes = append(out.episodes, res.EpisodeID)
	}
	sum := rollout.Run(context.Background(), rollout.Config{Env: w.env, Chat: m.chat(t), Run: "mix", Model: "stub-model",
		Concurrency: 4, OnResult: onResult}, rollout.Plan([]string{taskA, taskB, taskC}, 4, nil))
	if sum.Err != nil || sum.Finished != 12 {
		t.Fatalf("summary %+v, want 12 finished", sum)
	}
	slices.Sort(out.outcomes)
	return out
}
