package reward

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/sqlgym/sqlgym/schemas"
)

// Resolve merges a partial spec, given as JSON, over base: keys present in
// override replace base's, objects merge key by key, absent keys keep
// base's values. An empty or null override returns base. Errors name the
// key at fault: "reward.final.corect: unknown key", "reward.turn.cap: want
// a number, got string", "reward.turn.cap: must be >= 0, got -1".
func Resolve(base schemas.RewardSpec, override json.RawMessage) (schemas.RewardSpec, error) {
	trimmed := bytes.TrimSpace(override)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return base, Validate(base)
	}
	tree, err := specTree(base)
	if err != nil {
		return base, err
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var patch any
	if err := dec.Decode(&patch); err != nil {
		return base, fmt.Errorf("reward: %w", err)
	}
	if dec.More() {
		return base, fmt.Errorf("reward: trailing data after the object")
	}
	merged, err := merge("reward", tree, patch)
	if err != nil {
		return base, err
	}
	raw, err := json.Marshal(merged)
	if err != nil {
		return base, fmt.Errorf("reward: %w", err)
	}
	var out schemas.RewardSpec
	strict := json.NewDecoder(bytes.NewReader(raw))
	strict.DisallowUnknownFields()
	if err := strict.Decode(&out); err != nil {
		return base, fmt.Errorf("reward: %w", err)
	}
	return out, Validate(out)
}

// specTree is spec as a generic JSON tree holding every key, those that
// the JSON leaves out when zero too: the tree fixes which keys an
// override may name.
func specTree(spec schemas.RewardSpec) (any, error) {
	return fullTree(reflect.ValueOf(spec)), nil
}

// fullTree is v as encoding/json would write it, with omitempty ignored:
// structs become objects keyed by their JSON names, numbers float64.
func fullTree(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Struct:
		out := map[string]any{}
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			out[name] = fullTree(v.Field(i))
		}
		return out
	case reflect.Float32, reflect.Float64:
		return v.Float()
	case reflect.Int, reflect.Int64, reflect.Int32:
		return float64(v.Int())
	}
	return v.Interface()
}

// hashTree is spec as its JSON says it: fields left out when zero absent.
func hashTree(spec schemas.RewardSpec) (any, error) {
	raw, err := json.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("reward: %w", err)
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, fmt.Errorf("reward: %w", err)
	}
	return tree, nil
}

// merge lays patch over base at path. base fixes the shape: patch may only
// name base's keys, with values of the same JSON type.
func merge(path string, base, patch any) (any, error) {
	switch b := base.(type) {
	case map[string]any:
		return mergeObject(path, b, patch)
	case float64:
		n, ok := patch.(json.Number)
		if !ok {
			return nil, fmt.Errorf("%s: want a number, got %s", path, jsonType(patch))
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%s: number out of range: %s", path, n)
		}
		return f, nil
	case string:
		if _, ok := patch.(string); !ok {
			return nil, fmt.Errorf("%s: want a string, got %s", path, jsonType(patch))
		}
		return patch, nil
	case bool:
		if _, ok := patch.(bool); !ok {
			return nil, fmt.Errorf("%s: want a boolean, got %s", path, jsonType(patch))
		}
		return patch, nil
	}
	return nil, fmt.Errorf("%s: cannot be set", path)
}

// mergeObject merges the keys of patch, in sorted order so that the first
// error is always the same one, over a copy of base.
func mergeObject(path string, base map[string]any, patch any) (any, error) {
	p, ok := patch.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: want an object, got %s", path, jsonType(patch))
	}
	out := make(map[string]any, len(base))
	for k, v := range base {
		out[k] = v
	}
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if _, ok := base[k]; !ok {
			return nil, fmt.Errorf("%s.%s: unknown key", path, k)
		}
		v, err := merge(path+"."+k, base[k], p[k])
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	return out, nil
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

// LoadSpec reads a spec file: JSON, possibly partial, merged over
// schemas.DefaultRewardSpec().
func LoadSpec(path string) (schemas.RewardSpec, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return schemas.RewardSpec{}, fmt.Errorf("load reward spec: %w", err)
	}
	spec, err := Resolve(schemas.DefaultRewardSpec(), raw)
	if err != nil {
		return spec, fmt.Errorf("load reward spec %s: %w", path, err)
	}
	return spec, nil
}

// Hash returns a stable digest of spec: "sha256:" and the first 16 hex
// digits of the SHA-256 of its canonical JSON (keys sorted, no spaces,
// the fields the JSON leaves out when zero left out). Specs equal field
// by field hash alike, however their JSON was spelled, and a spec that
// uses none of the later fields hashes as it did before they existed.
func Hash(spec schemas.RewardSpec) string {
	tree, err := hashTree(spec)
	if err != nil {
		return "sha256:invalid"
	}
	raw, err := json.Marshal(tree) // maps marshal with sorted keys
	if err != nil {
		return "sha256:invalid"
	}
	sum := sha256.Sum256(raw)
	return "sha256:" + hex.EncodeToString(sum[:])[:16]
}
