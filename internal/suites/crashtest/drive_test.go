package crashtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// ledger is what the clients were told: for every episode whose reset
// reply arrived, the step replies that arrived.
type ledger struct {
	mu       sync.Mutex // guards episodes
	episodes map[string]*told
}

type told struct {
	replies []schemas.StepResult
	final   bool // the reply of the step that ended the episode arrived
}

func newLedger() *ledger { return &ledger{episodes: map[string]*told{}} }

func (l *ledger) begin(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.episodes[id] = &told{}
}

func (l *ledger) step(id string, r *schemas.StepResult) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.episodes[id]
	e.replies = append(e.replies, *r)
	e.final = r.Terminated || r.Truncated
}

// plan is the actions of one episode: inspect, execute, then either a
// submission or (with a two-turn budget) running out of turns.
func plan(rng *rand.Rand) (schemas.ResetParams, []schemas.Action) {
	seed := rng.Int64()
	p := schemas.ResetParams{Seed: &seed, Tags: []byte(fmt.Sprintf(`{"policy":"crash","seed":%d}`, seed))}
	acts := []schemas.Action{
		client.ToolCall(schemas.ToolInspectSchema, map[string]any{}),
		client.ToolCall(schemas.ToolExecuteSQL, map[string]any{"sql": fmt.Sprintf("SELECT %d, name FROM sqlite_master LIMIT 3", rng.IntN(1000))}),
	}
	switch rng.IntN(3) {
	case 0:
		p.MaxTurns = new(2) // ends truncated on the second step
	case 1:
		acts = append(acts, client.ToolCall(schemas.ToolSubmit, map[string]any{"sql": "SELECT count(*) FROM sqlite_master"}))
	default:
		acts = append(acts, client.ToolCall(schemas.ToolSubmit, map[string]any{"sql": "SELECT 1"}))
	}
	return p, acts
}

// drive runs workers goroutines over sockets connections, each playing
// episodes one after another until ctx ends or the server goes away.
func drive(ctx context.Context, url string, sockets, workers int, seed uint64, book *ledger) error {
	cs := make([]*client.Client, sockets)
	for i := range cs {
		c, err := client.Dial(ctx, url, "")
		if err != nil {
			return err
		}
		defer c.Close()
		cs[i] = c
	}
	var wg sync.WaitGroup
	for w := range workers {
		c := cs[w%sockets]
		rng := rand.New(rand.NewPCG(seed, uint64(w)))
		wg.Go(func() {
			for ctx.Err() == nil && play(ctx, c, rng, book) == nil {
			}
		})
	}
	wg.Wait()
	return nil
}

// play runs one episode, writing each reply into the ledger as it comes.
func play(ctx context.Context, c *client.Client, rng *rand.Rand, book *ledger) error {
	p, acts := plan(rng)
	r, err := c.Reset(ctx, p)
	if err != nil {
		return err
	}
	book.begin(r.EpisodeID)
	for _, a := range acts {
		res, err := c.Step(ctx, r.EpisodeID, a)
		if err != nil {
			return err
		}
		book.step(r.EpisodeID, res)
		if res.Terminated || res.Truncated {
			return nil
		}
	}
	return fmt.Errorf("episode %s did not end", r.EpisodeID)
}
