package testsuite

import (
	"fmt"
	"io"
	"strings"
)

// WriteStatus writes, for each dataset, how many of its tasks have a
// suite and how many of its databases' suites are current, stale (and
// why) or missing.
func WriteStatus(w io.Writer, sts []Status) {
	for _, st := range sts {
		fmt.Fprintf(w, "%s: %d of %d tasks have a test suite; databases: %d current, %d stale, %d missing\n",
			st.Dataset, st.Covered, st.Tasks, len(st.Current), len(st.Stale), len(st.Missing))
		for _, s := range st.Stale {
			fmt.Fprintf(w, "  stale %s: %s\n", s.DBID, s.Why)
		}
		for _, m := range st.Missing {
			fmt.Fprintf(w, "  missing %s\n", m)
		}
	}
}

// Describe says in one line what a store holds of each dataset (its
// databases with a current suite, the tasks covered, the first stale
// database and why), how many tasks the suites cover in all, and, when
// some dataset lacks a current suite for a database, which ("" when none
// does).
func Describe(sts []Status) (said string, covered int, missing string) {
	var parts, lacking []string
	for _, st := range sts {
		dbs := len(st.Current) + len(st.Stale) + len(st.Missing)
		part := fmt.Sprintf("%s %d of %d databases, %d of %d tasks", st.Dataset, len(st.Current), dbs, st.Covered, st.Tasks)
		if len(st.Stale) > 0 {
			part += fmt.Sprintf(", %d stale (%s: %s)", len(st.Stale), st.Stale[0].DBID, st.Stale[0].Why)
		}
		parts = append(parts, part)
		covered += st.Covered
		if len(st.Current) < dbs {
			lacking = append(lacking, st.Dataset)
		}
	}
	if len(lacking) > 0 {
		missing = "no current test suite for every database of " + strings.Join(lacking, ", ")
	}
	return strings.Join(parts, "; "), covered, missing
}
