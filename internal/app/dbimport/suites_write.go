package dbimport

import (
	"fmt"
	"os"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/reward/testsuite"
)

// WriteSuites writes the manifests of the suites imp carried under root,
// for the imported dataset served as name (root/name/DB_ID/manifest.json,
// where serve --judge auto finds them). It runs after WriteDataset, which
// may leave out a task whose rows have no JSON form: the manifests list
// the golds of the tasks written, and are keyed by them, so a server
// serving the written dataset finds them current. ds is the SQLite
// dataset imported, in the order of imp.Golds.
func WriteSuites(root, name string, ds *env.Dataset, imp *Imported) error {
	written := map[string]map[string]bool{} // by db_id, the golds of the tasks written
	for i := range ds.Tasks {
		g, t := imp.Golds[i], imp.Report.Tasks[i]
		if g.SQL == "" || (t.Category != Kept && t.Category != Rewritten) {
			continue
		}
		if written[t.DBID] == nil {
			written[t.DBID] = map[string]bool{}
		}
		written[t.DBID][g.SQL] = true
	}
	for _, m := range imp.Suites {
		out := *m
		out.Dataset = name
		out.Golds = nil
		var golds []string
		for _, g := range m.Golds {
			if written[m.DBID][g.SQL] {
				out.Golds = append(out.Golds, g)
				golds = append(golds, g.SQL)
			}
		}
		out.Identity.Golds = testsuite.HashGolds(golds)
		if err := os.MkdirAll(testsuite.Dir(root, name, m.DBID), 0o755); err != nil {
			return fmt.Errorf("write suites: %w", err)
		}
		if err := testsuite.WriteManifest(testsuite.ManifestPath(root, name, m.DBID), &out); err != nil {
			return fmt.Errorf("write suites: %w", err)
		}
	}
	return nil
}
