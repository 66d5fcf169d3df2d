package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// login posts the token to the form and returns the session cookie.
func login(t *testing.T, base, token string) (*http.Response, *http.Cookie) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/ui/login", strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, _ := do(t, req)
	for _, c := range resp.Cookies() {
		if c.Name == "sqlgym_console" {
			return resp, c
		}
	}
	return resp, nil
}

// TestLoginSetsAStrictHttpOnlyCookie shows the pages behind a token: a
// visitor is sent to the form, a wrong token is refused, the right one
// gets a session cookie no script can read and no other site sends, and
// the pages then answer with the strict policy; the bearer token alone
// never opens a page, and a form posted by another origin is refused.
func TestLoginSetsAStrictHttpOnlyCookie(t *testing.T) {
	rec := startRecorded(t, "sekret")
	resp, _ := get(t, rec.URL+"/ui/episodes")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/login" {
		t.Fatalf("no session: %s to %q, want 303 to /ui/login", resp.Status, resp.Header.Get("Location"))
	}
	if resp, ck := login(t, rec.URL, "wrong"); resp.StatusCode != http.StatusUnauthorized || ck != nil {
		t.Fatalf("wrong token: %s, cookie %v", resp.Status, ck)
	}
	resp, ck := login(t, rec.URL, "sekret")
	if ck == nil {
		t.Fatalf("right token: %s and no session cookie", resp.Status)
	}
	if !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Value == "sekret" || ck.Path != "/ui" {
		t.Fatalf("session cookie %+v: want HttpOnly, SameSite=Strict, Path=/ui, not the token", ck)
	}
	resp, body := get(t, rec.URL+"/ui/episodes", ck)
	if resp.StatusCode != 200 || !strings.Contains(body, rec.Correct) {
		t.Fatalf("with the session: %s, the list lacks episode %s", resp.Status, rec.Correct)
	}
	csp := resp.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "style-src 'self'", "frame-ancestors 'none'"} { // no script-src: no script runs
		if !strings.Contains(csp, want) || strings.Contains(csp, "unsafe") || strings.Contains(csp, "script-src") {
			t.Fatalf("Content-Security-Policy %q: want %q and no script source", csp, want)
		}
	}
	req, _ := http.NewRequest("GET", rec.URL+"/ui/episodes", nil)
	req.Header.Set("Authorization", "Bearer sekret")
	if resp, _ := do(t, req); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("bearer token without a session: %s, want the login form", resp.Status)
	}
	req, _ = http.NewRequest("POST", rec.URL+"/ui/login", strings.NewReader("token=sekret"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://evil.example")
	if resp, _ := do(t, req); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("login posted from another origin: %s, want 403", resp.Status)
	}
}

// TestListFiltersAndExplainsBadInput filters the list to the failed
// episodes of one database and reads a bad filter's reason.
func TestListFiltersAndExplainsBadInput(t *testing.T) {
	rec := startRecorded(t, "")
	_, body := get(t, rec.URL+"/ui/episodes?outcome=failed&db="+rec.DB)
	if !strings.Contains(body, rec.Failed) || strings.Contains(body, rec.Correct) {
		t.Fatalf("failed episodes of %s: want %s and not %s in\n%s", rec.DB, rec.Failed, rec.Correct, body)
	}
	if !strings.Contains(body, "1–1 of 1 episodes") && !strings.Contains(body, "of 2 episodes") {
		t.Fatalf("failed episodes of %s: count line missing in\n%s", rec.DB, body)
	}
	_, body = get(t, rec.URL+"/ui/episodes?tags=run%3Dr2&per_page=1")
	if !strings.Contains(body, "1–1 of 2 episodes") || !strings.Contains(body, "older →") {
		t.Fatalf("run r2, one per page: want the first of 2 and a next link in\n%s", body)
	}
	resp, body := get(t, rec.URL+"/ui/episodes?min_reward=lots")
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "min_reward &#34;lots&#34;: want a number") {
		t.Fatalf("bad min_reward: %s\n%s", resp.Status, body)
	}
	resp, _ = get(t, rec.URL+"/ui/episodes/no-such-episode")
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown episode: %s, want 404", resp.Status)
	}
	req, _ := http.NewRequest("GET", rec.URL+"/ui/episodes", nil)
	req.Host = "evil.example"
	if resp, _ := do(t, req); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("no token, Host evil.example: %s, want 403 (DNS rebinding)", resp.Status)
	}
}
