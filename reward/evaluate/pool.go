package evaluate

import (
	"context"
	"runtime"
	"sync"

	"golang.org/x/sync/errgroup"
)

// forEach calls fn for every index in [0, n) on up to workers goroutines
// (GOMAXPROCS when workers <= 0) and returns once they have all returned.
// The first error cancels the rest and is returned (the cause of ctx's
// end, when ctx ended first). progress, when not
// nil, is called after each index is done, one call at a time, with the
// count done so far.
func forEach(ctx context.Context, n, workers int, progress func(done, total int), fn func(ctx context.Context, i int) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	var (
		mu   sync.Mutex // guards done and serializes progress
		done int
	)
	for i := range n {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			if gctx.Err() != nil {
				return nil // stopped while this one waited for a slot
			}
			if err := fn(gctx, i); err != nil {
				return err
			}
			if progress != nil {
				mu.Lock()
				done++
				progress(done, n)
				mu.Unlock()
			}
			return nil
		})
	}
	err := g.Wait()
	if cause := context.Cause(ctx); cause != nil {
		return cause // the caller's context ended: the calls' errors are its echo
	}
	return err
}
