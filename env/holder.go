package env

import "context"

// holderKey is the context key of a statement's holder.
type holderKey struct{}

// WithHolder returns ctx carrying holder: whom the statements run under
// ctx are for, an episode group of one client (see Holder). Engines that
// share connections among databases keep the last of a database's
// connections for holders running nothing on it, so that one group's slow
// statements never take a whole database from the others.
func WithHolder(ctx context.Context, holder string) context.Context {
	if holder == "" {
		return ctx
	}
	return context.WithValue(ctx, holderKey{}, holder)
}

// Holder is the holder ctx carries (WithHolder), or "" when it carries
// none: such statements (an eval, an import, the server's own checks)
// share only the engine's bounds, not a holder's.
func Holder(ctx context.Context) string {
	h, _ := ctx.Value(holderKey{}).(string)
	return h
}
