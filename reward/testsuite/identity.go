package testsuite

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"time"
)

// GeneratorVersion is the version of the generation of candidate
// databases and of the distillation that suites are built with. It goes
// up whenever either changes what a build makes (internal/app/suitegen and
// internal/app/suitegen/dbgen), so that suites built before read as stale.
const GeneratorVersion = 1

// Identity is what a source database's suites were built from: with the
// same identity, a build makes the same suites.
type Identity struct {
	// Generator is the GeneratorVersion of the build.
	Generator int `json:"generator"`
	// Params are the build's parameters.
	Params Params `json:"params"`
	// Source is the source database file; zero for a source that is no
	// file.
	Source Source `json:"source,omitzero"`
	// Golds is HashGolds of the golds asked of the source database.
	Golds string `json:"golds_sha256"`
}

// Params are the parameters of a build that shape its suites.
type Params struct {
	Seed          uint64 `json:"seed"`
	Candidates    int    `json:"candidates"`     // candidate databases drawn (T)
	HeldOut       int    `json:"held_out"`       // held-out databases drawn for the figures (H)
	MaxNeighbours int    `json:"max_neighbours"` // neighbours kept per gold at most
	MaxRows       int    `json:"max_rows"`       // the generator's rows per table at most
	SampleValues  int    `json:"sample_values"`  // the generator's original values kept per column
	TimeoutMS     int64  `json:"timeout_ms"`     // one query's time limit
	RowCap        int    `json:"row_cap"`        // one query's rows at most
}

// Source identifies a database file by its size, modification time and
// SHA-256.
type Source struct {
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mod_time"`
	SHA256  string    `json:"sha256"`
}

// SourceOf identifies the file at path. When known has the file's size
// and modification time, its SHA-256 is taken as the file's without
// reading it; otherwise the file is hashed.
func SourceOf(path string, known Source) (Source, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Source{}, fmt.Errorf("testsuite: source: %w", err)
	}
	src := Source{Size: st.Size(), ModTime: st.ModTime().UTC()}
	if known.SHA256 != "" && known.Size == src.Size && known.ModTime.Equal(src.ModTime) {
		src.SHA256 = known.SHA256
		return src, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return Source{}, fmt.Errorf("testsuite: source: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return Source{}, fmt.Errorf("testsuite: source %s: %w", path, err)
	}
	src.SHA256 = hex.EncodeToString(h.Sum(nil))
	return src, nil
}

// HashGolds is the SHA-256 of a database's golds: the distinct texts,
// sorted, each written as its length in bytes, a colon, itself and a
// newline.
func HashGolds(golds []string) string {
	sorted := slices.Clone(golds)
	slices.Sort(sorted)
	h := sha256.New()
	for _, g := range slices.Compact(sorted) {
		io.WriteString(h, strconv.Itoa(len(g))+":"+g+"\n")
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Stale says why suites built under id no longer serve the source
// database and golds of cur, or "" when they still do: another generator
// version, another source database (by SHA-256), other golds. Params are
// not compared: a server serves suites built with any.
func (id Identity) Stale(cur Identity) string {
	switch {
	case id.Generator != cur.Generator:
		return fmt.Sprintf("built by generator version %d, this is version %d", id.Generator, cur.Generator)
	case id.Source.SHA256 != cur.Source.SHA256:
		return fmt.Sprintf("the source database changed (sha256 %s, built from %s)", short(cur.Source.SHA256), short(id.Source.SHA256))
	case id.Golds != cur.Golds:
		return "the golds of the database changed"
	}
	return ""
}

// short is the first 12 characters of a hash, for messages.
func short(h string) string { return h[:min(len(h), 12)] }
