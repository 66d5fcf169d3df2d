package transport_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/transport"
)

// TestMountsAreGuardedLikeTheRPC shows a mounted surface is served under
// its prefix behind the token, and holds a room of --max-connections
// while its handler runs.
func TestMountsAreGuardedLikeTheRPC(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/extra/hold" {
			entered <- struct{}{}
			<-release
		}
		io.WriteString(w, "extra "+r.URL.Path)
	})
	s := serve(t, transport.ServerConfig{Token: "secret", MaxConnections: 1,
		Mounts: []transport.Mount{{Prefix: "/extra", Handler: h}}})
	get := func(path, token string) (int, string) {
		req, _ := http.NewRequest("GET", s.http+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := get("/extra/a", ""); code != http.StatusUnauthorized {
		t.Fatalf("no token: status %d, want 401", code)
	}
	for _, p := range []string{"/extra", "/extra/a/b"} {
		if code, body := get(p, "secret"); code != 200 || body != "extra "+p {
			t.Fatalf("%s: %d %q", p, code, body)
		}
	}
	held := make(chan *http.Response, 1)
	go func() {
		req, _ := http.NewRequest("GET", s.http+"/extra/hold", nil)
		req.Header.Set("Authorization", "Bearer secret")
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		held <- resp
	}()
	<-entered
	code, body := get("/extra/a", "secret")
	close(release)
	if resp := <-held; resp == nil || resp.StatusCode != 200 {
		t.Fatalf("the request that held the room: %v", resp)
	}
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "--max-connections") {
		t.Fatalf("second request while one holds the only room: %d %q", code, body)
	}
}

// TestOwnLoginMountSkipsTheBearerCheck shows a mount that signs in its
// own users is reached without the bearer token, while the RPC beside it
// still needs it.
func TestOwnLoginMountSkipsTheBearerCheck(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "page") })
	s := serve(t, transport.ServerConfig{Token: "secret", Mounts: []transport.Mount{{Prefix: "/ui", Handler: h, OwnLogin: true}}})
	resp, err := http.Get(s.http + "/ui/x")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "page" {
		t.Fatalf("own-login mount without a token: %d %q", resp.StatusCode, b)
	}
	resp, err = http.Post(s.http+"/v1/rpc", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"server.info"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("/v1/rpc without the token beside an own-login mount: %d, want 401", resp.StatusCode)
	}
}
