package testsuite

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/sqlgym/sqlgym/base/atomicfile"
	"github.com/sqlgym/sqlgym/env"
)

// Format is the manifest format this package reads and writes.
const Format = 1

// Manifest is what manifest.json says of one source database's suites.
type Manifest struct {
	Format  int         `json:"format"`
	Dataset string      `json:"dataset"` // the dataset it was built for; informative
	DBID    string      `json:"db_id"`
	Dialect env.Dialect `json:"dialect"` // the dialect of the suite's databases
	// Identity is what the suites were built from.
	Identity Identity `json:"identity"`
	// Databases are the databases kept, by candidate index.
	Databases []Database `json:"databases"`
	// Golds are the golds of the source database, in the order of their
	// first task.
	Golds []Gold `json:"golds"`
	// Build is the build's figures.
	Build Figures `json:"build"`
}

// Database is one kept database: a file beside the manifest, or, for a
// suite carried onto a server by sqlgym import, Source: the name of the
// schema (PostgreSQL) or database (MySQL) on the server the dataset is
// served from, or a whole source string ("postgres://...#SCHEMA").
type Database struct {
	Name      string `json:"name"`      // "ts-0007": the name suites list
	Candidate int    `json:"candidate"` // the candidate index it was drawn as
	File      string `json:"file,omitempty"`
	Source    string `json:"source,omitempty"`
	Bytes     int64  `json:"bytes,omitempty"`
}

// Gold is one gold's suite.
type Gold struct {
	SQL    string   `json:"sql"`
	Suite  []string `json:"suite"` // database names, in judging order
	Counts Counts   `json:"counts"`
}

// Counts are what a build counted of one gold's neighbours.
type Counts struct {
	Neighbours int `json:"neighbours"`  // neighbours kept: they differ from the gold and run
	ByOriginal int `json:"by_original"` // told apart by the source database alone
	BySuite    int `json:"by_suite"`    // told apart by the suite
	// HeldOutApart are the neighbours some held-out database tells apart;
	// SuiteOfHeldOut and OriginalOfHeldOut are how many of those the suite
	// and the source database tell apart.
	HeldOutApart      int `json:"held_out_apart"`
	SuiteOfHeldOut    int `json:"suite_of_held_out"`
	OriginalOfHeldOut int `json:"original_of_held_out"`
	// Tried are the candidates the gold ran on before none of its
	// neighbours was left to tell apart.
	Tried int `json:"tried"`
	// Nondeterministic is set when the gold's result on the source
	// database depends on the order in which the engine breaks ties (a
	// LIMIT without ORDER BY, rows tied under ORDER BY ... LIMIT).
	Nondeterministic bool `json:"nondeterministic,omitempty"`
	// TiedCandidates are the candidates passed over because the gold's
	// result on them depended on tie order; FailedCandidates those on
	// which the gold failed or returned more rows than the cap.
	TiedCandidates   int `json:"tied_candidates,omitempty"`
	FailedCandidates int `json:"failed_candidates,omitempty"`
	// GoldFailed is set when the gold fails on the source database: it
	// has no neighbours and no suite.
	GoldFailed bool `json:"gold_failed,omitempty"`
	// Timeouts counts the gold's and its neighbours' runs, on any
	// database, that went over the time limit: the one thing that can make
	// two builds of the same suites differ, when it differs from machine
	// to machine.
	Timeouts int `json:"timeouts,omitempty"`
}

// Figures are one source database's build figures.
type Figures struct {
	Seconds    float64 `json:"seconds"`    // build time
	Candidates int     `json:"candidates"` // candidate databases generated
	HeldOut    int     `json:"held_out"`   // held-out databases generated
	Files      int     `json:"files"`      // databases kept
	Bytes      int64   `json:"bytes"`      // their size on disk
}

// ReadManifest reads and checks the manifest at path. A missing file is
// an error satisfying errors.Is(err, fs.ErrNotExist).
func ReadManifest(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("testsuite: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("testsuite: manifest %s: %w", path, err)
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("testsuite: manifest %s: %w", path, err)
	}
	return &m, nil
}

// WriteManifest writes m to path whole or not at all.
func WriteManifest(path string, m *Manifest) error {
	if err := m.check(); err != nil {
		return fmt.Errorf("testsuite: manifest %s: %w", path, err)
	}
	err := atomicfile.Write(path, atomicfile.Options{Perm: 0o644, SyncDir: true}, func(w *bufio.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	})
	if err != nil {
		return fmt.Errorf("testsuite: write manifest: %w", err)
	}
	return nil
}

// check reports what makes m unusable: another format, a database named
// twice or badly, a file outside its folder, a suite naming an unknown
// database, a gold listed twice.
func (m *Manifest) check() error {
	if m.Format != Format {
		return fmt.Errorf("format %d, want %d", m.Format, Format)
	}
	if err := checkName("db_id", m.DBID); err != nil {
		return err
	}
	names := map[string]bool{}
	for _, d := range m.Databases {
		if err := d.check(); err != nil {
			return err
		}
		if names[d.Name] {
			return fmt.Errorf("database %q listed twice", d.Name)
		}
		names[d.Name] = true
	}
	return checkGolds(m.Golds, names)
}

// check reports what makes d unusable.
func (d Database) check() error {
	if err := checkName("database name", d.Name); err != nil {
		return err
	}
	if d.File == "" && d.Source == "" {
		return fmt.Errorf("database %q has neither a file nor a source", d.Name)
	}
	if d.File != "" {
		return checkName("file of database "+d.Name, d.File)
	}
	return nil
}

// checkGolds reports a gold listed twice or a suite naming a database not
// in names.
func checkGolds(golds []Gold, names map[string]bool) error {
	seen := map[string]bool{}
	for _, g := range golds {
		if seen[g.SQL] {
			return fmt.Errorf("gold %q listed twice", g.SQL)
		}
		seen[g.SQL] = true
		for _, n := range g.Suite {
			if !names[n] {
				return fmt.Errorf("the suite of gold %q names database %q, which is not listed", g.SQL, n)
			}
		}
	}
	return nil
}

// checkName refuses a name that is empty, "." or "..", or holds a path
// separator or a byte below space: names become file names and keys.
func checkName(what, name string) error {
	if name == "" || name == "." || name == ".." {
		return fmt.Errorf("%s %q is not a name", what, name)
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c == '/' || c == '\\' || c < ' ' {
			return fmt.Errorf("%s %q holds %q", what, name, c)
		}
	}
	return nil
}
