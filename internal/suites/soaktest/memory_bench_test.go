package soaktest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/schemas"
)

// rssGrowth is how much the server's RSS grew from before to after, per
// item; at least 0.
func rssGrowth(b *testing.B, srv *binserver.Process, before int64, items int) float64 {
	b.Helper()
	after, err := srv.RSS()
	if err != nil {
		b.Fatal(err)
	}
	return float64(max(after-before, 0)) / float64(items)
}

// serverRSS starts the real binary on the demo and returns it with its
// RSS once it has served one call.
func serverRSS(b *testing.B, args ...string) (*binserver.Process, int64) {
	b.Helper()
	srv := binserver.Start(b, binserver.Build(b), append([]string{"--data-dir", filepath.Join(b.TempDir(), "data"),
		"--log-level", "warn"}, args...)...)
	c, err := client.Dial(context.Background(), srv.URL, "")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.Info(context.Background()); err != nil {
		b.Fatal(err)
	}
	c.Close()
	rss, err := srv.RSS()
	if err != nil {
		b.Fatal(err)
	}
	return srv, rss
}

// BenchmarkIdleSocketMemory reports what an idle WebSocket costs the real
// server: its RSS growth per socket over 2,000 sockets that have each
// made one call and then wait. Run it with -benchtime 1x.
func BenchmarkIdleSocketMemory(b *testing.B) {
	const sockets = 2000
	srv, before := serverRSS(b, "--max-connections", "10000")
	for range b.N {
		var conns []*websocket.Conn
		for range sockets {
			ws, _, err := websocket.DefaultDialer.Dial(srv.URL, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer ws.Close()
			if err := ws.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":1,"method":"server.info"}`)); err != nil {
				b.Fatal(err)
			}
			if _, _, err := ws.ReadMessage(); err != nil {
				b.Fatal(err)
			}
			conns = append(conns, ws)
		}
		b.ReportMetric(rssGrowth(b, srv, before, len(conns)), "server-bytes/socket")
	}
}

// BenchmarkIdleEpisodeMemory reports what a live, idle episode costs the
// real server: its RSS growth per episode over 10,000 episodes reset on
// the demo and left waiting. Run it with -benchtime 1x.
func BenchmarkIdleEpisodeMemory(b *testing.B) {
	const episodes = 10000
	srv, before := serverRSS(b, "--max-episodes", "20000")
	c, err := client.Dial(context.Background(), srv.URL, "")
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	for range b.N {
		for i := range episodes {
			seed := int64(i)
			if _, err := c.Reset(context.Background(), schemas.ResetParams{Seed: &seed}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(rssGrowth(b, srv, before, episodes), "server-bytes/episode")
	}
}
