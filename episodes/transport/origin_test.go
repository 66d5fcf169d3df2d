package transport_test

import (
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/transport"
)

const resetBody = `{"jsonrpc":"2.0","id":1,"method":"episode.reset","params":{"task_id":"t/count","tags":{"run":"x"}}}`

// call is one request a test sends: to /v1/rpc when post, else a
// WebSocket upgrade, with the Host (empty: the server's address), Origin
// (empty: none) and other headers given.
type call struct {
	post    bool
	host    string
	origin  string
	ctype   string // a POST's Content-Type (empty: application/json)
	headers map[string]string
	query   string
}

// send sends c and returns the status and the body (empty after 101).
func (s *served) send(t *testing.T, c call) (int, string, http.Header) {
	t.Helper()
	var req *http.Request
	var err error
	if c.post {
		req, err = http.NewRequest(http.MethodPost, s.http+"/v1/rpc"+c.query, strings.NewReader(resetBody))
		req.Header.Set("Content-Type", "application/json")
		if c.ctype != "" {
			req.Header.Set("Content-Type", c.ctype)
		}
	} else {
		req, err = http.NewRequest(http.MethodGet, s.http+"/v1/ws"+c.query, nil)
		for k, v := range map[string]string{"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
			"Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="} {
			req.Header.Set(k, v)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if c.host != "" {
		req.Host = c.host
	}
	if c.origin != "" {
		req.Header.Set("Origin", c.origin)
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusSwitchingProtocols {
		return resp.StatusCode, "", resp.Header
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// expect sends each call and checks its status, and that a refusal's
// body names what would allow it.
func (s *served) expect(t *testing.T, want int, because string, calls ...call) {
	t.Helper()
	for _, c := range calls {
		code, body, _ := s.send(t, c)
		if code != want || want >= 400 && !strings.Contains(body, because) {
			t.Errorf("%+v: %d %q, want %d naming %q", c, code, body, want, because)
		}
	}
}

// ok is the status a call gets when served.
func ok(c call) int {
	if c.post {
		return http.StatusOK
	}
	return http.StatusSwitchingProtocols
}

// TestCrossOriginRequestsWithoutATokenAreRefused: a server without a
// token refuses what a web page could send it, a WebSocket upgrade or an
// RPC from another origin, or addressed to a name other than loopback
// (DNS rebinding), and a POST whose type a browser sends across origins
// without asking (text/plain); none of them starts an episode. Clients
// that are not pages, and pages on loopback, are served.
func TestCrossOriginRequestsWithoutATokenAreRefused(t *testing.T) {
	s := serve(t, transport.ServerConfig{})
	port := s.addr[strings.LastIndex(s.addr, ":"):]
	for _, post := range []bool{false, true} {
		s.expect(t, http.StatusForbidden, "--allowed-origins",
			call{post: post, origin: "https://evil.example"},
			call{post: post, origin: "null"},
			call{post: post, origin: "http://localhost.evil.example"},
			call{post: post, origin: "http://127.0.0.1.evil.example" + port})
		s.expect(t, http.StatusForbidden, "--allowed-hosts",
			call{post: post, host: "attacker.example"},
			call{post: post, host: "attacker.example", origin: "https://evil.example"},
			call{post: post, host: "attacker.example" + port},
			call{post: post, host: "10.1.2.3" + port},
			call{post: post, host: "localhost.attacker.example" + port})
	}
	s.expect(t, http.StatusUnsupportedMediaType, "application/json",
		call{post: true, ctype: "text/plain"},
		call{post: true, ctype: "text/plain;charset=UTF-8"},
		call{post: true, ctype: "application/x-www-form-urlencoded"},
		call{post: true, ctype: "multipart/form-data; boundary=x"},
		call{post: true, ctype: "application/jsonx"})
	if n := s.metric(t, "sqlgym_episodes_started_total"); n != 0 {
		t.Fatalf("%v episodes started by refused requests", n)
	}

	served := 0
	for _, post := range []bool{false, true} {
		for _, c := range []call{
			{post: post},
			{post: post, host: "localhost" + port},
			{post: post, host: "LOCALHOST"},
			{post: post, host: "127.0.0.2" + port},
			{post: post, host: "[::1]" + port},
			{post: post, origin: "http://localhost:3000"},
			{post: post, origin: "http://127.0.0.1" + port, host: "127.0.0.1" + port},
			{post: post, origin: "https://[::1]:8443"},
			{post: post, ctype: "application/json; charset=utf-8"},
		} {
			s.expect(t, ok(c), "", c)
			served++
		}
	}
	if n := s.metric(t, "sqlgym_episodes_started_total"); n != float64(served/2) {
		t.Errorf("%v episodes started, want %d (one per POST served)", n, served/2)
	}
}

// TestAllowedOriginsAndHostsAreServed: --allowed-origins admits a web
// console's origin exactly, --allowed-hosts a name; under --insecure
// (AllowIPHosts) any IP address is a Host, but names and other origins
// are still refused.
func TestAllowedOriginsAndHostsAreServed(t *testing.T) {
	s := serve(t, transport.ServerConfig{AllowedOrigins: []string{"https://Console.example/"}, AllowedHosts: []string{"GPU-box"}})
	for _, post := range []bool{false, true} {
		for _, c := range []call{{post: post, origin: "https://console.example"}, {post: post, host: "gpu-box:8765"},
			{post: post, origin: "https://console.example", host: "gpu-box"}} {
			s.expect(t, ok(c), "", c)
		}
		s.expect(t, http.StatusForbidden, "--allowed-origins",
			call{post: post, origin: "http://console.example"}, call{post: post, origin: "https://console.example:444"},
			call{post: post, origin: "https://console.example.evil"})
		s.expect(t, http.StatusForbidden, "--allowed-hosts", call{post: post, host: "gpu-box.evil.example"})
	}

	insecure := serve(t, transport.ServerConfig{AllowIPHosts: true})
	for _, post := range []bool{false, true} {
		for _, c := range []call{{post: post, host: "10.1.2.3:8765"}, {post: post, host: "[fe80::1]:8765"}, {post: post, host: "192.168.0.7"}} {
			insecure.expect(t, ok(c), "", c)
		}
		insecure.expect(t, http.StatusForbidden, "--allowed-hosts", call{post: post, host: "attacker.example:8765"})
		insecure.expect(t, http.StatusForbidden, "--allowed-origins", call{post: post, host: "10.1.2.3:8765", origin: "http://10.1.2.3:8765"})
	}
}

// TestTokenIsReadOnlyFromHeaders: with a token, the token is taken from
// the Authorization header, or on a WebSocket upgrade from the
// subprotocol a browser can set (sqlgym.bearer.<base64url>, beside
// sqlgym, which the server selects), never from the query string or a
// cookie. Origin and Host are not checked then: a page cannot know the
// token. A POST still needs application/json.
func TestTokenIsReadOnlyFromHeaders(t *testing.T) {
	const token = "s3cret/+="
	s := serve(t, transport.ServerConfig{Token: token})
	bearer := map[string]string{"Authorization": "Bearer " + token}
	proto := "sqlgym, sqlgym.bearer." + base64.RawURLEncoding.EncodeToString([]byte(token))
	for _, post := range []bool{false, true} {
		s.expect(t, http.StatusUnauthorized, "Authorization",
			call{post: post, query: "?token=" + token},
			call{post: post, query: "?access_token=" + token},
			call{post: post, query: "?sqlgym_token=" + token},
			call{post: post, headers: map[string]string{"Cookie": "token=" + token + "; sqlgym_token=" + token + "; access_token=" + token}},
			call{post: post, headers: map[string]string{"Sec-WebSocket-Protocol": "sqlgym, sqlgym.bearer." + base64.RawURLEncoding.EncodeToString([]byte("wrong"))}},
			call{post: post, headers: map[string]string{"Sec-WebSocket-Protocol": "sqlgym, sqlgym.bearer." + token}})
		for _, c := range []call{{post: post, headers: bearer}, {post: post, headers: bearer, origin: "https://console.example", host: "gpu-box"}} {
			s.expect(t, ok(c), "", c)
		}
	}
	s.expect(t, http.StatusUnauthorized, "Authorization", call{post: true, headers: map[string]string{"Sec-WebSocket-Protocol": proto}})
	s.expect(t, http.StatusUnsupportedMediaType, "application/json", call{post: true, headers: bearer, ctype: "text/plain"})

	code, _, h := s.send(t, call{headers: map[string]string{"Sec-WebSocket-Protocol": proto}})
	if code != http.StatusSwitchingProtocols || h.Get("Sec-WebSocket-Protocol") != "sqlgym" {
		t.Errorf("upgrade with the token as a subprotocol: %d, subprotocol %q; want 101 selecting sqlgym", code, h.Get("Sec-WebSocket-Protocol"))
	}
}
