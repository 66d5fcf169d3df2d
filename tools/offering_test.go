package tools

import (
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestOffering: a dataset ByDataset names offers its own set, the others
// the default; Offers sees a tool any set has, Datasets keeps the
// datasets offering it in order.
func TestOffering(t *testing.T) {
	plain, err := NewSet([]string{schemas.ToolExecuteSQL})
	if err != nil {
		t.Fatal(err)
	}
	searching, err := NewSet([]string{schemas.ToolExecuteSQL, schemas.ToolSearchValues})
	if err != nil {
		t.Fatal(err)
	}
	o := Offering{Default: plain, ByDataset: map[string]Set{"b": searching}}
	if !o.For("b").Has(schemas.ToolSearchValues) || o.For("a").Has(schemas.ToolSearchValues) {
		t.Fatalf("For: b %v, a %v", o.For("b").Names(), o.For("a").Names())
	}
	if !o.Offers(schemas.ToolSearchValues) || (Offering{Default: plain}).Offers(schemas.ToolSearchValues) {
		t.Fatal("Offers does not follow the sets")
	}
	dss := []*env.Dataset{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	got := Offering{Default: searching, ByDataset: map[string]Set{"b": plain}}.Datasets(dss, schemas.ToolSearchValues)
	if len(got) != 2 || got[0].Name != "a" || got[1].Name != "c" {
		t.Fatalf("Datasets = %v, want a and c", got)
	}
}
