package repl

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/internal/testkit/testserver"
	"github.com/sqlgym/sqlgym/schemas"
)

// recordLog records two episodes through a real server into the
// trajectory log under dataDir/trajectories, then stops the server and
// closes the log, which seals its segment. It returns the episodes.
func recordLog(t *testing.T, dataDir string) []schemas.Trajectory {
	t.Helper()
	d := testserver.StartDemo(t, testserver.DemoOptions{LogDir: filelog.LogDir(dataDir),
		Config: func(cfg *episodes.Config, _ string) { cfg.MaxTurns = 8 }})
	eps := []schemas.Trajectory{recordEpisode(t, &testServer{url: d.URL}), recordEpisode(t, &testServer{url: d.URL})}
	d.Stop()
	d.Manager.Shutdown(context.Background())
	if err := d.Log.Close(); err != nil {
		t.Fatal(err)
	}
	return eps
}

// flipStep flips three bytes in the middle of the first step line of
// episode ep in a segment.
func flipStep(t *testing.T, path, ep string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for off := 0; off < len(b); {
		n := bytes.IndexByte(b[off:], '\n')
		var l struct{ Ev, Ep string }
		if json.Unmarshal(b[off:off+n], &l) == nil && l.Ev == "step" && l.Ep == ep {
			for i := off + n/2; i < off+n/2+3; i++ {
				b[i] ^= 0xff
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		off += n + 1
	}
	t.Fatalf("no step line of %s in %s", ep, path)
}

// TestReplayFromDamagedLog replays episodes from a trajectory log with a
// damaged line: .replay warns, naming the segment, the line and the
// episode that lost it, and replays the episodes all the same.
func TestReplayFromDamagedLog(t *testing.T) {
	dataDir := t.TempDir()
	eps := recordLog(t, dataDir)
	recordLog(t, dataDir) // a second session: a second segment
	clean := pipe(t, startServer(t, 0).url, ".replay "+dataDir+" "+eps[1].EpisodeID+"\n", false)
	checkOutput(t, clean, []string{"replaying " + eps[1].EpisodeID + " (record 2 of ", "4 of 4 steps sent, 0 differ"}, []string{"damaged"})

	flipStep(t, filepath.Join(filelog.LogDir(dataDir), "traj-000001.log"), eps[0].EpisodeID)
	srv := startServer(t, 0)
	damaged := "traj-000001.log: 1 line damaged at byte "
	tests := []struct {
		name, input string
		want        []string
	}{
		{"an intact episode", ".replay " + dataDir + " " + eps[1].EpisodeID + "\n",
			[]string{"the trajectory log is damaged: 1 segment, 1 line, 1 episode touched", damaged, "checksum mismatch; episodes: " + eps[0].EpisodeID + "\n",
				"replaying " + eps[1].EpisodeID + " (record 2 of ", "4 of 4 steps sent, 0 differ"}},
		{"the episode that lost a step", ".replay " + filelog.LogDir(dataDir) + " " + eps[0].EpisodeID + "\n",
			[]string{damaged, eps[0].EpisodeID + " is incomplete", "replaying " + eps[0].EpisodeID + " (record 1 of ", "3 steps", "3 of 3 steps sent"}},
		{"no such episode", ".replay " + dataDir + " ep_nope\n",
			[]string{damaged, "holds no episode ep_nope"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkOutput(t, pipe(t, srv.url, tt.input, false), tt.want, nil)
		})
	}
}
