package dbgen

import "fmt"

// The defaults of Config's zero fields.
const (
	// DefaultMaxRows is the most rows a generated table holds.
	DefaultMaxRows = 200
	// DefaultSampleValues is how many distinct original values of a
	// column are kept as seeds.
	DefaultSampleValues = 64
)

// scanRows bounds the rows of a source table read for its values: a
// column's sample comes from its first scanRows rows, so a table of
// millions costs no more than one of a hundred thousand.
const scanRows = 100_000

// Config bounds generation; zero fields take the defaults above.
type Config struct {
	MaxRows      int // rows of a table at most (DefaultMaxRows)
	SampleValues int // distinct original values kept per column as seeds (DefaultSampleValues)
}

// withDefaults returns cfg with its zero fields set, or an error for a
// negative one.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.MaxRows < 0 || cfg.SampleValues < 0 {
		return cfg, fmt.Errorf("dbgen: config: MaxRows %d and SampleValues %d must not be negative", cfg.MaxRows, cfg.SampleValues)
	}
	if cfg.MaxRows == 0 {
		cfg.MaxRows = DefaultMaxRows
	}
	if cfg.SampleValues == 0 {
		cfg.SampleValues = DefaultSampleValues
	}
	return cfg, nil
}
