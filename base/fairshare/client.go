package fairshare

import (
	"context"
	"net"
	"net/netip"
)

// Anonymous is the client of a call that names none (an in-process
// caller: rollout, replay, the console's play page).
const Anonymous = ""

// Unparsed is the client of every remote address that does not parse.
const Unparsed = "(unparsed address)"

// ClientOfAddr is the client a remote address (host:port) counts as: its
// IP address without the port, or its /64 for IPv6, where one host holds
// many addresses. X-Forwarded-For and the like are never read: any
// client can write them. Every address that does not parse (no net.Conn
// gives one) counts as one client, Unparsed.
func ClientOfAddr(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return Unparsed
	}
	a = a.Unmap()
	if a.Is4() {
		return a.String()
	}
	p, _ := a.Prefix(64)
	return p.String()
}

type clientKey struct{}

// WithClient is ctx naming the client its calls are made for.
func WithClient(ctx context.Context, client string) context.Context {
	return context.WithValue(ctx, clientKey{}, client)
}

// ClientOf is the client ctx names (WithClient); Anonymous if none.
func ClientOf(ctx context.Context) string {
	c, _ := ctx.Value(clientKey{}).(string)
	return c
}
