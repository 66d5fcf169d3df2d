package console

import (
	"net/http"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"

	"github.com/sqlgym/sqlgym/base/fairshare"
)

// DefaultLoginClients is how many clients' wrong-token counts the login
// form keeps; past it the client seen least recently is forgotten.
const DefaultLoginClients = 4096

// loginLimits bounds guessing the token per client: each client (its
// address, an IPv6 one by its /64, which one host is given whole) has
// its own share of wrong tokens a minute. A guesser exhausts only its own
// share: the right token from any other address still logs in. The
// clients kept are bounded (DefaultLoginClients); one forgotten starts
// with a full share, which a guesser cannot use to go faster than its
// addresses allow.
type loginLimits struct {
	perMinute int
	clients   *lru.Cache[string, *rate.Limiter]
}

func newLoginLimits(perMinute, clients int) *loginLimits {
	c, _ := lru.New[string, *rate.Limiter](clients) // errors only for a size < 1
	return &loginLimits{perMinute: perMinute, clients: c}
}

// of is the limiter of r's client.
func (l *loginLimits) of(r *http.Request) *rate.Limiter {
	key := fairshare.ClientOfAddr(r.RemoteAddr) // an IPv6 host by its /64
	if lim, ok := l.clients.Get(key); ok {
		return lim
	}
	lim := rate.NewLimiter(rate.Limit(float64(l.perMinute)/60), l.perMinute)
	l.clients.ContainsOrAdd(key, lim)
	lim, _ = l.clients.Get(key)
	return lim
}

// wait is how long r's client waits for one more try, 0 when it has one.
func (l *loginLimits) wait(r *http.Request, now time.Time) time.Duration {
	lim := l.of(r)
	left := lim.TokensAt(now)
	if left >= 1 {
		return 0
	}
	return time.Duration((1 - left) / float64(lim.Limit()) * float64(time.Second))
}

// failed takes one wrong try from r's client's share.
func (l *loginLimits) failed(r *http.Request, now time.Time) { l.of(r).AllowN(now, 1) }
