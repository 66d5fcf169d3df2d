package trajlog

import (
	"context"
	"errors"
	"time"
)

// Shared is a store several server replicas share, so that any replica
// may drive any live episode (docs/deployment.md, "Replicas"). One replica
// drives an episode at a time: the one that began it, until it dies (its
// heartbeat in the store grows older than the lease) or hands its
// episodes back (a drain); another may then claim it. A Shared store's
// Begin and Step return once their row is committed, so an acknowledged
// step is in the store before its reply, and its writes are fenced: a
// replica's write for an episode another has claimed fails with ErrMoved.
type Shared interface {
	// Claim makes this replica the episode's driver and returns its
	// record so far (every step committed). It fails with ErrNoEpisode,
	// ErrHeld (a live replica drives it), or ErrEnded with the ended
	// episode's whole record.
	Claim(ctx context.Context, id string) (*Record, error)
	// Load reads an episode as the store holds it, claiming nothing
	// (ErrNoEpisode when it holds none).
	Load(ctx context.Context, id string) (*Record, error)
	// HandBack gives up every episode this replica drives, for others to
	// claim at once, and stops counting this replica as live.
	HandBack(ctx context.Context) error
	// Orphans lists up to limit episodes that no live replica drives and
	// that have been idle for at least idle: a dead replica's episodes no
	// client came back for.
	Orphans(ctx context.Context, idle time.Duration, limit int) ([]string, error)
}

// Errors of a Shared store.
var (
	ErrNoEpisode = errors.New("the trajectory store holds no such episode")
	ErrEnded     = errors.New("the episode has ended")
	ErrHeld      = errors.New("another live replica drives the episode")
	ErrMoved     = errors.New("another replica drives the episode now")
)
