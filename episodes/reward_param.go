package episodes

import (
	"bytes"
	"encoding/json"

	"github.com/sqlgym/sqlgym/reward"
)

// rewardOf is the spec a reset's reward param asks for: the server's when
// it is absent or null, a preset's when it is a string (its name, resolved
// by Config.RewardPreset as --reward resolves one), or the server's with a
// partial spec merged over it when it is an object. Every error says what
// was wrong once, under the one prefix "reward".
func (m *Manager) rewardOf(raw json.RawMessage) (specOf, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return specOf{m.cfg.Reward, m.specHash}, nil // the server's hash is computed once, not on every reset
	}
	switch t[0] {
	case '{':
		spec, err := reward.Resolve(m.cfg.Reward, t)
		if err != nil {
			return specOf{}, errorf(InvalidArgument, "%v", err) // Resolve's errors open with the key at fault: reward...
		}
		return specOf{spec, reward.Hash(spec)}, nil
	case '"':
		return m.rewardPreset(t)
	}
	return specOf{}, errorf(InvalidArgument,
		"reward: want a partial reward spec (an object) or a preset's name (a string), got %s", jsonKind(t))
}

// rewardPreset is the spec of the preset a reset's reward names.
func (m *Manager) rewardPreset(raw []byte) (specOf, error) {
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return specOf{}, errorf(InvalidArgument, "reward: %v", err)
	}
	if m.cfg.RewardPreset == nil {
		return specOf{}, errorf(InvalidArgument,
			"reward: this server has no reward presets to name (%q); give a partial reward spec (an object)", name)
	}
	spec, err := m.cfg.RewardPreset(name)
	if err != nil {
		return specOf{}, errorf(InvalidArgument, "reward: %v", err)
	}
	return specOf{spec, reward.Hash(spec)}, nil
}

// jsonKind names the kind of a JSON value by its first byte: an array, a
// boolean, null or a number (objects and strings are read before).
func jsonKind(raw []byte) string {
	switch raw[0] {
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
