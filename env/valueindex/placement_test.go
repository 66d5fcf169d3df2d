package valueindex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckOutside: an index directory inside a dataset's directory is
// refused, whether given directly, through a symbolic link on either
// side, or not made yet; a sibling whose name only starts like the
// dataset's is not inside it.
func TestCheckOutside(t *testing.T) {
	root := t.TempDir()
	dataset := filepath.Join(root, "spider")
	if err := os.MkdirAll(filepath.Join(dataset, "database", "world_1"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(filepath.Join(dataset, "database"), link); err != nil {
		t.Fatal(err)
	}
	dsLink := filepath.Join(root, "dslink")
	if err := os.Symlink(dataset, dsLink); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, dir, dataset string
		inside             bool
	}{
		{"the dataset itself", dataset, dataset, true},
		{"inside it", filepath.Join(dataset, "database", "world_1"), dataset, true},
		{"not made yet", filepath.Join(dataset, "database", "new", "deeper"), dataset, true},
		{"through a link", filepath.Join(link, "world_1"), dataset, true},
		{"through a link, not made yet", filepath.Join(link, "new"), dataset, true},
		{"the dataset named through a link", filepath.Join(dataset, "database"), dsLink, true},
		{"relative to it", filepath.Join(dataset, "database", "..", "x"), dataset, true},
		{"a sibling", filepath.Join(root, "spider-index"), dataset, false},
		{"its parent", root, dataset, false},
	} {
		err := CheckOutside(tt.dir, []string{filepath.Join(root, "other"), tt.dataset})
		switch {
		case tt.inside && (err == nil || !strings.Contains(err.Error(), "inside "+tt.dataset)):
			t.Errorf("%s: CheckOutside(%s) = %v, want an error naming %s", tt.name, tt.dir, err, tt.dataset)
		case !tt.inside && err != nil:
			t.Errorf("%s: CheckOutside(%s) = %v, want nil", tt.name, tt.dir, err)
		}
	}
}
