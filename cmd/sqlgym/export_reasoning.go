package main

import (
	"flag"
	"strings"

	"github.com/sqlgym/sqlgym/episodes/export"
)

// reasoningFlags say which chat template the trl rows of sqlgym export
// are for, and so under which key an assistant message's reasoning goes.
type reasoningFlags struct {
	template string
	key      string
}

func (f *reasoningFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.template, "template", "", "sft, dpo (trl): the chat template `NAME` the rows are for ("+strings.Join(export.TemplateNames(), ", ")+
		", each also with _training): picks the reasoning key it reads and fits the rows to it")
	fs.StringVar(&f.key, "reasoning-key", "", "sft, dpo (trl): the `KEY` of an assistant message's reasoning: reasoning_content (the default; Qwen3, GLM-4-MoE, Nemotron-3-Nano) or thinking (gpt-oss, LFM2.5)")
}
