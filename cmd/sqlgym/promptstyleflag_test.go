package main

import (
	"errors"
	"strings"
	"testing"
)

// TestPromptStyleFlagsChecked: a --prompt-style or --dataset-prompt-style
// that names no style, a malformed one, one given twice, or one for a
// dataset not loaded, is a usage error saying which, found before the
// server opens anything (the --addr cannot be listened on).
func TestPromptStyleFlagsChecked(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--prompt-style", "chat"}, `--prompt-style must be text or native, got "chat"`},
		{[]string{"--dataset-prompt-style", "demo"}, `--dataset-prompt-style "demo": want NAME=STYLE`},
		{[]string{"--dataset-prompt-style", "demo=json"}, `--dataset-prompt-style demo: the style must be text or native, got "json"`},
		{[]string{"--dataset-prompt-style", "demo=native", "--dataset-prompt-style", "demo=text"}, "--dataset-prompt-style demo given twice"},
		{[]string{"--dataset-prompt-style", "nosuch=native"}, "--dataset-prompt-style nosuch: no dataset of that name"},
	} {
		args := append([]string{"serve", "--data-dir", t.TempDir(), "--addr", "256.0.0.1:0", "--token", "x"}, tt.args...)
		_, _, err := sqlgym(t, args...)
		if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v (%T), want a usage error %q", tt.args, err, err, tt.want)
		}
	}
}
