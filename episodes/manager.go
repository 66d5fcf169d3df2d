package episodes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jonboulle/clockwork"
	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/base/fairshare"
	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// Defaults of the Manager's memory bounds.
const (
	DefaultMaxTagsBytes = 64 << 10
	// DefaultMaxEpisodes is the backstop of live episodes: DefaultMaxLiveBytes
	// over about 16 KiB an episode (an idle Spider episode keeps 5-8 KiB,
	// docs/benchmarks.md), far past a GRPO batch of 512 prompts x 16
	// samples (8,192).
	DefaultMaxEpisodes = 65536
	DefaultRecentBytes = 256 << 20
	// DefaultStepQueue is how many steps of one episode may wait their
	// turn at once; the protocol names it fixed (docs/protocol.md).
	DefaultStepQueue = 16
)

// Defaults of an episode's shape and of how long the Manager keeps it.
const (
	DefaultMaxTurns       = 8
	DefaultMaxTurnsLimit  = 64
	DefaultIdleTimeout    = 10 * time.Minute
	DefaultRecentEpisodes = 10000
)

// Config configures a Manager. The zero value of each limit means its
// default.
type Config struct {
	Datasets []*env.Dataset // served datasets; the first is the default
	Catalog  *env.Catalog   // opens the datasets' databases
	Runner   *tools.Runner  // runs the tools but submit
	// Tools are the tools the server offers; the zero Set is protocol
	// v1's default three.
	Tools tools.Set
	// DatasetTools narrows the tools of a dataset, by name: each a
	// subset of Tools. A dataset not named offers Tools.
	DatasetTools map[string]tools.Set
	// PromptStyle is the prompt style of a reset that names none, on a
	// dataset DatasetPromptStyles does not name (schemas.PromptStyle*;
	// "": text).
	PromptStyle string
	// DatasetPromptStyles are the datasets' own default prompt styles,
	// by dataset name.
	DatasetPromptStyles map[string]string
	Judge               *judge.Judge // scores submissions
	Reward              schemas.RewardSpec
	// RewardPreset resolves the name of a reward preset, which a reset's
	// reward may give instead of a partial spec; its error says what the
	// presets are. The presets live above this package (sqlgym serve
	// passes examples/rewards' Preset, the resolver of --reward); nil
	// refuses every name.
	RewardPreset func(name string) (schemas.RewardSpec, error)
	Recorder     trajlog.Writer // where episodes are recorded as they happen; nil records nothing
	// Shared, when set, is the store this replica shares with others
	// (the Recorder, a PostgreSQL store under --takeover): an episode
	// this replica does not hold is taken over from it (takeover.go).
	Shared  trajlog.Shared
	Logger  *zap.Logger // nil logs nothing
	Version string      // server version, stored in every trajectory

	MaxTurns int // default turn budget (DefaultMaxTurns)
	// PromptDescriptions puts the column descriptions a dataset ships in
	// the prompt of every episode that does not say otherwise (off: the
	// prompt is the question and its evidence, as in the benchmarks).
	PromptDescriptions bool
	MaxTurnsLimit      int           // largest max_turns a reset may ask for (DefaultMaxTurnsLimit)
	MaxEpisodes        int           // live episodes at once (DefaultMaxEpisodes); MaxLiveBytes is the bound that protects memory
	IdleTimeout        time.Duration // idle time before an episode is abandoned (DefaultIdleTimeout)
	RecentEpisodes     int           // ended episodes remembered, for episode.get and episode.close (DefaultRecentEpisodes)
	RecentBytes        int64         // bytes of ended trajectories kept whole for episode.get (256 MiB)
	MaxTagsBytes       int           // bytes of a reset's tags (64 KiB)
	// MaxEpisodeBytes bounds what one live episode keeps: its prompt,
	// tags and steps (DefaultMaxEpisodeBytes); MaxLiveBytes what all live
	// episodes keep together (DefaultMaxLiveBytes). See kept.go.
	MaxEpisodeBytes int64
	MaxLiveBytes    int64
	// TrajectoryStore says where ended episodes are recorded, for the
	// error of an episode.get whose record is no longer held in memory.
	TrajectoryStore string
	StepQueue       int // steps of one episode waiting at once (DefaultStepQueue)
	// MaxCallsPerTurn is how many calls of one step run, in order (8,
	// at most MaxMessageCalls); the calls past it are answered as not run.
	MaxCallsPerTurn int
	// Clock is what steps are timed and episodes' idleness measured on,
	// and what Run's sweep ticks on (nil: the real clock). Tests give a
	// fake clock and move it by hand.
	Clock clockwork.Clock
}

func (c *Config) setDefaults() {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.MaxTurns, DefaultMaxTurns)
	def(&c.MaxTurnsLimit, DefaultMaxTurnsLimit)
	def(&c.MaxEpisodes, DefaultMaxEpisodes)
	def(&c.RecentEpisodes, DefaultRecentEpisodes)
	def(&c.StepQueue, DefaultStepQueue)
	def(&c.MaxCallsPerTurn, DefaultMaxCallsPerTurn)
	c.MaxCallsPerTurn = min(c.MaxCallsPerTurn, MaxMessageCalls)
	def(&c.MaxTagsBytes, DefaultMaxTagsBytes)
	if c.PromptStyle == "" {
		c.PromptStyle = schemas.PromptStyleText
	}
	if c.RecentBytes <= 0 {
		c.RecentBytes = DefaultRecentBytes
	}
	if c.MaxEpisodeBytes <= 0 {
		c.MaxEpisodeBytes = DefaultMaxEpisodeBytes
	}
	if c.MaxLiveBytes <= 0 {
		c.MaxLiveBytes = DefaultMaxLiveBytes
	}
	if c.TrajectoryStore == "" {
		c.TrajectoryStore = "the server's trajectory store"
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
	if c.Clock == nil {
		c.Clock = clockwork.NewRealClock()
	}
	if c.Recorder == nil {
		c.Recorder = discard{}
	}
}

