package episodes

import (
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// checkPromptStyles checks the server's prompt style and every
// dataset's: each a style, each dataset served.
func checkPromptStyles(cfg Config) error {
	if !tools.ValidPromptStyle(cfg.PromptStyle) {
		return fmt.Errorf("new manager: prompt style %q (want %s)", cfg.PromptStyle, strings.Join(schemas.PromptStyles(), " or "))
	}
	for name, style := range cfg.DatasetPromptStyles {
		if !cfg.serves(name) {
			return fmt.Errorf("new manager: prompt style for dataset %q, which is not served", name)
		}
		if !tools.ValidPromptStyle(style) {
			return fmt.Errorf("new manager: prompt style %q of dataset %q (want %s)", style, name, strings.Join(schemas.PromptStyles(), " or "))
		}
	}
	return nil
}

// promptStyle is the prompt style of a reset on ds that asks for asked:
// asked, else the dataset's, else the server's.
func (m *Manager) promptStyle(ds *env.Dataset, asked string) (string, error) {
	switch {
	case asked != "" && !tools.ValidPromptStyle(asked):
		return "", errorf(InvalidArgument, "prompt_style must be %q or %q, got %q",
			schemas.PromptStyleText, schemas.PromptStyleNative, asked)
	case asked != "":
		return asked, nil
	}
	if style, ok := m.cfg.DatasetPromptStyles[ds.Name]; ok {
		return style, nil
	}
	return m.cfg.PromptStyle, nil
}

// maxCalls is the calls of one turn an episode runs: asked (a replay's,
// from 1 to MaxMessageCalls), else the server's.
func (m *Manager) maxCalls(asked int) (int, error) {
	switch {
	case asked == 0:
		return m.cfg.MaxCallsPerTurn, nil
	case asked < 1 || asked > MaxMessageCalls:
		return 0, errorf(InvalidArgument, "max_calls_per_turn must be from 1 to %d, got %d", MaxMessageCalls, asked)
	}
	return asked, nil
}
