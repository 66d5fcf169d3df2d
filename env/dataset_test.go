package env

import "testing"

func TestFindTask(t *testing.T) {
	a := &Dataset{Name: "a", Tasks: []Task{{ID: "a/1", DBID: "x"}}, DBs: map[string]string{"x": "x.sqlite"}}
	b := &Dataset{Name: "b", Tasks: []Task{{ID: "a/1", DBID: "y"}}, DBs: map[string]string{"y": "y.sqlite"}}
	for _, d := range []*Dataset{a, b} {
		if err := d.Index(); err != nil {
			t.Fatal(err)
		}
	}
	ds, task, ok := FindTask([]*Dataset{a, b}, "b", "a/1")
	if !ok || ds != b || task.DBID != "y" {
		t.Errorf("FindTask(b, a/1) = %v, %+v, %v; want dataset b's task on y", ds, task, ok)
	}
	if _, _, ok := FindTask([]*Dataset{a, b}, "c", "a/1"); ok {
		t.Error("FindTask found a task in a dataset not given")
	}
}
