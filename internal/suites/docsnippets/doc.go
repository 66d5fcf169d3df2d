// Package docsnippets holds the test that keeps the Python in the
// project's documentation valid: it extracts every ```python block of
// README.md and docs/*.md and compiles each with python3, reporting a
// syntax error at its line in the Markdown file.
package docsnippets
