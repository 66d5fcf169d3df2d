package sandbox

import (
	"fmt"
	"strings"
)

// SplitSource splits a server engine's database source, "URL#NAME", at
// its last '#': NAME is the schema or database of one task, URL the
// server's (which keeps a '#' of its own escaped as %23). form is the
// source's written form and what the name's kind, for the errors:
// ("postgres://URL#SCHEMA", "schema").
func SplitSource(s, form, what string) (url, name string, err error) {
	i := strings.LastIndexByte(s, '#')
	if i < 0 {
		return "", "", fmt.Errorf("want %s: no %s after '#'", form, what)
	}
	if s[i+1:] == "" {
		return "", "", fmt.Errorf("want %s: empty %s", form, what)
	}
	return s[:i], s[i+1:], nil
}
