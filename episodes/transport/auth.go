package transport

import (
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/gorilla/websocket"
)

// subprotocol is the WebSocket subprotocol the server selects when a
// client offers it; bearerProtocol prefixes the one that carries the
// token, base64url-encoded, for clients that cannot set Authorization on
// an upgrade (a browser's WebSocket). A browser fails an upgrade whose
// reply selects none of the subprotocols it offered, so such a client
// offers both.
const (
	subprotocol    = "sqlgym"
	bearerProtocol = "sqlgym.bearer."
)

// authorized checks the bearer token, when the server has one.
func (s *Server) authorized(h http.HandlerFunc) http.HandlerFunc {
	if s.cfg.Token == "" {
		return h
	}
	want := []byte(s.cfg.Token)
	return func(w http.ResponseWriter, r *http.Request) {
		token, ok := presentedToken(r)
		if !ok || subtle.ConstantTimeCompare([]byte(token), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="sqlgym"`)
			refuse(w, http.StatusUnauthorized, "unauthorized: send Authorization: Bearer <token> (the server's --token); "+
				"a browser's WebSocket may offer the subprotocols sqlgym and sqlgym.bearer.<the token in unpadded base64url> instead. "+
				"A token in the URL or a cookie is never read")
			return
		}
		h(w, r)
	}
}

// presentedToken is the token r carries: its Authorization header's
// bearer token, or on a WebSocket upgrade without that header the
// bearer subprotocol's. It is never read from the URL or a cookie: other
// pages can set a cookie, and URLs end up in logs and histories.
func presentedToken(r *http.Request) (string, bool) {
	if auth := r.Header.Get("Authorization"); auth != "" {
		// RFC 9110 section 11: the scheme is case-insensitive and one
		// or more spaces part it from the token.
		scheme, token, _ := strings.Cut(strings.TrimSpace(auth), " ")
		return strings.TrimLeft(token, " "), strings.EqualFold(scheme, "Bearer")
	}
	if !websocket.IsWebSocketUpgrade(r) {
		return "", false
	}
	for _, p := range websocket.Subprotocols(r) {
		if enc, ok := strings.CutPrefix(p, bearerProtocol); ok {
			token, err := base64.RawURLEncoding.DecodeString(enc)
			return string(token), err == nil
		}
	}
	return "", false
}
