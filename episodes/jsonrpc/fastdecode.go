package jsonrpc

import (
	"encoding/json"

	"github.com/sqlgym/sqlgym/base/jsonscan"
	"github.com/sqlgym/sqlgym/schemas"
)

// Nearly every frame is a lone request, and most are an episode.step
// whose params are an episode id and a tool call or a text. The readers
// here decode those shapes, and episode.reset's, with the scanner instead
// of encoding/json (which scans the frame twice, then its params twice
// more through a strict decoder, all by reflection). They take only what
// encoding/json would accept and decode it to the same values; anything
// else (an unknown or repeated field, a null, a number that is not a
// small integer, an escaped key) they leave to encoding/json, so every
// error keeps its wording. A reader that returns false may have filled
// part of its result: the caller drops it.

// scanner is jsonscan's, with readers into the fields of the shapes.
type scanner struct{ jsonscan.Scanner }

// newScanner returns a scanner at the start of raw.
func newScanner(raw []byte) scanner { return scanner{jsonscan.New(raw)} }

// fastRequest reads a request object. Its ID and Params are slices of
// raw, as the caller keeps raw for as long as the request.
func fastRequest(raw []byte) (schemas.Request, bool) {
	var r schemas.Request
	s := newScanner(raw)
	ok := s.Members(requestFields, func(name string) bool {
		switch name {
		case "jsonrpc":
			return s.text(&r.JSONRPC)
		case "id":
			return s.raw(&r.ID)
		case "method":
			return s.text(&r.Method)
		}
		return s.raw(&r.Params)
	})
	return r, ok && s.End()
}

// The fields of each shape, as their json tags name them.
var (
	requestFields = []string{"jsonrpc", "id", "method", "params"}
	stepFields    = []string{"episode_id", "action", "usage", "finish_reason", "turn"}
	actionFields  = []string{"tool", "arguments", "text", "message"}
	usageFields   = []string{"completion_tokens", "prompt_tokens"}
	resetFields   = []string{"task_id", "dataset", "seed", "max_turns", "action_format", "reward", "tags", "tools", "descriptions", "prompt_style"}
	closeFields   = []string{"episode_id"}
)

// fastStep reads the params of episode.step.
func fastStep(raw []byte) (schemas.StepParams, bool) {
	var p schemas.StepParams
	s := newScanner(raw)
	ok := s.Members(stepFields, func(name string) bool {
		switch name {
		case "episode_id":
			return s.text(&p.EpisodeID)
		case "action":
			return s.action(&p.Action)
		case "finish_reason":
			return s.text(&p.FinishReason)
		case "turn":
			return s.int(&p.Turn)
		}
		p.Usage = new(schemas.Usage)
		return s.Members(usageFields, func(name string) bool {
			if name == "prompt_tokens" {
				return s.int(&p.Usage.PromptTokens)
			}
			return s.int(&p.Usage.CompletionTokens)
		})
	})
	return p, ok && s.End()
}

// action reads a tool call or a text. A message (its nullable content,
// its calls' arguments kept as sent) is left to encoding/json.
func (s *scanner) action(a *schemas.Action) bool {
	return s.Members(actionFields, func(name string) bool {
		switch name {
		case "tool":
			return s.text(&a.Tool)
		case "arguments":
			return s.rawCopy(&a.Arguments)
		case "message":
			return false
		}
		a.Text = new(string)
		return s.text(a.Text)
	})
}

// fastReset reads the params of episode.reset.
func fastReset(raw []byte) (schemas.ResetParams, bool) {
	var p schemas.ResetParams
	s := newScanner(raw)
	ok := s.Members(resetFields, func(name string) bool {
		switch name {
		case "task_id":
			return s.text(&p.TaskID)
		case "dataset":
			return s.text(&p.Dataset)
		case "seed":
			p.Seed = new(int64)
			return s.int64(p.Seed)
		case "max_turns":
			p.MaxTurns = new(int)
			return s.int(p.MaxTurns)
		case "action_format":
			return s.text(&p.ActionFormat)
		case "reward":
			return s.rawCopy(&p.Reward)
		case "tags":
			return s.rawCopy(&p.Tags)
		case "tools":
			return s.strings(&p.Tools)
		case "prompt_style":
			return s.text(&p.PromptStyle)
		}
		p.Descriptions = new(bool)
		return s.bool(p.Descriptions)
	})
	return p, ok && s.End()
}

// fastClose reads the params of episode.close and episode.get.
func fastClose(raw []byte) (schemas.CloseParams, bool) {
	var p schemas.CloseParams
	s := newScanner(raw)
	ok := s.Members(closeFields, func(string) bool { return s.text(&p.EpisodeID) })
	return p, ok && s.End()
}

// text reads a string into *dst.
func (s *scanner) text(dst *string) bool {
	var ok bool
	*dst, ok = s.TextIn(internedWords)
	return ok
}

// raw reads any value into *dst, as a slice of the scanner's bytes.
func (s *scanner) raw(dst *json.RawMessage) bool {
	var ok bool
	*dst, ok = s.RawValue()
	return ok
}

// rawCopy reads any value into a RawMessage of its own: the caller keeps
// it past the frame (a step's arguments, a reset's tags).
func (s *scanner) rawCopy(dst *json.RawMessage) bool {
	b, ok := s.RawValue()
	*dst = append(json.RawMessage(nil), b...)
	return ok
}

// int64 reads an integer into *dst.
func (s *scanner) int64(dst *int64) bool {
	var ok bool
	*dst, ok = s.Integer()
	return ok
}

// int reads an integer that fits an int into *dst.
func (s *scanner) int(dst *int) bool {
	n, ok := s.Integer()
	*dst = int(n)
	return ok && int64(*dst) == n
}

// bool reads true or false into *dst.
func (s *scanner) bool(dst *bool) bool {
	switch s.Peek() {
	case 't':
		*dst = true
		return s.Literal("true")
	case 'f':
		*dst = false
		return s.Literal("false")
	}
	return false
}

// strings reads an array of strings into *dst; [] is an empty slice, not
// nil, as encoding/json makes it.
func (s *scanner) strings(dst *[]string) bool {
	*dst = []string{}
	return s.List('[', ']', func() bool {
		v, ok := s.TextIn(internedWords)
		*dst = append(*dst, v)
		return ok
	})
}

// internedWords are the words most frames hold: the protocol version,
// method names and tool names.
var internedWords = []string{"2.0", schemas.MethodStep, schemas.MethodReset, schemas.MethodClose, schemas.MethodEpisodeGet,
	schemas.MethodServerInfo, schemas.MethodTasksList, schemas.ToolExecuteSQL, schemas.ToolSubmit, schemas.ToolInspectSchema,
	schemas.ToolSearchValues, schemas.ToolDescribeColumn}
