package rollout

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
	"github.com/sqlgym/sqlgym/schemas"
)

// UsageFile is the file, in a rollout's --out folder, that keeps each
// episode's token usage: the trajectory store has no place for it.
const UsageFile = "usage.jsonl"

// UsageLog appends one line per episode to a usage file, synced, so that
// a resumed run's report counts the tokens of the episodes before it.
type UsageLog struct{ f *os.File }

// OpenUsageLog opens (or creates) the usage file at path for appending.
func OpenUsageLog(path string) (*UsageLog, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("usage file: %w", err)
	}
	return &UsageLog{f: f}, nil
}

// Add records the usage of an episode that was started.
func (u *UsageLog) Add(res Result) error {
	if res.EpisodeID == "" {
		return nil
	}
	b, _ := json.Marshal(report.Usage{EpisodeID: res.EpisodeID, PromptTokens: res.Usage.PromptTokens,
		CompletionTokens: res.Usage.CompletionTokens, Requests: res.Requests})
	if _, err := u.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("usage file: %w", err)
	}
	return u.f.Sync()
}

// checkUsage checks the token counts an endpoint reported for one reply
// as the episode server checks a step's usage (episodes.CheckUsage, the
// same function on every path): a count that is negative or past the
// protocol's bound is an error of the endpoint, and the episode does not
// go on with it.
func checkUsage(u Usage) error {
	if err := episodes.CheckUsage(&schemas.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens}); err != nil {
		return fmt.Errorf("the model's reply reports impossible token counts: %s", err)
	}
	return nil
}

// Close closes the file.
func (u *UsageLog) Close() error { return u.f.Close() }

// ReadUsage reads a usage file into a map by episode id; a missing file
// is an empty map, and a line that does not decode (a write cut short)
// is skipped.
func ReadUsage(path string) (map[string]report.Usage, error) {
	out := map[string]report.Usage{}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("usage file: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var u report.Usage
		if json.Unmarshal(sc.Bytes(), &u) == nil && u.EpisodeID != "" {
			out[u.EpisodeID] = u
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("usage file %s: %w", path, err)
	}
	return out, nil
}
