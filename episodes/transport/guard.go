package transport

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// guard is what a server without a token checks of a request that can
// change state (/v1/ws, /v1/rpc), against web pages the operator opens:
// a page of another origin would send its Origin (a cross-site request,
// CSRF), and a page that rebinds its own name to 127.0.0.1 would send
// that name as the Host (DNS rebinding). Neither is a loopback name, so
// the request is refused; clients that are not pages send no Origin.
type guard struct {
	origins []string // allowed Origin values besides loopback ones, lower case
	hosts   []string // allowed Host names besides loopback ones, lower case
	anyIP   bool     // any IP address is an allowed Host
}

func newGuard(cfg *ServerConfig) *guard {
	g := &guard{anyIP: cfg.AllowIPHosts}
	for _, o := range cfg.AllowedOrigins {
		g.origins = append(g.origins, strings.ToLower(strings.TrimSuffix(o, "/")))
	}
	for _, h := range cfg.AllowedHosts {
		g.hosts = append(g.hosts, hostName(h))
	}
	return g
}

// guarded wraps h with the guard's checks, unless the server has a
// token: then only a client that holds it is served, and a page cannot
// know it.
func (s *Server) guarded(h http.HandlerFunc) http.HandlerFunc {
	if s.cfg.Token != "" {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request) {
		if msg := s.guard.check(r); msg != "" {
			refuse(w, http.StatusForbidden, msg)
			return
		}
		h(w, r)
	}
}

// check returns why r is refused, or "".
func (g *guard) check(r *http.Request) string {
	if host := hostName(r.Host); !loopbackName(host) && !slices.Contains(g.hosts, host) && !(g.anyIP && net.ParseIP(host) != nil) {
		return fmt.Sprintf("forbidden: the request is addressed to Host %q, not to a loopback name or address (localhost, 127.0.0.0/8, [::1]). "+
			"A server without --token answers only those, so that a web page cannot reach it through DNS rebinding; "+
			"start it with --allowed-hosts %s to allow this name, or with --token", r.Host, host)
	}
	for _, origin := range r.Header.Values("Origin") {
		if !g.originAllowed(origin) {
			return fmt.Sprintf("forbidden: the request comes from a web page of Origin %q. "+
				"A server without --token answers only clients that are not pages, and pages of a loopback origin (http://localhost:PORT, http://127.0.0.1:PORT), "+
				"so that a page you open cannot drive episodes; start it with --allowed-origins %s to allow this origin, or with --token", origin, origin)
		}
	}
	return ""
}

// originAllowed reports whether a page of origin may use the server: one
// served from a loopback name or address, or one allowed by name.
func (g *guard) originAllowed(origin string) bool {
	o := strings.ToLower(origin)
	if slices.Contains(g.origins, o) {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Opaque == "" && u.User == nil &&
		(u.Path == "" || u.Path == "/") && loopbackName(u.Hostname())
}

// hostName is the name or address of a Host header value (or a name
// given to --allowed-hosts), without its port or an IPv6 address's
// brackets, in lower case.
func hostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
}

// LoopbackAddr reports whether a listen address (host:port) listens on
// the loopback interface only: 127.0.0.0/8, ::1 or "localhost", in any
// case, an IPv6 zone aside. An empty host (":8765") listens on every
// interface; any other name is taken as reachable from outside, as is an
// address that does not parse.
func LoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	host, _, _ = strings.Cut(host, "%") // an IPv6 zone
	return loopbackName(strings.ToLower(host))
}

// loopbackName reports whether host names the loopback interface:
// localhost, 127.0.0.0/8 or ::1.
func loopbackName(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// jsonOnly refuses a POST whose body is not declared application/json
// with 415: a page may send text/plain, a form or multipart to any origin
// without asking it first (a CORS "simple request"), but not JSON.
func jsonOnly(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ct := r.Header.Get("Content-Type")
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			refuse(w, http.StatusUnsupportedMediaType, fmt.Sprintf(
				"unsupported media type %q: POST /v1/rpc takes a body sent as Content-Type: application/json", ct))
			return
		}
		h(w, r)
	}
}
