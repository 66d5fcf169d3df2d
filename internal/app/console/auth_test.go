package console_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/internal/app/console"
	"github.com/sqlgym/sqlgym/internal/testkit/testserver"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// startConsole serves the demo with a console of cfg under /ui (its
// store the demo's log, its token the server's), as sqlgym serve mounts
// it, and returns the server's base URL and the server. A nil cfg.Store
// reads the demo's log, and the console plays on the demo's Manager.
func startConsole(t *testing.T, cfg console.Config) (string, *testserver.Demo) {
	t.Helper()
	var h *console.Console
	d := testserver.StartDemo(t, testserver.DemoOptions{Options: testserver.Options{Server: func(c *transport.ServerConfig) {
		c.Token = cfg.Token
		c.Mounts = append(c.Mounts, transport.Mount{Prefix: console.Prefix, OwnLogin: true,
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) })})
	}}})
	if cfg.Store == nil {
		cfg.Store = console.ReaderStore{R: d.Log}
	}
	cfg.Player = console.ManagerPlayer{M: d.Manager}
	var err error
	if h, err = console.New(cfg); err != nil {
		t.Fatal(err)
	}
	return d.HTTP.URL, d
}

// TestLoginGuessesAreBounded guesses the token faster than the bound
// allows: past the failures a minute takes, every login is refused with
// 429 and a Retry-After, the right token too, until the clock has given
// one more back.
func TestLoginGuessesAreBounded(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	base, _ := startConsole(t, console.Config{Token: "sekret", LoginFailures: 3, Now: clock.now})
	for i := 0; i < 3; i++ {
		if resp, ck := login(t, base, "guess"); resp.StatusCode != http.StatusUnauthorized || ck != nil {
			t.Fatalf("wrong token %d: %s, cookie %v; want 401", i, resp.Status, ck)
		}
	}
	for _, token := range []string{"guess", "sekret"} {
		resp, ck := login(t, base, token)
		if resp.StatusCode != http.StatusTooManyRequests || ck != nil || resp.Header.Get("Retry-After") != "21" {
			t.Fatalf("token %q past the bound: %s, Retry-After %q, cookie %v; want 429 after 21 s and no cookie",
				token, resp.Status, resp.Header.Get("Retry-After"), ck)
		}
	}
	clock.add(20 * time.Second) // 3 a minute: one every 20 s
	if resp, ck := login(t, base, "sekret"); ck == nil {
		t.Fatalf("the right token once a failure's share came back: %s, no cookie", resp.Status)
	}
}

// TestSessionCookieIsTheServers shows a cookie the client chose opens
// nothing (no session fixation), a login issues an id of the server's
// own, and a session past its life opens nothing either.
func TestSessionCookieIsTheServers(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	base, _ := startConsole(t, console.Config{Token: "sekret", SessionTTL: time.Hour, Now: clock.now})
	planted := &http.Cookie{Name: "sqlgym_console", Value: "planted-by-another-page"}
	if resp, _ := get(t, base+"/ui/episodes", planted); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("a cookie the client chose: %s, want 303 to the login form", resp.Status)
	}
	req, _ := http.NewRequest("POST", base+"/ui/login", strings.NewReader("token=sekret"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(planted)
	resp, _ := do(t, req)
	var ck *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "sqlgym_console" {
			ck = c
		}
	}
	if ck == nil || ck.Value == planted.Value || len(ck.Value) < 40 {
		t.Fatalf("login with a planted cookie: %s, cookie %v; want a new random id", resp.Status, ck)
	}
	if resp, _ := get(t, base+"/ui/episodes", ck); resp.StatusCode != http.StatusOK {
		t.Fatalf("the session: %s", resp.Status)
	}
	clock.add(time.Hour)
	if resp, _ := get(t, base+"/ui/episodes", ck); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("a session past its hour: %s, want 303 to the login form", resp.Status)
	}
}
