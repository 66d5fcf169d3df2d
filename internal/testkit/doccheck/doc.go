// Package doccheck holds tests of the project's Markdown documents: every
// relative link resolves to a file, every bare file name (protocol.md)
// names a document that exists, and the Go version the README asks for
// is the one go.mod requires. It has no code of its own.
package doccheck
