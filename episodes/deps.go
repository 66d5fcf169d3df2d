package episodes

import (
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/tools"
)

// deps are what the steps of every episode use beside the episode
// itself: the Manager builds them once, from its Config, and each session
// holds them from its start. Nothing in them changes after New.
type deps struct {
	runner   *tools.Runner  // runs the tools but submit
	judge    *judge.Judge   // scores submissions
	recorder trajlog.Writer // where steps are recorded as they happen
	now      func() time.Time
	version  string // the server's, stored in every trajectory
	metrics  *Metrics
	logger   *zap.Logger
}

// newDeps takes the dependencies of episodes from a Config whose
// defaults are set.
func newDeps(cfg *Config, metrics *Metrics) *deps {
	return &deps{runner: cfg.Runner, judge: cfg.Judge, recorder: cfg.Recorder, now: cfg.Clock.Now,
		version: cfg.Version, metrics: metrics, logger: cfg.Logger}
}

// recordFailed counts and logs a failed trajectory write, and returns the
// error the client gets: a write that fails is never silent.
func (d *deps) recordFailed(episodeID, event string, err error) error {
	d.metrics.writeFailed()
	d.logger.Error("trajectory not recorded", zap.String("episode", episodeID),
		zap.String("event", event), zap.Error(err))
	return fmt.Errorf("record episode %s (%s): %w", episodeID, event, err)
}
