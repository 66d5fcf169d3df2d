package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/cutproxy"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/internal/testkit/testserver"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

// resumeWorld is a demo server, a proxy in front of it, a Resumer
// through the proxy and a client straight to the server, which sees
// what the server recorded.
type resumeWorld struct {
	srv    *testserver.Demo
	proxy  *cutproxy.Proxy
	r      *client.Resumer
	direct *client.Client
}

func newResumeWorld(t *testing.T, reconnect time.Duration) *resumeWorld {
	t.Helper()
	d := testserver.StartDemo(t, testserver.DemoOptions{})
	p := cutproxy.Start(t, cutproxy.HostPort(d.URL))
	r, err := client.DialResuming(context.Background(), p.URL(d.URL), "", reconnect)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return &resumeWorld{srv: d, proxy: p, r: r, direct: d.Dial(t)}
}

// turns are the turns the server recorded for the episode.
func (w *resumeWorld) turns(t *testing.T, id string) []int {
	t.Helper()
	tr, err := w.direct.Episode(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, s := range tr.Steps {
		out = append(out, s.Turn)
	}
	return out
}

// stepLost sends a step whose reply the proxy holds back until the
// server has recorded it, then cuts the connection: the reply is lost.
func (w *resumeWorld) stepLost(t *testing.T, id string, recorded int) (*schemas.StepResult, error) {
	t.Helper()
	type out struct {
		r   *schemas.StepResult
		err error
	}
	done := make(chan out, 1)
	w.proxy.Hold()
	go func() {
		r, err := w.r.StepParams(context.Background(), schemas.StepParams{EpisodeID: id, Action: client.ToolCall("inspect_schema", nil)})
		done <- out{r, err}
	}()
	waitfor.Until(t, "the step recorded", func() bool { return len(w.turns(t, id)) == recorded })
	w.proxy.Cut()
	w.proxy.Release()
	o := <-done
	return o.r, o.err
}

// TestResumerSendsALostStepAgain: a step whose reply was lost with its
// connection is sent again, with its turn, on a new connection; the
// server answers it from its record, and it ran once.
func TestResumerSendsALostStepAgain(t *testing.T) {
	w := newResumeWorld(t, 30*time.Second)
	ctx := context.Background()
	reset, err := w.r.Reset(ctx, schemas.ResetParams{TaskID: "demo/library-001"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.stepLost(t, reset.EpisodeID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got.Info.Turn != 1 || !got.Info.Replayed {
		t.Errorf("the step sent again answered turn %d, replayed %v; want turn 1 from the record", got.Info.Turn, got.Info.Replayed)
	}
	if n := w.r.Reconnects(); n != 1 {
		t.Errorf("%d reconnects, want 1", n)
	}
	next, err := w.r.StepParams(ctx, schemas.StepParams{EpisodeID: reset.EpisodeID, Action: client.ToolCall("inspect_schema", nil)})
	if err != nil || next.Info.Turn != 2 || next.Info.Replayed {
		t.Fatalf("the next step: %+v, %v; want turn 2, run", next, err)
	}
	if turns := w.turns(t, reset.EpisodeID); len(turns) != 2 || turns[0] != 1 || turns[1] != 2 {
		t.Errorf("the server recorded turns %v, want [1 2]: no step twice", turns)
	}
	if _, err := w.r.CloseEpisode(ctx, reset.EpisodeID); err != nil {
		t.Fatal(err)
	}
}

// TestResumerWithoutATurn: a step of an episode whose start the Resumer
// never saw goes without a turn, so when its reply is lost it is not
// sent twice: the caller gets the lost connection.
func TestResumerWithoutATurn(t *testing.T) {
	w := newResumeWorld(t, 30*time.Second)
	reset, err := w.direct.Reset(context.Background(), schemas.ResetParams{TaskID: "demo/library-001"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.stepLost(t, reset.EpisodeID, 1); !errors.Is(err, client.ErrClosed) {
		t.Fatalf("step error %v, want the lost connection", err)
	}
	if turns := w.turns(t, reset.EpisodeID); len(turns) != 1 {
		t.Errorf("the server recorded turns %v, want one step", turns)
	}
}

// TestResumerGivesUp: with no server to reach, a call fails once the
// reconnect timeout has passed; with a timeout of 0 it fails at once,
// without reconnecting.
func TestResumerGivesUp(t *testing.T) {
	for _, timeout := range []time.Duration{0, 300 * time.Millisecond} {
		w := newResumeWorld(t, timeout)
		ctx := context.Background()
		reset, err := w.r.Reset(ctx, schemas.ResetParams{TaskID: "demo/library-001"})
		if err != nil {
			t.Fatal(err)
		}
		w.proxy.Close()
		_, err = w.r.StepParams(ctx, schemas.StepParams{EpisodeID: reset.EpisodeID, Action: client.ToolCall("inspect_schema", nil)})
		if err == nil {
			t.Fatalf("reconnect timeout %s: a step with no server to reach succeeded", timeout)
		}
		if timeout > 0 && !strings.Contains(err.Error(), "reconnecting for 300ms") {
			t.Errorf("reconnect timeout %s: error %v, want it to say how long it reconnected", timeout, err)
		}
		if n := w.r.Reconnects(); n != 0 {
			t.Errorf("reconnect timeout %s: %d reconnects", timeout, n)
		}
		if turns := w.turns(t, reset.EpisodeID); len(turns) != 0 {
			t.Errorf("reconnect timeout %s: the server recorded turns %v", timeout, turns)
		}
	}
}

// TestResumerElsewhere: through a proxy to the first of two live
// --takeover replicas on one store, a step of an episode the second
// drives is answered -32007; the Resumer sends it again on new
// connections, which the proxy still gives the first, until its
// reconnect timeout, and then the caller gets the -32007. Once the proxy
// leads to the second replica the same step runs there.
func TestResumerElsewhere(t *testing.T) {
	store, _ := pgtest.URL(t)
	bin := binserver.Build(t)
	first := binserver.StartReplica(t, bin, store, "first")
	second := binserver.StartReplica(t, bin, store, "second")
	p := cutproxy.Start(t, cutproxy.HostPort(first.URL))
	ctx := context.Background()
	r, err := client.DialResuming(ctx, p.URL(first.URL), "", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	direct, err := client.Dial(ctx, second.URL, "")
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	reset, err := direct.Reset(ctx, schemas.ResetParams{TaskID: "demo/library-001"})
	if err != nil {
		t.Fatal(err)
	}
	step := schemas.StepParams{EpisodeID: reset.EpisodeID, Action: client.ToolCall("inspect_schema", nil)}
	_, err = r.StepParams(ctx, step)
	var rpc *schemas.Error
	if !errors.As(err, &rpc) || rpc.Code != schemas.CodeElsewhere {
		t.Fatalf("step through the first replica: %v, want -32007", err)
	}
	if r.Reconnects() == 0 {
		t.Errorf("the step was not sent again on a new connection")
	}
	p.Retarget(cutproxy.HostPort(second.URL))
	got, err := r.StepParams(ctx, step)
	if err != nil || got.Info.Turn != 1 || got.Info.Replayed {
		t.Fatalf("step through the second replica: %+v, %v; want turn 1, run", got, err)
	}
}
