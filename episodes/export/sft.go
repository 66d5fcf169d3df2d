package export

import (
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// SFTExample is one line of an sft export for the trl and openai
// targets.
type SFTExample struct {
	Messages []Message `json:"messages"`
	// Tools are the episode's tool definitions, given when a message
	// holds a call or the episode's prompt is native (which leaves the
	// tools to the template), and left out otherwise: a chat template
	// handed tools= adds its own tool-calling instructions to the system
	// prompt, which asks a chat without calls for another syntax.
	Tools []schemas.Tool `json:"tools,omitempty"`
}

// SFT turns an episode into a chat: the prompt's system and user
// messages, then the Completion. o must be resolved.
func SFT(rec *trajlog.Record, o ChatOptions) (SFTExample, error) {
	done, err := Completion(rec, o)
	if err != nil {
		return SFTExample{}, err
	}
	ex := SFTExample{Messages: append(Prompt(rec), done...)}
	if hasCalls(done) || native(rec) {
		ex.Tools = tools.Recorded(rec.Tools).Definitions()
		ex.Messages = withToolList(ex.Messages, ex.Tools, rec, o)
	}
	return ex, nil
}
