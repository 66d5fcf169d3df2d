//go:build !unix

package transport

// OpenFileLimit reports that the limit on open files is not known on
// this system.
func OpenFileLimit() (int, bool) { return 0, false }
