package rpc

import (
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// scanner reads the few JSON shapes of the hot requests in one pass over
// the bytes, without reflection. Every method reports whether it read
// what it was asked to; false means "not handled here", never "invalid":
// the caller then decodes with encoding/json, which accepts or refuses
// the input and words the error. So the scanner may refuse anything it is
// unsure of, but whatever it accepts must be valid JSON that
// encoding/json decodes to the same values (the fuzz tests of
// fastdecode_test.go check both).
type scanner struct {
	b []byte
	i int
}

// maxScanDepth bounds the nesting of a value the scanner skips; deeper
// values take encoding/json's path, which has its own bound.
const maxScanDepth = 64

// space skips JSON white space.
func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// byte reads c, after white space.
func (s *scanner) byte(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// peek returns the next byte after white space, or 0 at the end.
func (s *scanner) peek() byte {
	s.space()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// end reports whether only white space is left.
func (s *scanner) end() bool {
	s.space()
	return s.i == len(s.b)
}

// object reads an object, calling field with each key (its raw bytes,
// between the quotes) once the scanner stands before the key's value;
// field must read the value. Keys must be plain ASCII with no escape:
// matching any other key as encoding/json does takes Unicode case
// folding, left to it.
func (s *scanner) object(field func(key []byte) bool) bool {
	return s.list('{', '}', func() bool {
		key, ok := s.key()
		return ok && s.byte(':') && field(key)
	})
}

// list reads an object or an array: the opening byte, items separated by
// commas, each read by item, and the closing byte.
func (s *scanner) list(opening, closing byte, item func() bool) bool {
	if !s.byte(opening) {
		return false
	}
	if s.peek() == closing {
		s.i++
		return true
	}
	for {
		if !item() {
			return false
		}
		if more, ok := s.more(closing); !more {
			return ok
		}
	}
}

// key reads an object key made of printable ASCII with no escape.
func (s *scanner) key() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return nil, false
		}
	}
	return nil, false
}

// keyIs reports whether key names a field called name, as encoding/json
// matches them for an ASCII key: the exact name, or one differing in the
// case of ASCII letters.
func keyIs(key []byte, name string) bool {
	if len(key) != len(name) {
		return false
	}
	for i := range len(key) {
		if lowerASCII(key[i]) != lowerASCII(name[i]) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// stringBody reads a JSON string and returns its bytes between the
// quotes, and whether they hold an escape.
func (s *scanner) stringBody() ([]byte, bool, bool) {
	if !s.byte('"') {
		return nil, false, false
	}
	start, escaped := s.i, false
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], escaped, true
		case c == '\\':
			if !s.escape() {
				return nil, false, false
			}
			escaped = true
		case c < 0x20:
			return nil, false, false
		default:
			s.i++
		}
	}
	return nil, false, false
}

// escape reads one escape sequence of a string, standing on its
// backslash.
func (s *scanner) escape() bool {
	if s.i+1 >= len(s.b) {
		return false
	}
	switch s.b[s.i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.i += 2
		return true
	case 'u':
		if hex4(s.b[s.i+2:]) < 0 {
			return false
		}
		s.i += 6
		return true
	}
	return false
}

// hex4 returns the value of the four hex digits b starts with, or -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// str reads a string value as encoding/json decodes it into a string.
func (s *scanner) str() (string, bool) {
	body, escaped, ok := s.stringBody()
	switch {
	case !ok:
		return "", false
	case !escaped && utf8.Valid(body):
		return intern(body), true
	}
	return unquote(body), true
}

// unquote decodes the body of a string the scanner has checked, as
// encoding/json does: escapes resolved, a lone or broken surrogate and
// each byte of invalid UTF-8 replaced by U+FFFD.
func unquote(body []byte) string {
	var out strings.Builder
	out.Grow(len(body))
	for r := 0; r < len(body); {
		c := body[r]
		switch {
		case c == '\\':
			r += writeEscape(&out, body[r:])
		case c < utf8.RuneSelf:
			out.WriteByte(c)
			r++
		default:
			rr, size := utf8.DecodeRune(body[r:])
			out.WriteRune(rr)
			r += size
		}
	}
	return out.String()
}

