package valueindex

import (
	"fmt"
	"io/fs"
)

// notRegularError is the error of an index path that holds something
// other than a regular file (kind says what), or that cannot be looked
// at (err).
type notRegularError struct {
	path, kind string
	err        error
}

func (e *notRegularError) Error() string {
	if e.err != nil {
		return fmt.Sprintf("value index: %v", e.err)
	}
	return fmt.Sprintf("value index: %s is %s, not a regular file: only regular files are opened as index files; remove it, or choose another --value-index-dir",
		e.path, e.kind)
}

func (e *notRegularError) Unwrap() error { return e.err }

// fileKind names what a file mode says a path holds.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file (" + m.Type().String() + ")"
}
