package testsuite

import "github.com/sqlgym/sqlgym/env"

// Golds returns the distinct gold queries of each database of ds, by
// db_id, in the order of their first task; tasks given as rows have none.
// A database without a gold query is left out.
func Golds(ds *env.Dataset) map[string][]string {
	out := map[string][]string{}
	seen := map[[2]string]bool{}
	for i := range ds.Tasks {
		t := &ds.Tasks[i]
		key := [2]string{t.DBID, t.GoldSQL}
		if t.GoldSQL == "" || seen[key] {
			continue
		}
		seen[key] = true
		out[t.DBID] = append(out[t.DBID], t.GoldSQL)
	}
	return out
}
