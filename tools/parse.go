package tools

import (
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym/schemas"
)

// ValidFormat reports whether ParseText knows the action format. The empty
// string is not a format: callers apply their default first.
func ValidFormat(format string) bool {
	return format == schemas.FormatHermes || format == schemas.FormatTags
}

// ParseText parses a model's whole completion in the given action format
// (schemas.FormatHermes or schemas.FormatTags) and returns its first call.
// extra is how many further calls the text held (ParseTurn reads them
// all). Text inside <think> blocks is reasoning and never holds a call.
// Text with no call, or a malformed one, is a ToolError of code
// schemas.ErrCodeFormat whose message says what was expected.
//
// The returned call is not checked against its tool: pass it to Decode.
func ParseText(format, text string) (c Call, extra int, err *schemas.ToolError) {
	switch format {
	case schemas.FormatHermes:
		return parseHermes(text)
	case schemas.FormatTags:
		return parseTagsText(text)
	}
	return Call{}, 0, unknownFormat(format)
}

// Turn is a text action read as one turn of the model: its calls, in
// order, and the text outside them.
type Turn struct {
	Calls []ParsedCall
	// Content is the text outside the call blocks, <think> blocks
	// included, trimmed; "" when there is none. Only the hermes format
	// sets it.
	Content string
	// Extra counts the calls the text held past those in Calls, which do
	// not run (the tags format reads only its first tag; see
	// ExtraCallsNote).
	Extra int
}

// ParsedCall is one call of a Turn, or the format error of a call block
// that could not be read as one.
type ParsedCall struct {
	Call Call
	Err  *schemas.ToolError
}

// ParseTurn parses a model's whole completion as one turn. In the hermes
// format every <tool_call> block is a call, in order: a block that is not
// a readable call is that call's format error, and the others still
// count. In the tags format the first tag is the turn's one call, as
// ParseText reads it. A text with no call at all is a format error of
// the turn.
func ParseTurn(format, text string) (Turn, *schemas.ToolError) {
	switch format {
	case schemas.FormatHermes:
		return hermesTurn(text)
	case schemas.FormatTags:
		c, extra, err := parseTagsText(text)
		if err != nil {
			return Turn{}, err
		}
		return Turn{Calls: []ParsedCall{{Call: c}}, Extra: extra}, nil
	}
	return Turn{}, unknownFormat(format)
}

// parseTagsText reads the first tag of text outside its <think> blocks.
func parseTagsText(text string) (Call, int, *schemas.ToolError) {
	visible, unclosed := outsideThink(text)
	c, extra, err := parseTags(visible)
	if err != nil && unclosed {
		err.Message = unclosedThink + err.Message
	}
	return c, extra, err
}

// unclosedThink opens the format error of a text whose <think> never
// closes.
const unclosedThink = "the <think> block is never closed, so no call was read; close it with </think> first. "

func unknownFormat(format string) *schemas.ToolError {
	return formatError("unknown action format %q: the formats are %s and %s",
		format, schemas.FormatHermes, schemas.FormatTags)
}

// ExtraCallsNote is the line an observation carries when the text held
// further calls after the one that ran; "" when extra is 0.
func ExtraCallsNote(extra int) string {
	switch {
	case extra <= 0:
		return ""
	case extra == 1:
		return "Note: only the first call ran; 1 more call in the same reply was ignored. Make one call per reply."
	}
	return fmt.Sprintf("Note: only the first call ran; %d more calls in the same reply were ignored. Make one call per reply.", extra)
}

func formatError(format string, a ...any) *schemas.ToolError {
	return &schemas.ToolError{Code: schemas.ErrCodeFormat, Message: fmt.Sprintf(format, a...)}
}

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// outsideThink returns text without its <think>...</think> blocks, each
// replaced by a line break so no tag can form across it. A </think> with no
// <think> before it closes a block that began in the prompt (as templates
// that open the thinking themselves do). unclosed reports a <think> that
// never closes; everything after it is dropped.
func outsideThink(text string) (visible string, unclosed bool) {
	if i := strings.Index(text, thinkClose); i >= 0 && !strings.Contains(text[:i], thinkOpen) {
		text = text[i+len(thinkClose):]
	}
	var b strings.Builder
	for {
		i := strings.Index(text, thinkOpen)
		if i < 0 {
			b.WriteString(text)
			return b.String(), false
		}
		b.WriteString(text[:i])
		b.WriteByte('\n')
		text = text[i+len(thinkOpen):]
		j := strings.Index(text, thinkClose)
		if j < 0 {
			return b.String(), true
		}
		text = text[j+len(thinkClose):]
	}
}

// stripFence removes a markdown code fence around s (```sql ... ```), and
// the white space around what is left.
func stripFence(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "```") {
		return s
	}
	body := s[3:]
	if nl := strings.IndexByte(body, '\n'); nl >= 0 && isWord(strings.TrimSpace(body[:nl])) {
		body = body[nl+1:]
	}
	body = strings.TrimSpace(body)
	body = strings.TrimSuffix(body, "```")
	return strings.TrimSpace(body)
}

// isWord reports whether s is empty or a fence's language name.
func isWord(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '+') {
			return false
		}
	}
	return true
}
