package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/valueindex"
	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// toolFlags choose the tools a server offers and bound search_values's
// value index.
type toolFlags struct {
	names        string
	datasetTools listFlag
	index        indexFlags
	// Set by parse.
	set      tools.Set
	datasets map[string]tools.Set
}

// indexFlags bound the value index; replay and rescore take them too, to
// answer search_values as the server did.
type indexFlags struct {
	dir          string
	build        string
	maxChars     int
	maxBytes     int64
	maxDistinct  int
	maxValues    int
	buildTimeout time.Duration
	searches     int
	// closeTimeout bounds how long closing the index waits for builds;
	// serve sets it to --shutdown-grace (zero: the package's default).
	closeTimeout time.Duration
}

func (t *toolFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&t.names, "tools", strings.Join(tools.DefaultNames(), ","),
		"tools the server offers, `NAME,NAME,...` of "+strings.Join(tools.Names(), ", ")+" (submit is always added)")
	fs.Var(&t.datasetTools, "dataset-tools", "tools of one dataset, `NAME=TOOL,TOOL,...`, a subset of --tools (repeatable; default: --tools)")
	t.index.register(fs)
	fs.StringVar(&t.index.build, "value-index-build", "startup",
		"when search_values's index of each database is built or checked: startup (in the background, a log line per database) or lazy (at its first search)")
}

func (x *indexFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&x.dir, "value-index-dir", "", "where search_values's index files are kept (empty: DATA-DIR/value-index)")
	fs.IntVar(&x.maxChars, "value-index-max-chars", valueindex.DefaultMaxValueChars, "longest text value indexed for search_values, in characters")
	bytesVar(fs, &x.maxBytes, "value-index-max-bytes", valueindex.DefaultMaxBytes,
		"size of one database's value index file, about; a database whose values need more keeps each large column's most frequent values within a fair share (search_values names the columns cut)")
	fs.IntVar(&x.maxDistinct, "value-index-max-distinct", 0,
		"distinct values indexed per column, when positive; a column with more keeps its most frequent (search_values says so) (0: no bound but --value-index-max-bytes)")
	fs.IntVar(&x.maxValues, "value-index-max-values", 0,
		"values indexed per database, when positive; the columns that do not fit keep their most frequent, or none (search_values says so) (0: no bound but --value-index-max-bytes)")
	fs.DurationVar(&x.buildTimeout, "value-index-build-timeout", valueindex.DefaultBuildTimeout, "time limit of building one database's value index")
	fs.IntVar(&x.searches, "search-concurrency", valueindex.DefaultMaxSearches(),
		"search_values calls running at once, over every database (default: half of GOMAXPROCS, at least 1); one more waits within its --query-timeout, then gets unavailable")
}

// parse reads --tools and --dataset-tools.
func (t *toolFlags) parse() error {
	set, err := tools.NewSet(strings.Split(t.names, ","))
	if err != nil {
		return usageError{fmt.Sprintf("--tools: %v", err)}
	}
	t.set, t.datasets = set, map[string]tools.Set{}
	for _, v := range t.datasetTools.values {
		name, list, ok := strings.Cut(v, "=")
		if !ok || name == "" {
			return usageError{fmt.Sprintf("--dataset-tools %q: want NAME=TOOL,TOOL,...", v)}
		}
		if _, dup := t.datasets[name]; dup {
			return usageError{fmt.Sprintf("--dataset-tools %s given twice", name)}
		}
		if t.datasets[name], err = set.Subset(strings.Split(list, ",")); err != nil {
			return usageError{fmt.Sprintf("--dataset-tools %s: %v (of --tools)", name, err)}
		}
	}
	if t.index.build != "startup" && t.index.build != "lazy" {
		return usageError{fmt.Sprintf("--value-index-build must be startup or lazy, got %q", t.index.build)}
	}
	return t.index.check()
}

func (x *indexFlags) check() error {
	if x.maxChars < 1 || x.maxBytes < 1 || x.buildTimeout <= 0 {
		return usageError{"--value-index-max-chars, --value-index-max-bytes and --value-index-build-timeout must be positive"}
	}
	if x.maxDistinct < 0 || x.maxValues < 0 {
		return usageError{"--value-index-max-distinct and --value-index-max-values must not be negative (0: no bound but --value-index-max-bytes)"}
	}
	if x.searches < 1 {
		return usageError{fmt.Sprintf("--search-concurrency must be at least 1, got %d", x.searches)}
	}
	return nil
}

// checkDatasets fails when a --dataset-tools names no loaded dataset.
func (t *toolFlags) checkDatasets(dss []*env.Dataset) error {
	for name := range t.datasets {
		if !loaded(dss, name) {
			return usageError{fmt.Sprintf("--dataset-tools %s: no dataset of that name", name)}
		}
	}
	return nil
}

// loaded reports whether dss holds a dataset of that name.
func loaded(dss []*env.Dataset, name string) bool {
	return slices.ContainsFunc(dss, func(ds *env.Dataset) bool { return ds.Name == name })
}

// searches reports whether any dataset offers search_values.
func (t *toolFlags) searches() bool {
	return t.offering().Offers(schemas.ToolSearchValues)
}

// open returns the value index store under dataDir
// (stack.OpenValueIndex), logging each database's index as it is ready.
// A directory inside one of datasetDirs, or one that cannot be made or
// written, is a usage error.
func (x *indexFlags) open(dataDir string, datasetDirs []string, log *zap.Logger) (*valueindex.Store, error) {
	store, err := stack.OpenValueIndex(valueindex.Config{
		Dir: x.dir, MaxValueChars: x.maxChars, MaxBytes: x.maxBytes, MaxDistinct: x.maxDistinct, MaxValues: x.maxValues,
		BuildTimeout: x.buildTimeout, MaxSearches: x.searches, CloseTimeout: x.closeTimeout,
	}, dataDir, datasetDirs, log)
	var pe *stack.PlacementError
	if errors.As(err, &pe) {
		return nil, usageError{fmt.Sprintf("--value-index-dir %s: %v", pe.Dir, pe.Err)}
	}
	return store, err
}

// offering is the tools each dataset offers, from --tools and
// --dataset-tools.
func (t *toolFlags) offering() tools.Offering {
	return tools.Offering{Default: t.set, ByDataset: t.datasets}
}

// warm starts building the value index of every database that offers
// search_values, when --value-index-build is startup.
func (t *toolFlags) warm(store *valueindex.Store, datasets []*env.Dataset, catalog *env.Catalog) {
	if t.index.build == "startup" {
		stack.WarmValueIndex(store, t.offering().Datasets(datasets, schemas.ToolSearchValues), catalog)
	}
}
