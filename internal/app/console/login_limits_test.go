package console_test

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/internal/app/console"
)

// loginFrom posts token to the login form from the local address from
// (another loopback address is another client) and returns the status
// and whether a session cookie came back.
func loginFrom(t *testing.T, base, token, from string) (int, bool) {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	cl := &http.Client{
		Transport:     &http.Transport{DialContext: func(ctx context.Context, n, a string) (net.Conn, error) { return d.DialContext(ctx, n, a) }},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	defer cl.CloseIdleConnections()
	resp, err := cl.PostForm(base+"/ui/login", url.Values{"token": {token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == "sqlgym_console" && c.Value != "" {
			return resp.StatusCode, true
		}
	}
	return resp.StatusCode, false
}

// TestLoginGuesserLocksOutOnlyItself: a guesser at 127.0.0.2 spends its
// share of wrong tokens and is refused (429), its right token too; the
// right token from 127.0.0.1, and a wrong one from 127.0.0.3, are still
// taken as a first try. Before logins were counted per client, one
// counter served the whole server and the guesser locked everyone out.
func TestLoginGuesserLocksOutOnlyItself(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	base, _ := startConsole(t, console.Config{Token: "sekret", LoginFailures: 3, Now: clock.now})
	base = strings.Replace(base, "localhost", "127.0.0.1", 1)
	for i := 0; i < 10; i++ {
		loginFrom(t, base, "guess", "127.0.0.2")
	}
	if code, ok := loginFrom(t, base, "sekret", "127.0.0.2"); code != http.StatusTooManyRequests || ok {
		t.Errorf("the guesser's right token: %d, cookie %v; want 429 and no cookie", code, ok)
	}
	if code, ok := loginFrom(t, base, "sekret", "127.0.0.1"); !ok {
		t.Errorf("the right token from another client: %d, no cookie; the guesser locked it out", code)
	}
	if code, _ := loginFrom(t, base, "guess", "127.0.0.3"); code != http.StatusUnauthorized {
		t.Errorf("a first wrong token from a third client: %d, want 401", code)
	}
}
