package rollout_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/internal/app/rollout"
	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
	"github.com/sqlgym/sqlgym/internal/testkit/cutproxy"
	"github.com/sqlgym/sqlgym/internal/testkit/testserver"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestRolloutSurvivesCutConnections plays the mixed script on a server
// through a proxy that cuts every connection at every third request to
// the model, with episodes in flight: the Resumer reconnects and sends
// again what had no reply, every sample finishes, the report is the
// in-process one's, and the server recorded each sample once, its
// turns 1, 2, ... with none run twice (a reset whose reply was lost is
// sent again as a new one, leaving an orphan episode with no step).
func TestRolloutSurvivesCutConnections(t *testing.T) {
	ctx := context.Background()
	w, cfg := worldStack(t)
	srv := testserver.Start(t, cfg, testserver.Options{})
	p := cutproxy.Start(t, cutproxy.HostPort(srv.URL))
	r, err := client.DialResuming(ctx, p.URL(srv.URL), "", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	w.env = rollout.ClientEnv{C: r}
	m := newStubModel(t, mixScripts(t, w))
	var requests atomic.Int64
	m.onRequest = func() {
		if requests.Add(1)%3 == 0 {
			p.Cut()
		}
	}
	onResult := func(res rollout.Result) {
		if res.Err != nil {
			t.Errorf("sample %v: %v", res.Sample, res.Err)
		}
	}
	sum := rollout.Run(ctx, rollout.Config{Env: w.env, Chat: m.chat(t), Run: "mix", Model: "stub-model", Concurrency: 4,
		OnResult: onResult}, rollout.Plan([]string{taskA, taskB, taskC}, 4, nil))
	if sum.Err != nil || sum.Finished != 12 {
		t.Fatalf("summary %+v, want 12 finished", sum)
	}
	if r.Reconnects() == 0 || p.Accepted() < 2 {
		t.Fatalf("%d reconnects through %d connections: the connections were not cut", r.Reconnects(), p.Accepted())
	}
	rep := report.Build(ctx, w.episodes(t, "mix", false), report.Options{Voter: w.voter()})
	if rep.Episodes != 12 || !near(rep.MeanAccuracy, 0.5) || !near(rep.SCAccuracy, 2.0/3) {
		t.Errorf("%d episodes, mean %v, SC %v; want 12, 1/2, 2/3 as in process", rep.Episodes, rep.MeanAccuracy, rep.SCAccuracy)
	}
	checkOncePerSample(t, w.episodes(t, "mix", true))
}

// checkOncePerSample checks that each sample of the run ended in one
// complete episode, its steps turns 1, 2, ... (none run twice), and that
// any other episode is an orphan: started by a reset whose reply was
// lost, and never stepped.
func checkOncePerSample(t *testing.T, trs []*schemas.Trajectory) {
	t.Helper()
	seen := map[rollout.Key]bool{}
	for _, tr := range trs {
		if tr.EndedAt == nil || tr.Outcome == "abandoned" {
			if len(tr.Steps) > 0 {
				t.Errorf("episode %s did not end by its client, yet has %d steps", tr.EpisodeID, len(tr.Steps))
			}
			continue
		}
		s, _ := report.SampleOf(tr)
		k := rollout.Key{TaskID: tr.Task.TaskID, Sample: s}
		if seen[k] {
			t.Errorf("sample %v recorded twice", k)
		}
		seen[k] = true
		for i, st := range tr.Steps {
			if st.Turn != i+1 {
				t.Errorf("episode %s recorded turns out of order (a step ran twice?): step %d is turn %d", tr.EpisodeID, i, st.Turn)
			}
		}
	}
	if len(seen) != 12 {
		t.Errorf("%d samples recorded complete, want 12", len(seen))
	}
}
