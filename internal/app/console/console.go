package console

import (
	"context"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
)

// Prefix is the path the console is served under.
const Prefix = "/ui"

// Defaults of the console's bounds on what clients can make it hold.
const (
	DefaultMaxSessions = 256            // login sessions kept at once; the oldest is dropped past it
	DefaultSessionTTL  = 12 * time.Hour // how long a login lasts
	DefaultPageSize    = 50             // episodes a list page shows unless asked
	MaxPageSize        = 500            // the most episodes one list page shows
	DefaultMaxOffset   = 100_000        // how far into a filtered list a page may start
	// DefaultLoginFailures is how many wrong tokens the login form takes
	// a minute from each client (in a burst as large); past them the
	// client's logins, right or wrong, get 429 until its share comes
	// back.
	DefaultLoginFailures = 10
	// DefaultMaxReports is how many report pages are computed at once:
	// each reads the whole store; one more gets 503.
	DefaultMaxReports = 2
	reportTimeout     = 10 * time.Minute // a report page's read of the store
	// DefaultWriteTimeout bounds the write of a page: a client that does
	// not take it in holds the request's room no longer.
	DefaultWriteTimeout = time.Minute
)

// Config configures a Console. Zero values mean the defaults.
type Config struct {
	Store  Store  // where the episodes are read (required)
	Golds  Golds  // runs an episode's gold and submission again; nil: the episode page shows no gold
	Live   *Live  // what the episode server does now; nil: no live page (sqlgym console)
	Player Player // runs the episodes played on the console; nil: no play page (sqlgym console)
	Token  string // when set, pages need a login with this token
	Logger *zap.Logger

	// LoopbackOnly makes the console itself refuse, without a token,
	// requests addressed to a name other than a loopback one and
	// requests from pages of another origin: sqlgym console, which has
	// no RPC server in front of it, sets it.
	LoopbackOnly bool

	MaxSessions int           // DefaultMaxSessions
	SessionTTL  time.Duration // DefaultSessionTTL
	MaxOffset   int           // DefaultMaxOffset
	// LoginFailures bounds guessing the token: wrong tokens taken a
	// minute (DefaultLoginFailures).
	LoginFailures int
	MaxReports    int              // report pages computed at once (DefaultMaxReports)
	WriteTimeout  time.Duration    // the write of a page (DefaultWriteTimeout)
	Now           func() time.Time // the clock of sessions and logins (time.Now); tests give a fake one
	Report        report.Options
}

// Console serves the pages.
type Console struct {
	cfg      Config
	pages    map[string]*template.Template
	sessions *sessions
	guesses  *loginLimits  // wrong tokens the login form still takes, per client
	reports  chan struct{} // a room per report page being computed
	mux      *http.ServeMux
}

// New builds a Console.
func New(cfg Config) (*Console, error) {
	if cfg.Store == nil {
		return nil, fmt.Errorf("console: no store")
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	if cfg.MaxOffset <= 0 {
		cfg.MaxOffset = DefaultMaxOffset
	}
	if cfg.LoginFailures <= 0 {
		cfg.LoginFailures = DefaultLoginFailures
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.MaxReports <= 0 {
		cfg.MaxReports = DefaultMaxReports
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = zap.NewNop()
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	c := &Console{cfg: cfg, pages: pages, sessions: newSessions(cfg.MaxSessions, cfg.SessionTTL, cfg.Now),
		guesses: newLoginLimits(cfg.LoginFailures, DefaultLoginClients),
		reports: make(chan struct{}, cfg.MaxReports)}
	c.routes()
	return c, nil
}

func (c *Console) routes() {
	m := http.NewServeMux()
	static, _ := fs.Sub(webFS, "web/static")
	m.Handle("GET "+Prefix+"/static/", http.StripPrefix(Prefix+"/static/", http.FileServerFS(static)))
	m.HandleFunc("GET "+Prefix+"/login", c.loginForm)
	m.HandleFunc("POST "+Prefix+"/login", c.login)
	m.HandleFunc("POST "+Prefix+"/logout", c.signedIn(c.logout))
	m.HandleFunc("GET "+Prefix+"/{$}", c.signedIn(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, Prefix+"/episodes", http.StatusSeeOther)
	}))
	m.HandleFunc("GET "+Prefix, c.signedIn(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, Prefix+"/episodes", http.StatusSeeOther)
	}))
	m.HandleFunc("GET "+Prefix+"/episodes", c.signedIn(c.listPage))
	m.HandleFunc("GET "+Prefix+"/episodes/{id}", c.signedIn(c.episodePage))
	m.HandleFunc("GET "+Prefix+"/report", c.signedIn(c.reportPage))
	m.HandleFunc("GET "+Prefix+"/live", c.signedIn(c.livePage))
	m.HandleFunc("GET "+Prefix+"/play", c.signedIn(c.playTasks))
	m.HandleFunc("POST "+Prefix+"/play", c.signedIn(c.playStart))
	m.HandleFunc("GET "+Prefix+"/play/{id}", c.signedIn(c.playEpisode))
	m.HandleFunc("POST "+Prefix+"/play/{id}/step", c.signedIn(c.playStep))
	m.HandleFunc("GET "+Prefix+"/live/events", c.signedIn(c.events))
	c.mux = m
}

// ServeHTTP serves the console's paths, every answer with the security
// headers.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	secure(w.Header())
	// Every answer is written within the write timeout (a page is given
	// it again once rendered, an event of the live page each time), and
	// no deadline of an earlier request on the connection is left over.
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(c.cfg.WriteTimeout))
	if c.cfg.LoopbackOnly && c.cfg.Token == "" {
		if msg := loopbackRefusal(r); msg != "" {
			http.Error(w, msg, http.StatusForbidden)
			return
		}
	}
	if r.Method == http.MethodPost && !sameOrigin(r) {
		http.Error(w, "forbidden: a form of the console is posted from its own pages only (the Origin header names another origin)", http.StatusForbidden)
		return
	}
	c.mux.ServeHTTP(w, r)
}

// csp allows the pages their own style sheet and images and nothing
// else: no script at all, no inline style, no frames, no form posting
// elsewhere. liveCSP, the live page's, adds the console's own script
// files and its event stream (still no inline script, no eval).
const (
	csp = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; " +
		"frame-ancestors 'none'; base-uri 'none'"
	liveCSP = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)

func secure(h http.Header) {
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin") // "no-referrer" would make a form post's Origin "null"
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cache-Control", "no-store")
}

// frame is what the layout of every page reads.
type frame struct {
	Title  string
	Base   string // where the style sheet is: "" for /ui/static/, "static/" for a report written as files
	Static bool   // written as files: no links into the console
}

// messageView is a page of one message: the login form's error, or a
// failure.
type messageView struct {
	frame
	Message string
}

// render writes page name with data under status code, or a 500 naming
// the failure, within the write timeout.
func (c *Console) render(w http.ResponseWriter, code int, name string, data any) {
	var b strings.Builder
	if err := c.pages[name].ExecuteTemplate(&b, "page", data); err != nil {
		c.cfg.Logger.Error("console: render", zap.String("page", name), zap.Error(err))
		http.Error(w, "console: rendering "+name+" failed: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(c.cfg.WriteTimeout))
	w.WriteHeader(code)
	io.WriteString(w, b.String())
}

// fail answers a request that cannot be served with code and a page
// saying why.
func (c *Console) fail(w http.ResponseWriter, code int, msg string) {
	c.render(w, code, "error", messageView{frame{Title: http.StatusText(code)}, msg})
}

func withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, reportTimeout)
}
