package episodes_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/episodes/transport"
)

// TestBearerSchemeIsCaseInsensitive sends the token under every spelling
// of the scheme RFC 9110 allows, and under wrong ones, over HTTP and on
// the WebSocket upgrade.
func TestBearerSchemeIsCaseInsensitive(t *testing.T) {
	h := newHarness(t, options{server: func(c *transport.ServerConfig) { c.Token = "s3cret" }})
	tests := []struct {
		header string
		want   int
	}{
		{"Bearer s3cret", http.StatusOK},
		{"bearer s3cret", http.StatusOK},
		{"BEARER s3cret", http.StatusOK},
		{"bEaReR   s3cret", http.StatusOK},
		{"Bearer S3CRET", http.StatusUnauthorized},
		{"Bearer s3cre", http.StatusUnauthorized},
		{"Bearer s3cret2", http.StatusUnauthorized},
		{"Basic s3cret", http.StatusUnauthorized},
		{"Bearers3cret", http.StatusUnauthorized},
		{"s3cret", http.StatusUnauthorized},
		{"Bearer", http.StatusUnauthorized},
		{"", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		req, err := http.NewRequest(http.MethodPost, h.hs.URL+"/v1/rpc",
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"server.info"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if tt.header != "" {
			req.Header.Set("Authorization", tt.header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("POST with Authorization %q: %d, want %d", tt.header, resp.StatusCode, tt.want)
		}
	}
	d := websocket.Dialer{}
	ws, _, err := d.DialContext(context.Background(), h.url, http.Header{"Authorization": {"bearer s3cret"}})
	if err != nil {
		t.Fatalf("upgrade with a lower-case scheme: %v", err)
	}
	ws.Close()
}
