package openenv_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/openenv"
	"github.com/sqlgym/sqlgym/internal/testkit/peer"
)

// fairSessions is the session bound of the fairness tests: small, so a
// flood fills it in a few requests; the rule does not depend on it.
const fairSessions = 16

// postFrom is post from peer n's address.
func postFrom(t testing.TB, n int, url string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := peer.HTTPClient(n).Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var v map[string]any
	json.Unmarshal(raw, &v)
	return resp.StatusCode, v
}

// fill has peer n reset HTTP episodes until the bound refuses it, and
// returns how many it got; it fails the test past bound+1 attempts.
func fill(t *testing.T, s *surface, n, bound int) int {
	t.Helper()
	for got := 0; got <= bound; got++ {
		code, res := postFrom(t, n, s.base+"/reset", map[string]any{})
		if code == http.StatusServiceUnavailable {
			return got
		}
		if code != http.StatusOK {
			t.Fatalf("flood reset %d: %d %v", got, code, res)
		}
	}
	t.Fatalf("peer %d reset %d episodes past a bound of %d", n, bound+1, bound)
	return 0
}

// TestFloodOfResetsLeavesOthersServed checks issue #32's OpenEnv case:
// one client filling every session with POST /reset (the bound is all
// its own while no one else asks) does not keep an honest WebSocket, an
// honest HTTP reset or an honest openenv/session/create from being
// served at their first attempt: each reclaims the flooder's least
// recently used idle session, recorded as abandoned.
func TestFloodOfResetsLeavesOthersServed(t *testing.T) {
	s := start(t, func(c *openenv.Config) { c.MaxSessions = fairSessions }, nil)
	if got := fill(t, s, 2, fairSessions); got != fairSessions {
		t.Fatalf("alone, the flooder got %d sessions, want the whole bound (%d)", got, fairSessions)
	}
	ws, _, err := peer.WSDialer(3).Dial(s.ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	honest := &envClient{t: t, conn: ws}
	data(t, honest.call(reset(map[string]any{})), "observation")
	if code, res := postFrom(t, 4, s.base+"/reset", map[string]any{}); code != http.StatusOK {
		t.Fatalf("an honest HTTP reset during the flood: %d %v", code, res)
	}
	_, res := postFrom(t, 5, s.base+"/mcp", jsonRPC(1, "openenv/session/create", nil))
	if res["result"] == nil {
		t.Fatalf("an honest session/create during the flood: %v", res)
	}
	if code, res := postFrom(t, 2, s.base+"/reset", map[string]any{}); code != http.StatusServiceUnavailable ||
		!strings.Contains(res["detail"].(string), "fair share") {
		t.Fatalf("the flooder, above its share, asking again: %d %v; want 503 saying it holds its share", code, res)
	}
	if n := s.handler.ActiveSessions(); n != fairSessions {
		t.Fatalf("%d sessions held, want the bound (%d)", n, fairSessions)
	}
}
