package testsuite

import (
	"strings"
	"testing"
)

// statuses are two datasets: one whole, one with a stale and a missing
// database.
var statuses = []Status{
	{Dataset: "a", Current: []string{"x", "y"}, Tasks: 5, Covered: 5},
	{Dataset: "b", Current: []string{"z"}, Stale: []Stale{{DBID: "w", Why: "its golds changed"}}, Missing: []string{"v"}, Tasks: 9, Covered: 4},
}

// TestWriteStatus: a line per dataset, then one per stale and missing
// database.
func TestWriteStatus(t *testing.T) {
	var b strings.Builder
	WriteStatus(&b, statuses)
	want := "a: 5 of 5 tasks have a test suite; databases: 2 current, 0 stale, 0 missing\n" +
		"b: 4 of 9 tasks have a test suite; databases: 1 current, 1 stale, 1 missing\n" +
		"  stale w: its golds changed\n  missing v\n"
	if b.String() != want {
		t.Errorf("status:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestDescribe: each dataset's figures, the tasks covered in all, and
// the datasets lacking a current suite; none lacking says nothing.
func TestDescribe(t *testing.T) {
	said, covered, missing := Describe(statuses)
	if want := "a 2 of 2 databases, 5 of 5 tasks; b 1 of 3 databases, 4 of 9 tasks, 1 stale (w: its golds changed)"; said != want {
		t.Errorf("said %q, want %q", said, want)
	}
	if covered != 9 || missing != "no current test suite for every database of b" {
		t.Errorf("covered %d, missing %q", covered, missing)
	}
	if _, covered, missing := Describe(statuses[:1]); covered != 5 || missing != "" {
		t.Errorf("a whole dataset: covered %d, missing %q", covered, missing)
	}
}
