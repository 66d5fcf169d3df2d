package rewards

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	jsv "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/schemas"
)

func TestNames(t *testing.T) {
	want := []string{"arctic-text2sql-r1", "binary", "default", "retoolsql"}
	if got := Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
}

// TestPresetsValidate: every preset file, as written, is a whole spec
// that the generated reward-spec schema accepts, and loads.
func TestPresetsValidate(t *testing.T) {
	raw, err := schemas.JSONSchema("reward_spec")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsv.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsv.NewCompiler()
	if err := c.AddResource("mem://reward_spec.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("mem://reward_spec.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range Names() {
		file, _ := JSON(name)
		inst, err := jsv.UnmarshalJSON(bytes.NewReader(file))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := sch.Validate(inst); err != nil {
			t.Errorf("%s does not validate: %v", name, err)
		}
		if _, err := Preset(name); err != nil {
			t.Errorf("Preset(%s): %v", name, err)
		}
	}
}

// TestPresetsSay: each preset pays what docs/reward.md says it pays.
func TestPresetsSay(t *testing.T) {
	def, _ := Preset("default")
	if def != schemas.DefaultRewardSpec() {
		t.Errorf("default preset %+v, want the server's default %+v", def, schemas.DefaultRewardSpec())
	}
	bin, _ := Preset("binary")
	if bin.Final.Correct != 1 || bin.Final.RequiresTableRead || bin.Turn.Cap != 0 || sumWeights(bin) != 1 {
		t.Errorf("binary preset %+v: want correct 1 and nothing else", bin)
	}
	rt, _ := Preset("retoolsql")
	f := rt.Final
	if f.Correct != 2 || rt.Turn.FormatOK != 0.2 || f.Executes != 0.5 || !f.ExecutesOnCorrect || f.TableJaccard != 0.5 ||
		f.ColumnJaccard != 0.5 || f.NonEmpty != 0.1 || f.Length != -0.1 || !f.RequiresTableRead {
		t.Errorf("retoolsql preset %+v", rt)
	}
	if got := f.Correct + rt.Turn.FormatOK + f.Executes + f.TableJaccard + f.ColumnJaccard + f.NonEmpty; math.Abs(got-3.8) > 1e-9 {
		t.Errorf("retoolsql pays %v for a perfect answer before the length term, want 3.8", got)
	}
	ar, _ := Preset("arctic-text2sql-r1")
	if ar.Final.Correct != 1 || ar.Final.Executes != 0.1 || ar.Final.ExecutesOnCorrect || !ar.Final.RequiresTableRead ||
		math.Abs(sumWeights(ar)-1.1) > 1e-9 {
		t.Errorf("arctic-text2sql-r1 preset %+v", ar)
	}
}

// sumWeights adds the absolute weights of every component.
func sumWeights(s schemas.RewardSpec) float64 {
	f, t := s.Final, s.Turn
	var sum float64
	for _, w := range []float64{f.Correct, f.Mismatch, f.PredError, f.PredTimeout, f.NoSubmit, f.Executes,
		f.ColumnJaccard, f.TableJaccard, f.NonEmpty, f.Length, f.Efficiency, t.ToolError, t.FormatError, t.Repeat, t.OK, t.FormatOK} {
		sum += max(w, -w)
	}
	return sum
}

func TestLoad(t *testing.T) {
	spec, err := Load("retoolsql")
	if err != nil || spec.Final.Correct != 2 {
		t.Fatalf("Load(retoolsql) = %+v, %v", spec.Final, err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "mine.json")
	if err := os.WriteFile(file, []byte(`{"final":{"correct":3}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if spec, err = Load(file); err != nil || spec.Final.Correct != 3 || spec.Final.NoSubmit != -0.2 {
		t.Errorf("Load(file) = %+v, %v; want correct 3 over the defaults", spec.Final, err)
	}
	_, err = Load("retool")
	if err == nil || !strings.Contains(err.Error(), "nor is it a reward preset: arctic-text2sql-r1, binary, default, retoolsql") {
		t.Errorf("Load(retool) err = %v, want one naming the presets", err)
	}
	if spec, err := Preset("binary"); err != nil || reward.Hash(spec) == reward.Hash(schemas.DefaultRewardSpec()) {
		t.Errorf("binary hashes as the default: %v", err)
	}
}

// TestNamesMatch: a spec file with a "match" key names its match; one
// without it, a preset and no value do not; a file that is not a JSON
// object is an error naming it.
func TestNamesMatch(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct {
		value string
		want  bool
	}{
		{write("match.json", `{"match": "tolerant"}`), true},
		{write("final.json", `{"final": {"correct": 2}}`), false},
		{"retoolsql", false},
		{"", false},
	} {
		if got, err := NamesMatch(tt.value); err != nil || got != tt.want {
			t.Errorf("NamesMatch(%q) = %v, %v; want %v", tt.value, got, err, tt.want)
		}
	}
	bad := write("bad.json", `[1]`)
	if _, err := NamesMatch(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("NamesMatch of a JSON array: %v, want an error naming %s", err, bad)
	}
	if _, err := NamesMatch(filepath.Join(dir, "gone.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("NamesMatch of a missing file: %v, want not exist", err)
	}
}
