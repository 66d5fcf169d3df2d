package export

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/tools"
)

// LLaMA-Factory's reading of the file, at hiyouga/LLaMA-Factory
// ff6d4d12eeb035d6ce06805a5733dd7b29f2ac30, src/llamafactory/data/:
// SharegptDatasetConverter (converter.py:134-227) maps each turn's "from"
// to a role through the entry's tags, takes a first system turn as the
// system prompt, wants human or observation turns at odd places and gpt
// or function_call turns at even ones, and passes "tools" on as it is; a
// function_call turn goes to the template's FunctionFormatter
// (formatter.py:93-135).

// LFExample is one line of an sft export for the llamafactory target: a
// sharegpt conversation whose every value is a string, so that loading it
// through pyarrow (LLaMA-Factory pins datasets<=4.0.0, which makes one
// struct of every object of a column and fills the keys an object lacks
// with null) gives back each line as it is.
type LFExample struct {
	Conversations []LFTurn `json:"conversations"`
	// Tools is the JSON list of the tool definitions, as a string; ""
	// when no turn calls one (see SFTExample.Tools).
	Tools string `json:"tools"`
}

// LFTurn is one turn of an LFExample.
type LFTurn struct {
	From  string `json:"from"` // system, human, gpt, function_call or observation
	Value string `json:"value"`
}

// lfObservationSep joins the answers to the calls of one turn into one
// observation turn, as LLaMA-Factory's own openai converter joins
// consecutive tool turns (converter.py:267).
const lfObservationSep = "\n</tool_response>\n<tool_response>\n"

// lfThought wraps reasoning the way LLaMA-Factory's templates mark it
// unless they say otherwise (thought_words, template.py:598).
var lfThought = [2]string{"<think>\n", "\n</think>\n\n"}

// LlamaFactory turns an episode into an LFExample: the chat of SFT, with
// each assistant turn of calls as a function_call turn (see lfFunction),
// the answers to its calls as one observation turn, and reasoning as a
// <think> block ahead of the text. o must be resolved for the
// llamafactory target.
func LlamaFactory(rec *trajlog.Record, o ChatOptions) (LFExample, error) {
	done, err := Completion(rec, o)
	if err != nil {
		return LFExample{}, err
	}
	var ex LFExample
	if hasCalls(done) || native(rec) {
		b, _ := json.Marshal(tools.Recorded(rec.Tools).Definitions())
		ex.Tools = string(b)
	}
	ex.Conversations, err = lfTurns(append(Prompt(rec), done...))
	return ex, err
}

// lfTurns writes messages as sharegpt turns: system, human, gpt or
// function_call (lfAssistant), and the answers to one turn's calls as one
// observation turn.
func lfTurns(msgs []Message) ([]LFTurn, error) {
	var out []LFTurn
	var answers []string
	flush := func() {
		if answers != nil {
			out = append(out, LFTurn{"observation", strings.Join(answers, lfObservationSep)})
			answers = nil
		}
	}
	for _, m := range msgs {
		if m.Role == "tool" {
			answers = append(answers, m.Content)
			continue
		}
		flush()
		turn := LFTurn{From: map[string]string{"system": "system", "user": "human", "assistant": "gpt"}[m.Role], Value: m.Content}
		if m.Role == "assistant" {
			var err error
			if turn, err = lfAssistant(m); err != nil {
				return nil, err
			}
		}
		out = append(out, turn)
	}
	flush()
	return out, nil
}

// lfAssistant is an assistant message as a gpt turn (its reasoning and
// text) or, when it holds calls, a function_call turn whose value is the
// JSON list of the calls' {"name", "arguments"}. FunctionFormatter reads
// that list from the value, or from between the first <tool_call> and
// </tool_call> of it, keeping the text around them ahead of the calls it
// writes (formatter.py:110-133): so text beside the calls goes first,
// then the list inside those tags. The list is encoded with <, > and &
// escaped, so that no </tool_call> can occur in it; the formatter decodes
// it and writes the arguments with json.dumps, as themselves. Text that
// itself holds <tool_call> would be cut at the wrong place, and is
// errUnrenderable.
func lfAssistant(m Message) (LFTurn, error) {
	text := m.Content
	if m.ReasoningContent != "" {
		text = lfThought[0] + m.ReasoningContent + lfThought[1] + text
	}
	if len(m.ToolCalls) == 0 {
		return LFTurn{"gpt", text}, nil
	}
	type lfCall struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	calls := make([]lfCall, len(m.ToolCalls))
	for i, c := range m.ToolCalls {
		calls[i] = lfCall{c.Function.Name, c.Function.Arguments}
	}
	list, _ := json.Marshal(calls)
	if text == "" {
		return LFTurn{"function_call", string(list)}, nil
	}
	if strings.Contains(text, "<tool_call>") {
		return LFTurn{}, errUnrenderable
	}
	var b bytes.Buffer
	b.WriteString(text + "\n<tool_call>")
	b.Write(list)
	b.WriteString("</tool_call>")
	return LFTurn{"function_call", b.String()}, nil
}

// DatasetInfoFile is the file LLaMA-Factory reads its dataset
// descriptions from, in its dataset_dir.
const DatasetInfoFile = "dataset_info.json"

// DatasetInfo is one dataset's description in LLaMA-Factory's
// dataset_info.json.
type DatasetInfo struct {
	FileName   string `json:"file_name"`
	Formatting string `json:"formatting"`
	// Ranking marks preference data (chosen and rejected columns), for
	// LLaMA-Factory's DPO stage; left out for sft.
	Ranking bool              `json:"ranking,omitempty"`
	Columns map[string]string `json:"columns"`
	Tags    map[string]string `json:"tags"`
}

// DatasetInfoEntry describes an sft file of the llamafactory target,
// named fileName in its folder: the sharegpt formatting, its
// conversations and tools columns, and every tag. LLaMA-Factory sets
// each column or tag an entry's "columns" or "tags" leaves out to null,
// not to its default (DatasetAttr.join, parser.py:70-90), so all are
// given.
func DatasetInfoEntry(fileName string) DatasetInfo {
	return DatasetInfo{
		FileName:   fileName,
		Formatting: "sharegpt",
		Columns:    map[string]string{"messages": "conversations", "tools": "tools"},
		Tags: map[string]string{
			"role_tag": "from", "content_tag": "value", "user_tag": "human", "assistant_tag": "gpt",
			"observation_tag": "observation", "function_tag": "function_call", "system_tag": "system",
		},
	}
}
