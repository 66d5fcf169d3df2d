package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// promptStyleFlags choose the prompt style of the episodes that ask for
// none: the server's (--prompt-style) and each dataset's
// (--dataset-prompt-style).
type promptStyleFlags struct {
	style    string
	datasets listFlag
	// Set by parse.
	byDataset map[string]string
}

func (p *promptStyleFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&p.style, "prompt-style", schemas.PromptStyleText,
		"system prompt of an episode.reset that asks for none: text (the tools and how to call them in the action format) or native (the task and the rules only; the chat template's tools= shows the tools). OpenEnv, MCP and rollout --tool-calling native ask for native")
	fs.Var(&p.datasets, "dataset-prompt-style", "prompt style of one dataset's episodes, `NAME=STYLE` with STYLE text or native (repeatable; default: --prompt-style)")
}

// parse reads --prompt-style and --dataset-prompt-style.
func (p *promptStyleFlags) parse() error {
	want := strings.Join(schemas.PromptStyles(), " or ")
	if p.style == "" {
		p.style = schemas.PromptStyleText // a command that does not register the flags
	}
	if !tools.ValidPromptStyle(p.style) {
		return usageError{fmt.Sprintf("--prompt-style must be %s, got %q", want, p.style)}
	}
	p.byDataset = map[string]string{}
	for _, v := range p.datasets.values {
		name, style, ok := strings.Cut(v, "=")
		switch {
		case !ok || name == "":
			return usageError{fmt.Sprintf("--dataset-prompt-style %q: want NAME=STYLE", v)}
		case p.byDataset[name] != "":
			return usageError{fmt.Sprintf("--dataset-prompt-style %s given twice", name)}
		case !tools.ValidPromptStyle(style):
			return usageError{fmt.Sprintf("--dataset-prompt-style %s: the style must be %s, got %q", name, want, style)}
		}
		p.byDataset[name] = style
	}
	return nil
}

// checkDatasets fails when a --dataset-prompt-style names no loaded
// dataset.
func (p *promptStyleFlags) checkDatasets(dss []*env.Dataset) error {
	for name := range p.byDataset {
		if !loaded(dss, name) {
			return usageError{fmt.Sprintf("--dataset-prompt-style %s: no dataset of that name", name)}
		}
	}
	return nil
}