// Manager owns every live episode. It is safe for concurrent use.
type Manager struct {
	cfg      Config
	datasets map[string]*env.Dataset // read-only after New
	names    []string                // dataset names, sorted
	metrics  *Metrics
	deps     *deps           // what every episode's steps use, shared by the sessions
	specHash string          // reward.Hash of cfg.Reward, the spec of every episode that overrides none
	kept     keptBytes       // bytes live episodes keep, within cfg.MaxLiveBytes
	shares   *fairshare.Pool // the live episodes' rooms, cfg.MaxEpisodes, shared among clients (fair.go)
	draining atomic.Bool     // set by Drain: resets are refused (drain.go)

	mu       sync.Mutex               // guards live, recent and claiming
	live     map[string]*session      // episodes that have not ended
	recent   *recentSet               // ended episodes, for episode.get
	claiming map[string]chan struct{} // takeovers under way, each closed when done (takeover.go)
}

// New returns a manager over the configured datasets.
func New(cfg Config) (*Manager, error) {
	cfg.setDefaults()
	if len(cfg.Datasets) == 0 {
		return nil, fmt.Errorf("new manager: no dataset")
	}
	m := &Manager{cfg: cfg, datasets: map[string]*env.Dataset{}, live: map[string]*session{}, claiming: map[string]chan struct{}{},
		recent: newRecentSet(cfg.RecentEpisodes, cfg.RecentBytes), metrics: newMetrics(),
		specHash: reward.Hash(cfg.Reward), kept: keptBytes{max: cfg.MaxLiveBytes},
		shares: fairshare.New(cfg.MaxEpisodes, true)}
	m.deps = newDeps(&m.cfg, m.metrics)
	m.metrics.watchKept(m.kept.used.Load)
	if err := checkDatasetTools(cfg); err != nil {
		return nil, err
	}
	if err := checkPromptStyles(cfg); err != nil {
		return nil, err
	}
	for _, ds := range cfg.Datasets {
		if _, dup := m.datasets[ds.Name]; dup {
			return nil, fmt.Errorf("new manager: two datasets named %q", ds.Name)
		}
		m.datasets[ds.Name] = ds
		m.names = append(m.names, ds.Name)
	}
	sort.Strings(m.names)
	if bw, ok := cfg.Recorder.(interface{ BytesWritten() int64 }); ok {
		m.metrics.countBytes(bw.BytesWritten)
	}
	if fs, ok := cfg.Recorder.(interface{ Fsyncs() int64 }); ok {
		m.metrics.countFsyncs(fs.Fsyncs)
	}
	if cfg.Catalog != nil {
		m.metrics.watchPools(cfg.Catalog.PoolStats)
	}
	return m, nil
}

// Metrics returns the manager's Prometheus metrics.
func (m *Manager) Metrics() *Metrics { return m.metrics }

func (m *Manager) now() time.Time { return m.cfg.Clock.Now() }

// session returns the live episode with the given id.
func (m *Manager) find(id string) (*session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.live[id]; ok {
		return s, nil
	}
	if m.recent.get(id) != nil {
		return nil, stateErrorf(Ended, "%s", id)
	}
	return nil, stateErrorf(NotFound, "no live episode %q (it may have expired)", id)
}

// finish moves an ended episode from live to recent, records it and logs it.
func (m *Manager) finish(ctx context.Context, s *session, t *schemas.Trajectory) error {
	var enc []byte
	if m.recent.maxBytes > 0 { // read-only after New; the encoding runs outside m.mu
		var err error
		if enc, err = schemas.Marshal(t); err != nil {
			enc = nil // episode.get then points to the store, where End below records it
			m.cfg.Logger.Error("ended trajectory not kept for episode.get", zap.String("episode", t.EpisodeID), zap.Error(err))
		}
	}
	sum := summary(t)
	m.releaseBytes(s)
	m.mu.Lock()
	delete(m.live, s.id)
	s.share.Release()
	m.recent.put(t.EpisodeID, sum, enc)
	// Under m.mu, so the counts set last are the latest.
	m.metrics.recentBytes.Set(float64(m.recent.bytes))
	m.metrics.ended(t.Outcome, len(m.live))
	m.mu.Unlock()
	m.cfg.Logger.Info("episode ended",
		zap.String("episode", t.EpisodeID), zap.String("task", t.Task.TaskID),
		zap.String("outcome", t.Outcome), zap.Float64("reward", t.TotalReward),
		zap.Int("turns", len(t.Steps)), zap.Duration("duration", t.EndedAt.Sub(t.StartedAt)))
	if err := m.cfg.Recorder.End(ctx, t); err != nil {
		return m.deps.recordFailed(t.EpisodeID, "end", err)
	}
	m.metrics.written()
	return nil
}

func newEpisodeID() string {
	var b [12]byte
	rand.Read(b[:])
	return "ep_" + hex.EncodeToString(b[:])
}