// writeEscape writes what the escape sequence esc starts with stands
// for, and returns how many bytes it took.
func writeEscape(out *strings.Builder, esc []byte) int {
	switch c := esc[1]; c {
	case 'b':
		out.WriteByte('\b')
	case 'f':
		out.WriteByte('\f')
	case 'n':
		out.WriteByte('\n')
	case 'r':
		out.WriteByte('\r')
	case 't':
		out.WriteByte('\t')
	case 'u':
		return writeUnicode(out, esc)
	default: // '"', '\\' or '/'
		out.WriteByte(c)
	}
	return 2
}

// writeUnicode writes the character of a \u escape, or of two that make a
// surrogate pair; U+FFFD for a surrogate that is not part of a pair.
func writeUnicode(out *strings.Builder, esc []byte) int {
	rr := hex4(esc[2:])
	if !utf16.IsSurrogate(rr) {
		out.WriteRune(rr)
		return 6
	}
	if len(esc) >= 8 && esc[6] == '\\' && esc[7] == 'u' {
		if dec := utf16.DecodeRune(rr, hex4(esc[8:])); dec != unicode.ReplacementChar {
			out.WriteRune(dec)
			return 12
		}
	}
	out.WriteRune(unicode.ReplacementChar)
	return 6
}

// rawValue reads any JSON value and returns its bytes, from its first
// byte to its last.
func (s *scanner) rawValue() ([]byte, bool) {
	s.space()
	start := s.i
	if !s.skip(0) {
		return nil, false
	}
	return s.b[start:s.i], true
}

// skip reads any JSON value, checking it is valid, nested at most
// maxScanDepth deep.
func (s *scanner) skip(depth int) bool {
	if depth > maxScanDepth {
		return false
	}
	switch s.peek() {
	case '{':
		return s.list('{', '}', func() bool {
			_, _, ok := s.stringBody()
			return ok && s.byte(':') && s.skip(depth+1)
		})
	case '[':
		return s.list('[', ']', func() bool { return s.skip(depth + 1) })
	case '"':
		_, _, ok := s.stringBody()
		return ok
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	return s.number()
}

// more reads what follows a member of an object or an element of an
// array: a comma (more is true) or the closing byte (ok is true).
func (s *scanner) more(closing byte) (more, ok bool) {
	switch s.peek() {
	case ',':
		s.i++
		return true, true
	case closing:
		s.i++
		return false, true
	}
	return false, false
}

// literal reads the word true, false or null.
func (s *scanner) literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// number reads a JSON number.
func (s *scanner) number() bool {
	if s.at('-') {
		s.i++
	}
	switch {
	case s.at('0'):
		s.i++
	case !s.digits():
		return false
	}
	if s.at('.') {
		s.i++
		if !s.digits() {
			return false
		}
	}
	if s.at('e') || s.at('E') {
		s.i++
		if s.at('+') || s.at('-') {
			s.i++
		}
		return s.digits()
	}
	return true
}

// integer reads a number written as an integer of at most 18 digits, so
// that it fits an int64 whatever they are; any other number, or one that
// is not JSON, is not read.
func (s *scanner) integer() (int64, bool) {
	s.space()
	neg := s.at('-')
	if neg {
		s.i++
	}
	start := s.i
	if !s.digits() {
		return 0, false
	}
	d := s.b[start:s.i]
	if len(d) > 18 || len(d) > 1 && d[0] == '0' || s.at('.') || s.at('e') || s.at('E') {
		return 0, false
	}
	var n int64
	for _, c := range d {
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// digits reads one or more decimal digits.
func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

// at reports whether the next byte, white space included, is c.
func (s *scanner) at(c byte) bool { return s.i < len(s.b) && s.b[s.i] == c }
