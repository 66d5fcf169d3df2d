package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/schemas"
)

const (
	callOpen  = "<tool_call>"
	callClose = "</tool_call>"
)

// hermesExpected ends every hermes format error.
const hermesExpected = `Expected <tool_call>{"name": "<tool>", "arguments": {...}}</tool_call>, with the arguments as a JSON object.`

// parseHermes reads the first call of text (see hermesBlocks); extra
// counts the blocks after it.
func parseHermes(text string) (Call, int, *schemas.ToolError) {
	blocks, _, unclosed := hermesBlocks(text)
	if len(blocks) == 0 {
		return Call{}, 0, noHermesCall(unclosed)
	}
	c, err := decodeHermesCall(stripFence(blocks[0]))
	return c, len(blocks) - 1, err
}

// noHermesCall is the format error of a text that holds no <tool_call>.
func noHermesCall(unclosed bool) *schemas.ToolError {
	err := formatError("no tool call found. %s", hermesExpected)
	if unclosed {
		err.Message = unclosedThink + err.Message
	}
	return err
}

// hermesTurn reads every <tool_call> block of text, in order, each a call
// or the format error that says why it is not one, and the text outside
// the blocks.
func hermesTurn(text string) (Turn, *schemas.ToolError) {
	blocks, content, unclosed := hermesBlocks(text)
	if len(blocks) == 0 {
		return Turn{}, noHermesCall(unclosed)
	}
	t := Turn{Content: content, Calls: make([]ParsedCall, len(blocks))}
	for i, b := range blocks {
		t.Calls[i].Call, t.Calls[i].Err = decodeHermesCall(stripFence(b))
	}
	return t, nil
}

// hermesBlocks returns the bodies of the <tool_call> blocks of text that
// are outside <think>...</think> (text before a </think> with no <think>
// before it is a block that began in the prompt), in order, and the text
// outside the call blocks, think blocks included, trimmed. White space
// and a markdown fence around a block's JSON are the decoder's; a missing
// </tool_call> is allowed at the very end of the text (the stop token ate
// it) or before the next <tool_call> or <think>. unclosed reports a
// <think> that never closes: everything after it is reasoning.
func hermesBlocks(text string) (blocks []string, content string, unclosed bool) {
	var out strings.Builder
	if i := strings.Index(text, thinkClose); i >= 0 && !strings.Contains(text[:i], thinkOpen) {
		out.WriteString(text[:i+len(thinkClose)])
		text = text[i+len(thinkClose):]
	}
	for text != "" {
		c, t := strings.Index(text, callOpen), strings.Index(text, thinkOpen)
		switch {
		case t >= 0 && (c < 0 || t < c):
			j := strings.Index(text[t:], thinkClose)
			if j < 0 {
				out.WriteString(text)
				return blocks, strings.TrimSpace(out.String()), true
			}
			out.WriteString(text[:t+j+len(thinkClose)])
			text = text[t+j+len(thinkClose):]
		case c < 0:
			out.WriteString(text)
			text = ""
		default:
			out.WriteString(text[:c])
			var body string
			body, text = cutCall(text[c+len(callOpen):], callClose, nextHermesOpen)
			blocks = append(blocks, body)
		}
	}
	return blocks, strings.TrimSpace(out.String()), false
}

// nextHermesOpen finds where an unclosed call's body ends: at the next
// <tool_call> or <think>; -1 for neither.
func nextHermesOpen(s string) int {
	c, t := strings.Index(s, callOpen), strings.Index(s, thinkOpen)
	if c < 0 || (t >= 0 && t < c) {
		return t
	}
	return c
}

// cutCall splits the text after an opening tag into the call's body and
// the rest after its closing tag. With no closing tag, the body ends at
// the next opening tag (nextOpen finds it, -1 for none) or at the end of
// the text, less any start of the closing tag a stop string left there.
func cutCall(after, closeTag string, nextOpen func(string) int) (body, rest string) {
	end := strings.Index(after, closeTag)
	closed := end >= 0
	if !closed {
		end = len(after)
	}
	if k := nextOpen(after[:end]); k >= 0 {
		return after[:k], after[k:]
	}
	if closed {
		return after[:end], after[end+len(closeTag):]
	}
	for n := len(closeTag) - 1; n >= 2; n-- {
		if strings.HasSuffix(after, closeTag[:n]) {
			return after[:len(after)-n], ""
		}
	}
	return after, ""
}

// hermesCall is the JSON inside <tool_call>. Some templates name the
// arguments "parameters"; either key is read.
type hermesCall struct {
	Name       *string         `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
	Parameters json.RawMessage `json:"parameters"`
}

func decodeHermesCall(body string) (Call, *schemas.ToolError) {
	if body == "" {
		return Call{}, formatError("the <tool_call> is empty. %s", hermesExpected)
	}
	dec := json.NewDecoder(strings.NewReader(body))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return Call{}, formatError("the <tool_call> does not hold valid JSON (%s). %s", jsonProblem(err, body), hermesExpected)
	}
	if tail := strings.TrimSpace(body[dec.InputOffset():]); tail != "" {
		return Call{}, formatError("the <tool_call> holds text after its JSON object: %q. %s", clip(tail, 40), hermesExpected)
	}
	if raw[0] != '{' {
		return Call{}, formatError("the <tool_call> holds a JSON %s, not an object. %s", jsonKind(raw), hermesExpected)
	}
	var hc hermesCall
	if err := json.Unmarshal(raw, &hc); err != nil || hc.Name == nil {
		return Call{}, formatError("the call needs a \"name\" string. %s", hermesExpected)
	}
	name := strings.TrimSpace(*hc.Name)
	if name == "" {
		return Call{}, formatError("the call's \"name\" is empty. %s", hermesExpected)
	}
	args := hc.Arguments
	if len(args) == 0 {
		args = hc.Parameters
	}
	return Call{Name: name, Arguments: unwrapArgs(args)}, nil
}

// UnwrapArgs turns arguments given as a JSON string holding an object
// (the OpenAI shape) into the object itself, without the white space
// around it; anything else is returned as it is, for Decode to judge.
func UnwrapArgs(raw json.RawMessage) json.RawMessage { return unwrapArgs(raw) }

func unwrapArgs(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return raw
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return raw
	}
	inner := bytes.TrimSpace([]byte(s))
	if len(inner) > 0 && inner[0] == '{' && json.Valid(inner) {
		return inner
	}
	return raw
}

// jsonProblem describes a JSON decoding error, with where it happened.
func jsonProblem(err error, body string) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		at := int(se.Offset)
		from := max(0, at-20)
		return se.Error() + " near " + strconv.Quote(body[from:min(at, len(body))])
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "the JSON ends before its object is closed"
	}
	return err.Error()
}
