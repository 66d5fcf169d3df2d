package testsuite

import (
	"fmt"
	"path/filepath"
)

// ManifestName is the manifest's file name in a source database's folder.
const ManifestName = "manifest.json"

// Dir is the folder of the suites of the database db_id of a dataset.
func Dir(root, dataset, dbID string) string { return filepath.Join(root, dataset, dbID) }

// ManifestPath is the path of the manifest in the folder of the database
// db_id of a dataset.
func ManifestPath(root, dataset, dbID string) string {
	return filepath.Join(Dir(root, dataset, dbID), ManifestName)
}

// DBName is the name of the database kept as candidate i: "ts-0007". Names
// follow the candidate index, so a database keeps its name from build to
// build when it is drawn again.
func DBName(candidate int) string { return fmt.Sprintf("ts-%04d", candidate) }

// FileName is the file of the SQLite database kept as candidate i.
func FileName(candidate int) string { return DBName(candidate) + ".sqlite" }

// SuiteDataset is the name of the synthetic dataset under which a
// dataset's suite databases are opened through the catalog.
func SuiteDataset(dataset string) string { return dataset + "~suite" }
