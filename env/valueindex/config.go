package valueindex

import (
	"runtime"
	"time"

	"github.com/jonboulle/clockwork"
)

// Defaults of the zero fields of Config.
const (
	DefaultMaxValueChars = 200
	DefaultMaxBytes      = 1 << 30
	DefaultBuildTimeout  = time.Hour
	DefaultCloseTimeout  = 30 * time.Second
)

// DefaultMaxSearches is the default bound of searches running at once:
// half the CPUs Go uses (at least one), so that searches leave the rest
// to the statements of other steps.
func DefaultMaxSearches() int { return max(1, runtime.GOMAXPROCS(0)/2) }

// Config configures a Store. Zero bounds take the defaults.
type Config struct {
	// Dir holds the index files, one per database; it is created when
	// missing.
	Dir string
	// MaxValueChars: longer values are not indexed (they are counted).
	MaxValueChars int
	// MaxBytes bounds the size of one database's index file, about: each
	// value counts what it adds to the file (valueCost). A database whose
	// values need more keeps, of each column that does not fit, its most
	// frequent values within a fair share of the bound (budget.go), values
	// that tie in frequency sampled by a hash of their text (ties.go), and
	// searches name the columns cut and how.
	MaxBytes int64
	// MaxDistinct, when positive, bounds the values indexed per column:
	// a column with more keeps its most frequent. Zero: no bound but
	// MaxBytes.
	MaxDistinct int
	// MaxValues, when positive, bounds the values indexed per database:
	// the columns that do not fit keep their most frequent values, or
	// none. Zero: no bound but MaxBytes.
	MaxValues int
	// BuildTimeout bounds the build of one database's index.
	BuildTimeout time.Duration
	// MaxSearches bounds the searches running at once, over every
	// database; one more waits for a slot within its context, then
	// fails saying the searches are busy.
	MaxSearches int
	// CloseTimeout bounds how long Close waits for the builds under way
	// to stop.
	CloseTimeout time.Duration
	// Clock times CloseTimeout (nil: the real clock); tests give a fake
	// clock and move it by hand.
	Clock clockwork.Clock
	// Progress, when set, is told of each database's index as it is
	// built or found; it must be safe for concurrent use.
	Progress func(Progress)
}

// Progress reports one database's index.
type Progress struct {
	Dataset, DBID string
	Path          string        // the index file
	Values        int64         // values indexed
	Partial       int           // columns indexed in part
	Reused        bool          // an index built before was found and kept
	Elapsed       time.Duration // time to build or check it
	Err           error         // the build failed
}

func (c Config) withDefaults() Config {
	if c.MaxValueChars <= 0 {
		c.MaxValueChars = DefaultMaxValueChars
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	c.MaxDistinct, c.MaxValues = max(c.MaxDistinct, 0), max(c.MaxValues, 0)
	if c.BuildTimeout <= 0 {
		c.BuildTimeout = DefaultBuildTimeout
	}
	if c.MaxSearches <= 0 {
		c.MaxSearches = DefaultMaxSearches()
	}
	if c.CloseTimeout <= 0 {
		c.CloseTimeout = DefaultCloseTimeout
	}
	if c.Clock == nil {
		c.Clock = clockwork.NewRealClock()
	}
	if c.Progress == nil {
		c.Progress = func(Progress) {}
	}
	return c
}
