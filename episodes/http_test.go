package episodes_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/schemas"
)

func TestTokenGuardsUpgradeAndRPC(t *testing.T) {
	h := newHarness(t, options{server: func(c *transport.ServerConfig) { c.Token = "s3cret" }})
	ctx := context.Background()
	if _, err := client.Dial(ctx, h.url, ""); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("dial without a token: %v, want HTTP 401", err)
	}
	if _, err := client.Dial(ctx, h.url, "wrong"); err == nil {
		t.Fatal("dial with a wrong token succeeded")
	}
	c, err := client.Dial(ctx, h.url, "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Info(ctx); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(h.hs.URL+"/v1/rpc", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"server.info"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("POST /v1/rpc without a token: %d, want 401", resp.StatusCode)
	}
}

func TestHTTPEndpoints(t *testing.T) {
	h := newHarness(t, options{})
	get := func(path string) (int, string) {
		resp, err := http.Get(h.hs.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz = %d %q", code, body)
	}
	c := h.dial()
	r := reset(t, c, schemas.ResetParams{TaskID: "t/count"})
	step(t, c, r.EpisodeID, submitSQL("SELECT count(*) FROM items"))
	code, body := get("/metrics")
	for _, want := range []string{`sqlgym_episodes_ended_total{outcome="correct"} 1`, "sqlgym_episodes_started_total 1",
		"sqlgym_trajectory_records_total 1", `sqlgym_step_seconds_count{tool="submit"} 1`} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	post := func(body string) (int, string) {
		resp, err := http.Post(h.hs.URL+"/v1/rpc", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post(`{"jsonrpc":"2.0","id":1,"method":"episode.reset","params":{"task_id":"t/count"}}`); code != 200 ||
		!strings.Contains(body, `"episode_id":"ep_`) {
		t.Errorf("POST /v1/rpc reset = %d %s", code, body)
	}
	if code, _ := post(`{"jsonrpc":"2.0","method":"server.info"}`); code != http.StatusNoContent {
		t.Errorf("POST /v1/rpc notification = %d, want 204", code)
	}
}
