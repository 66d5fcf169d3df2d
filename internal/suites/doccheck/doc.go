// Package doccheck holds tests of the project's Markdown documents: every
// relative link resolves to a file, every link to a heading (#anchor, in
// the same document or another) names a heading the target has, every
// bare file name (protocol.md) names a document that exists, and the Go
// version the README asks for is the one go.mod requires. It has no code
// of its own.
package doccheck
