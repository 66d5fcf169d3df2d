package jsonrpc

import (
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/schemas"
)

// BenchmarkPrepare times the reading of a lone request frame: its
// envelope and its params, then the handler's checks. The step's episode
// is not live, so taking its place in the queue fails at once with
// episode-not-found, the same for any decoder (a live one's place would
// have to be given back, which the manager does on a goroutine of its
// own, too noisy to time); the reset runs only in Run.
func BenchmarkPrepare(b *testing.B) {
	d := benchDispatcher(b)
	frames := []struct {
		name, frame string
		code        int
	}{
		{"step", `{"jsonrpc":"2.0","id":17,"method":"episode.step","params":{"episode_id":"ep_33b22c7666936c5a49a33e60","action":{"tool":"execute_sql","arguments":{"sql":"SELECT name, price FROM items WHERE id = 2"}}}}`,
			schemas.CodeEpisodeNotFound},
		{"text_step", `{"jsonrpc":"2.0","id":18,"method":"episode.step","params":{"episode_id":"ep_33b22c7666936c5a49a33e60","action":{"text":"Let me count them.\n<tool_call>\n{\"name\": \"submit\", \"arguments\": {\"sql\": \"SELECT count(*) FROM items\"}}\n</tool_call>"},"usage":{"completion_tokens":41}}}`,
			schemas.CodeEpisodeNotFound},
		{"reset", `{"jsonrpc":"2.0","id":19,"method":"episode.reset","params":{"task_id":"t/count","max_turns":8,"tags":{"policy":"v3","group":12,"sample":3}}}`, 0},
	}
	for _, f := range frames {
		b.Run(f.name, func(b *testing.B) {
			frame := []byte(f.frame)
			b.ReportAllocs()
			for b.Loop() {
				c := &d.Prepare(frame).calls[0]
				if c.err != nil && c.err.Code != f.code || c.err == nil && f.code != 0 {
					b.Fatalf("%s: %v, want code %d", f.name, c.err, f.code)
				}
			}
		})
	}
}

// benchDispatcher returns a dispatcher over a manager with one task and
// no live episode.
func benchDispatcher(b testing.TB) *Dispatcher {
	ds := &env.Dataset{Name: "t", Dialect: "sqlite", DBs: map[string]string{"shop": "shop.sqlite"},
		Tasks: []env.Task{{ID: "t/count", Dataset: "t", DBID: "shop", Question: "How many items?", GoldSQL: "SELECT count(*) FROM items"}}}
	if err := ds.Index(); err != nil {
		b.Fatal(err)
	}
	m, err := episodes.New(episodes.Config{Datasets: []*env.Dataset{ds}, Reward: schemas.DefaultRewardSpec()})
	if err != nil {
		b.Fatal(err)
	}
	return NewDispatcher(m, schemas.Limits{})
}
