package console

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// cookieName is the session cookie: HttpOnly (no script reads it),
// SameSite=Strict (no other site's page sends it), scoped to /ui.
const cookieName = "sqlgym_console"

// sessions are the logins the console knows, bounded: past max the
// oldest is dropped (its holder logs in again).
type sessions struct {
	mu    sync.Mutex
	max   int
	ttl   time.Duration
	now   func() time.Time
	byID  map[string]time.Time // session id -> when it expires
	order []string             // ids, oldest first
}

func newSessions(max int, ttl time.Duration, now func() time.Time) *sessions {
	return &sessions{max: max, ttl: ttl, now: now, byID: map[string]time.Time{}}
}

// add starts a session and returns its id.
func (s *sessions) add() string {
	var b [32]byte
	rand.Read(b[:])
	id := base64.RawURLEncoding.EncodeToString(b[:])
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.order) >= s.max {
		delete(s.byID, s.order[0])
		s.order = s.order[1:]
	}
	s.byID[id] = s.now().Add(s.ttl)
	s.order = append(s.order, id)
	return id
}

// valid reports whether id is a live session.
func (s *sessions) valid(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.byID[id]
	return ok && s.now().Before(exp)
}

// remove ends a session.
func (s *sessions) remove(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byID, id)
	for i, o := range s.order {
		if o == id {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
}

// signedIn serves h to a request with a live session, when the console
// has a token; others are sent to the login form.
func (c *Console) signedIn(h http.HandlerFunc) http.HandlerFunc {
	if c.cfg.Token == "" {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) {
		if ck, err := r.Cookie(cookieName); err == nil && c.sessions.valid(ck.Value) {
			h(w, r)
			return
		}
		http.Redirect(w, r, Prefix+"/login", http.StatusSeeOther)
	}
}

func (c *Console) loginForm(w http.ResponseWriter, r *http.Request) {
	c.render(w, http.StatusOK, "login", messageView{frame: frame{Title: "Log in"}})
}

// login checks the token posted by the form and sets the session cookie.
// Wrong tokens are taken at Config.LoginFailures a minute from each
// client (loginLimits): past them that client's logins are refused (429)
// until its share has come back, so that the token cannot be guessed at
// the network's speed, and a guesser never locks out another client.
func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	got := r.PostFormValue("token")
	if c.cfg.Token == "" {
		http.Redirect(w, r, Prefix+"/episodes", http.StatusSeeOther)
		return
	}
	now := c.cfg.Now()
	if d := c.guesses.wait(r, now); d > 0 {
		wait := strconv.Itoa(int(d/time.Second) + 1)
		w.Header().Set("Retry-After", wait)
		c.render(w, http.StatusTooManyRequests, "login", messageView{frame{Title: "Log in"}, fmt.Sprintf(
			"Too many wrong tokens from this address: the console takes %d a minute from each, then refuses its logins for a while; try again in %s s.",
			c.cfg.LoginFailures, wait)})
		return
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(c.cfg.Token)) != 1 {
		c.guesses.failed(r, now)
		c.render(w, http.StatusUnauthorized, "login", messageView{frame{Title: "Log in"},
			"That is not the server's token (its --token)."})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: c.sessions.add(), Path: Prefix,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil, MaxAge: int(c.cfg.SessionTTL.Seconds())})
	http.Redirect(w, r, Prefix+"/episodes", http.StatusSeeOther)
}

func (c *Console) logout(w http.ResponseWriter, r *http.Request) {
	if ck, err := r.Cookie(cookieName); err == nil {
		c.sessions.remove(ck.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: Prefix, MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, Prefix+"/login", http.StatusSeeOther)
}
