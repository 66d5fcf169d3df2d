//go:build !unix

package filelog

import (
	"os"
	"path/filepath"
)

// lockDir opens dir/LOCK; where flock is missing, nothing stops a second
// writer.
func lockDir(dir string) (*os.File, error) {
	return os.OpenFile(filepath.Join(dir, "LOCK"), os.O_CREATE|os.O_RDWR, 0o644)
}
