package console

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// sameOrigin reports whether r, a form post, comes from a page of the
// console's own origin, or from no page at all (no Origin header).
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}

// loopbackRefusal says why r is refused by a console without a token
// and without the RPC server's guard in front of it: it is addressed to
// a name that is not loopback (DNS rebinding), or sent by a page of
// another origin. "" when it is served.
func loopbackRefusal(r *http.Request) string {
	if !loopback(r.Host) {
		return "forbidden: the console without --token answers requests addressed to a loopback name or address only (localhost, 127.0.0.1, [::1]); " +
			"start it with --token to serve other names"
	}
	if o := r.Header.Get("Origin"); o != "" {
		if u, err := url.Parse(o); err != nil || !loopback(u.Host) {
			return "forbidden: the request comes from a page of another origin; the console without --token serves its own pages only"
		}
	}
	return ""
}

// loopback reports whether a host[:port] names the loopback interface.
func loopback(hostport string) bool {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	h = strings.Trim(h, "[]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
