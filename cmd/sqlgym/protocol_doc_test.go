package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/client"
)

// TestProtocolDocServerInfoDemo: docs/protocol.md's server.info example
// names the demo dataset with as many tasks as a real server's
// server.info reports for it.
func TestProtocolDocServerInfoDemo(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "protocol.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`\{"name": "demo", "tasks": (\d+),`).FindSubmatch(doc)
	if m == nil {
		t.Fatal(`docs/protocol.md has no server.info example naming {"name": "demo", "tasks": N}`)
	}
	documented, _ := strconv.Atoi(string(m[1]))
	serveAndDrive(t, []string{"--data-dir", t.TempDir()}, func(c *client.Client) {
		info, err := c.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(info.Datasets) != 1 || info.Datasets[0].Name != "demo" {
			t.Fatalf("server.info datasets %+v, want the demo alone", info.Datasets)
		}
		if got := info.Datasets[0].Tasks; got != documented {
			t.Errorf("docs/protocol.md's server.info example says the demo has %d tasks; server.info says %d", documented, got)
		}
	})
}
