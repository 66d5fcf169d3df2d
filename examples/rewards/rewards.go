// Package rewards holds the named reward presets (the JSON files of this
// folder, embedded in the binary) and resolves a --reward value: a preset
// name or a spec file.
package rewards

import (
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/schemas"
)

//go:embed *.json
var files embed.FS

// Names lists the presets, sorted.
func Names() []string {
	entries, _ := files.ReadDir(".")
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".json"))
	}
	slices.Sort(names)
	return names
}

// JSON returns a preset's file as it is written, and whether it exists.
func JSON(name string) ([]byte, bool) {
	if !slices.Contains(Names(), name) {
		return nil, false
	}
	raw, err := files.ReadFile(name + ".json")
	return raw, err == nil
}

// Preset returns the spec a preset names, merged over
// schemas.DefaultRewardSpec() as a spec file is.
func Preset(name string) (schemas.RewardSpec, error) {
	raw, ok := JSON(name)
	if !ok {
		return schemas.RewardSpec{}, fmt.Errorf("no reward preset %q (presets: %s)", name, strings.Join(Names(), ", "))
	}
	spec, err := reward.Resolve(schemas.DefaultRewardSpec(), raw)
	if err != nil {
		return spec, fmt.Errorf("reward preset %s: %w", name, err)
	}
	return spec, nil
}

// Load resolves a --reward value: a preset's name (a word with no path
// separator and no extension that names a preset), or else a spec file
// read by reward.LoadSpec. A file named like a preset is read as
// ./NAME.
func Load(value string) (schemas.RewardSpec, error) {
	if isName(value) {
		if _, ok := JSON(value); ok {
			return Preset(value)
		}
	}
	spec, err := reward.LoadSpec(value)
	if err != nil && isName(value) {
		return spec, fmt.Errorf("%w (nor is it a reward preset: %s)", err, strings.Join(Names(), ", "))
	}
	return spec, err
}

// NamesMatch reports whether a --reward value is a spec file that names
// its own match mode (a "match" key); a preset's match is the generic
// default, and "" names none.
func NamesMatch(value string) (bool, error) {
	if value == "" {
		return false, nil
	}
	if _, preset := JSON(value); preset {
		return false, nil
	}
	raw, err := os.ReadFile(value)
	if err != nil {
		return false, err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return false, fmt.Errorf("%s: %w", value, err)
	}
	_, ok := keys["match"]
	return ok, nil
}

func isName(value string) bool {
	return value != "" && !strings.ContainsAny(value, `/\`) && path.Ext(value) == ""
}
