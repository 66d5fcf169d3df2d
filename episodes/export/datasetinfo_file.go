package export

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// DatasetInfoUpdate is the dataset_info.json that describes the file out
// (of the llamafactory target, in format) to LLaMA-Factory: the file
// beside out (path), read when it is there, with the entry of out's name
// without its extension (name) set (MergeDatasetInfo), for the caller to
// write.
func DatasetInfoUpdate(out, format string) (path, name string, merged []byte, err error) {
	path = filepath.Join(filepath.Dir(out), DatasetInfoFile)
	existing, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return path, "", nil, err
	}
	base := filepath.Base(out)
	name = strings.TrimSuffix(base, filepath.Ext(base))
	merged, err = MergeDatasetInfo(existing, name, DatasetInfoFor(format, base))
	if err != nil {
		return path, name, nil, fmt.Errorf("%s: %w", path, err)
	}
	return path, name, merged, nil
}
