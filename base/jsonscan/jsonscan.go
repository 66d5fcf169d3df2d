// Package jsonscan reads JSON in one pass over the bytes, without
// reflection, for the hot paths that decode a few known shapes: a
// JSON-RPC request and its params, a tool's sole "sql" argument, the
// shape of a trajectory log line. Every method reports whether it read
// what it was asked to; false means "not handled here", never "invalid":
// the caller then decodes with encoding/json, which accepts or refuses
// the input and words the error, so each caller's errors stay
// encoding/json's. The scanner may thus refuse anything it is unsure of,
// but whatever it accepts must be valid JSON that encoding/json decodes
// to the same values (FuzzScanner checks both). It imports only the
// standard library.
package jsonscan

import (
	"encoding/binary"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Scanner reads JSON from a byte slice, left to right. Its zero value
// reads nothing; New gives one over b.
type Scanner struct {
	b []byte
	i int
}

// New returns a scanner at the start of b.
func New(b []byte) Scanner { return Scanner{b: b} }

// Pos is the offset of the next byte to read.
func (s *Scanner) Pos() int { return s.i }

// maxScanDepth bounds the objects and arrays open at once in a value the
// scanner skips; deeper values take encoding/json's path, which has its
// own bound.
const maxScanDepth = 64

// Space skips JSON white space.
func (s *Scanner) Space() {
	i := s.i
	for i < len(s.b) && s.b[i] <= ' ' && (s.b[i] == ' ' || s.b[i] == '\t' || s.b[i] == '\n' || s.b[i] == '\r') {
		i++
	}
	s.i = i
}

// Byte reads c, after white space.
func (s *Scanner) Byte(c byte) bool {
	s.Space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// Peek returns the next byte after white space, or 0 at the end.
func (s *Scanner) Peek() byte {
	s.Space()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// End reports whether only white space is left.
func (s *Scanner) End() bool {
	s.Space()
	return s.i == len(s.b)
}

// Object reads an object, calling field with each key (its raw bytes,
// between the quotes) once the scanner stands before the key's value;
// field must read the value. Keys must be plain ASCII with no escape:
// matching any other key as encoding/json does takes Unicode case
// folding, left to it.
func (s *Scanner) Object(field func(key []byte) bool) bool {
	return s.List('{', '}', func() bool {
		key, ok := s.Key()
		return ok && s.Byte(':') && field(key)
	})
}

// List reads an object or an array: the opening byte, items separated by
// commas, each read by item, and the closing byte.
func (s *Scanner) List(opening, closing byte, item func() bool) bool {
	if !s.Byte(opening) {
		return false
	}
	if s.Peek() == closing {
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

// Key reads an object key made of printable ASCII with no escape.
func (s *Scanner) Key() ([]byte, bool) {
	if !s.Byte('"') {
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

// Members reads an object whose keys are among names (at most 32),
// matched as encoding/json matches them, each at most once
// (encoding/json merges a repeated object into the first: that is left
// to it). It calls read with the name of each key, standing before the
// key's value; read must read the value. An unknown key is not read: a
// strict decoder refuses it.
func (s *Scanner) Members(names []string, read func(name string) bool) bool {
	var seen uint32
	return s.Object(func(key []byte) bool {
		for n, name := range names {
			if KeyIs(key, name) {
				if seen&(1<<n) != 0 {
					return false
				}
				seen |= 1 << n
				return read(name)
			}
		}
		return false
	})
}

// KeyIs reports whether key names a field called name, as encoding/json
// matches them for an ASCII key: the exact name, or one differing in the
// case of ASCII letters.
func KeyIs(key []byte, name string) bool {
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

// StringBody reads a JSON string and returns its bytes between the
// quotes, and whether they hold an escape.
func (s *Scanner) StringBody() ([]byte, bool, bool) {
	if !s.Byte('"') {
		return nil, false, false
	}
	start, escaped := s.i, false
	for {
		s.i = plainRun(s.b, s.i)
		if s.i == len(s.b) {
			return nil, false, false
		}
		switch s.b[s.i] {
		case '"':
			s.i++
			return s.b[start : s.i-1], escaped, true
		case '\\':
			if !s.escape() {
				return nil, false, false
			}
			escaped = true
		default: // a control character
			return nil, false, false
		}
	}
}

// plainRun returns the offset of the first byte at or after i that ends
// a run of a string's plain bytes: a quote, a backslash or a control
// character (len(b) when none does). Long strings (a trajectory line's
// observations) pass eight bytes at a time: a word is skipped whole when
// none of its bytes is below 0x20, a quote or a backslash (each test is
// the classic "has a zero byte" bit trick; a byte at or above 0x80 never
// passes it).
func plainRun(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		q, bs := x^(ones*'"'), x^(ones*'\\')
		if ((x-ones*0x20)&^x|(q-ones)&^q|(bs-ones)&^bs)&highs != 0 {
			break
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

// escape reads one escape sequence of a string, standing on its
// backslash.
func (s *Scanner) escape() bool {
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

// Text reads a string value as encoding/json decodes it into a string.
func (s *Scanner) Text() (string, bool) { return s.TextIn(nil) }

// TextIn is Text that returns the string of words equal to the value,
// when one is, instead of allocating a copy: the words most frames hold.
func (s *Scanner) TextIn(words []string) (string, bool) {
	body, escaped, ok := s.StringBody()
	switch {
	case !ok:
		return "", false
	case !escaped && utf8.Valid(body):
		for _, w := range words {
			if string(body) == w {
				return w, true
			}
		}
		return string(body), true
	}
	return Unquote(body), true
}

// Unquote decodes the body of a string the scanner has checked, as
// encoding/json does: escapes resolved, a lone or broken surrogate and
// each byte of invalid UTF-8 replaced by U+FFFD.
func Unquote(body []byte) string {
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

// RawValue reads any JSON value and returns its bytes, from its first
// byte to its last.
func (s *Scanner) RawValue() ([]byte, bool) {
	s.Space()
	start := s.i
	if !s.Skip() {
		return nil, false
	}
	return s.b[start:s.i], true
}

// Skip reads any JSON value, checking it is valid, with at most
// maxScanDepth objects and arrays open at once. It runs as one loop over
// the bytes, the open containers' kinds kept as bits, so that a large
// value (a trajectory line's record) costs no call per token.
func (s *Scanner) Skip() bool {
	var objects uint64 // bit d is set when the container open at depth d is an object
	depth := 0
value:
	for {
		switch c := s.Peek(); c {
		case '{', '[':
			if depth == maxScanDepth {
				return false
			}
			s.i++
			objects &^= 1 << depth
			if c == '{' {
				objects |= 1 << depth
			}
			depth++
			if s.Peek() == closer(c == '{') {
				s.i++
				depth--
				break
			}
			if c == '{' && !s.memberKey() {
				return false
			}
			continue value
		case '"':
			if _, _, ok := s.StringBody(); !ok {
				return false
			}
		case 't', 'f', 'n':
			if !s.Literal("true") && !s.Literal("false") && !s.Literal("null") {
				return false
			}
		default:
			if !s.Number() {
				return false
			}
		}
		for depth > 0 {
			object := objects&(1<<(depth-1)) != 0
			switch s.Peek() {
			case ',':
				s.i++
				if object && !s.memberKey() {
					return false
				}
				continue value
			case closer(object):
				s.i++
				depth--
			default:
				return false
			}
		}
		return true
	}
}

// closer is the byte that closes an object, or an array.
func closer(object bool) byte {
	if object {
		return '}'
	}
	return ']'
}

// memberKey reads an object member's key, any string, and its colon.
func (s *Scanner) memberKey() bool {
	_, _, ok := s.StringBody()
	return ok && s.Byte(':')
}

// more reads what follows a member of an object or an element of an
// array: a comma (more is true) or the closing byte (ok is true).
func (s *Scanner) more(closing byte) (more, ok bool) {
	switch s.Peek() {
	case ',':
		s.i++
		return true, true
	case closing:
		s.i++
		return false, true
	}
	return false, false
}

// Literal reads the word true, false or null.
func (s *Scanner) Literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// Number reads a JSON number.
func (s *Scanner) Number() bool {
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

// Integer reads a number written as an integer of at most 18 digits, so
// that it fits an int64 whatever they are; any other number, or one that
// is not JSON, is not read.
func (s *Scanner) Integer() (int64, bool) {
	s.Space()
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
func (s *Scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

// at reports whether the next byte, white space included, is c.
func (s *Scanner) at(c byte) bool { return s.i < len(s.b) && s.b[s.i] == c }

// SoleString returns the string b holds when b is an object of exactly
// one member, spelled name (another spelling is not handled here), whose
// value is a JSON string, with any white space around the tokens: the
// arguments of nearly every tool call, {"sql": "..."}.
func SoleString(b []byte, name string) (string, bool) {
	s := New(b)
	var text string
	members := 0
	ok := s.Object(func(key []byte) bool {
		members++
		if members > 1 || string(key) != name {
			return false
		}
		var ok bool
		text, ok = s.Text()
		return ok
	})
	return text, ok && members == 1 && s.End()
}
