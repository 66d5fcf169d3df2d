package python_test

import (
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
)

// TestExamplesTakeTheServersDataset runs the examples against a server
// of Spider-dev alone: without --dataset they take the server's dataset
// (server.info), and a dataset the server does not serve is a message
// naming those it does, exit status 2, not a traceback (runScript fails
// on any traceback).
func TestExamplesTakeTheServersDataset(t *testing.T) {
	data := spiderdev.Dir(t)
	py := python3(t)
	url := startServer(t, binserver.Build(t), "--dataset", "spider:"+data)
	for _, s := range []script{
		{name: "rollout example", args: []string{"rollout_example.py", "--url", url, "--tasks", "2", "--group-size", "2"},
			want: "2 tasks of spider-dev, 2 episodes each"},
		{name: "rollout example, a dataset not served", args: []string{"rollout_example.py", "--url", url, "--dataset", "demo"},
			want: "--dataset demo: the server serves spider-dev", wantExit: 2},
		{name: "grpo rollout", args: []string{"grpo_rollout.py", "--url", url, "--groups", "2", "--group-size", "2"},
			want: "4 rollouts in 2 groups: 4 ended, 0 dropped"},
		{name: "grpo rollout, a dataset not served", args: []string{"grpo_rollout.py", "--url", url, "--dataset", "demo"},
			want: "--dataset demo: the server serves spider-dev", wantExit: 2},
	} {
		t.Run(s.name, func(t *testing.T) { runScript(t, py, s, nil) })
	}
}
