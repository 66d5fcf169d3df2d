package export

import (
	"encoding/json"
	"maps"
)

// LLaMA-Factory's reading of preference data, at hiyouga/LLaMA-Factory
// ff6d4d12eeb035d6ce06805a5733dd7b29f2ac30: a dataset whose
// dataset_info.json entry has "ranking": true (parser.py:74) goes through
// SharegptDatasetConverter (converter.py:134-227), which wants an odd
// number of turns after the system prompt, human or observation last
// (converter.py:173-177), and "chosen" and "rejected" columns that are
// each one turn, a dict whose "from" is gpt or function_call
// (converter.py:189-213); the prompt is the conversation, and the two
// turns are the two responses.

// LFPair is one line of a dpo export for the llamafactory target: the
// shared prompt as sharegpt turns, and each reply as one turn, every
// value a string as in LFExample (so datasets 4.0.0's Arrow loading
// gives the line back as it is).
type LFPair struct {
	Conversations []LFTurn `json:"conversations"`
	Chosen        LFTurn   `json:"chosen"`
	Rejected      LFTurn   `json:"rejected"`
	// Tools is the JSON list of the tool definitions, as a string; ""
	// when no message of the pair holds a call.
	Tools string `json:"tools"`
}

// LlamaFactoryPair writes a pair (see Pairs) in LLaMA-Factory's sharegpt
// preference layout: the prompt's messages as LlamaFactory writes an
// episode's, and each completion, one assistant message, as a gpt or
// function_call turn. Its error is errUnrenderable for a message
// lfAssistant cannot write. LLaMA-Factory renders prompt and reply apart
// (its own template, chosen by its config, with its own thinking
// setting), so the pair's chat_template_kwargs are not written.
func LlamaFactoryPair(ex DPOExample) (LFPair, error) {
	var p LFPair
	var err error
	if p.Conversations, err = lfTurns(ex.Prompt); err != nil {
		return LFPair{}, err
	}
	if p.Chosen, err = lfAssistant(ex.Chosen[0]); err != nil {
		return LFPair{}, err
	}
	if p.Rejected, err = lfAssistant(ex.Rejected[0]); err != nil {
		return LFPair{}, err
	}
	if len(ex.Tools) > 0 {
		b, _ := json.Marshal(ex.Tools)
		p.Tools = string(b)
	}
	return p, nil
}

// DatasetInfoPairsEntry describes a dpo file of the llamafactory target,
// named fileName in its folder: DatasetInfoEntry's sharegpt layout, with
// "ranking": true and the chosen and rejected columns.
func DatasetInfoPairsEntry(fileName string) DatasetInfo {
	e := DatasetInfoEntry(fileName)
	e.Ranking = true
	e.Columns = maps.Clone(e.Columns)
	e.Columns["chosen"], e.Columns["rejected"] = "chosen", "rejected"
	return e
}

// DatasetInfoFor is the dataset_info.json entry of a file of the
// llamafactory target in format (sft or dpo).
func DatasetInfoFor(format, fileName string) DatasetInfo {
	if format == FormatDPO {
		return DatasetInfoPairsEntry(fileName)
	}
	return DatasetInfoEntry(fileName)
}
