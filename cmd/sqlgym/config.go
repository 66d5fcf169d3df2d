package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v4"
)

// configFlag is the flag every command takes: a YAML file of flag values.
const configFlag = "config"

// registerConfig adds --config to fs, unless the command has it already.
func registerConfig(fs *flag.FlagSet) {
	if fs.Lookup(configFlag) == nil {
		fs.String(configFlag, "", "read flag values from this YAML `FILE`: each key a flag name (max-turns: 6), a list for a "+
			"repeatable flag; SQLGYM_* variables and the command line override it")
	}
}

// configPath is the --config of the command line (the last one, as for
// any flag given twice), else SQLGYM_CONFIG.
func configPath(fs *flag.FlagSet, args []string) string {
	path, given := "", false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			break // the flags end here, as for flag.Parse
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if f := fs.Lookup(name); !hasValue && f != nil && !isBoolFlag(f) && i+1 < len(args) {
			i++ // its value is the next argument
			value = args[i]
		}
		if name == configFlag {
			path, given = value, true
		}
	}
	if given {
		return path
	}
	return os.Getenv(envName(configFlag))
}

// applyConfig sets fs's flags from the YAML file at path: a mapping of
// flag names to values, a sequence for a repeatable flag. Every mistake
// is reported, each with the file, line and key.
func applyConfig(fs *flag.FlagSet, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--config: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("--config %s: %w", path, err)
	}
	if len(doc.Content) == 0 {
		return nil // an empty file sets nothing
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return fmt.Errorf("%s:%d: want a mapping of flag names to values (max-turns: 6), not a %s", path, top.Line, kindName(top))
	}
	var errs []error
	seen := map[string]int{}
	for i := 0; i+1 < len(top.Content); i += 2 {
		key, value := top.Content[i], top.Content[i+1]
		if line, dup := seen[key.Value]; dup {
			errs = append(errs, fmt.Errorf("%s:%d: key %q given twice (first on line %d)", path, key.Line, key.Value, line))
			continue
		}
		seen[key.Value] = key.Line
		if err := setFromConfig(fs, key, value); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", path, key.Line, err))
		}
	}
	return errors.Join(errs...)
}

// setFromConfig sets the flag a config key names to its value.
func setFromConfig(fs *flag.FlagSet, key, value *yaml.Node) error {
	f := fs.Lookup(key.Value)
	switch {
	case key.Kind != yaml.ScalarNode:
		return fmt.Errorf("a key must be a flag name, not a %s", kindName(key))
	case f == nil || key.Value == configFlag:
		if near := nearestFlag(fs, key.Value); near != "" && near != configFlag {
			return fmt.Errorf("unknown key %q (no flag --%s); did you mean %s?", key.Value, key.Value, near)
		}
		return fmt.Errorf("unknown key %q (no flag --%s; '%s --help-all' lists them)", key.Value, key.Value, fs.Name())
	case isAlias(f):
		return fmt.Errorf("key %q is a deprecated name: write %s", key.Value, f.Value.(*aliasValue).name)
	}
	_, list := f.Value.(*listFlag)
	switch {
	case value.Kind == yaml.SequenceNode && list:
		for _, item := range value.Content {
			if err := setScalar(fs, f, item); err != nil {
				return err
			}
		}
		return nil
	case value.Kind == yaml.SequenceNode:
		return fmt.Errorf("%s: --%s takes one value, not a list", key.Value, key.Value)
	}
	return setScalar(fs, f, value)
}

// setScalar sets f to the text of a scalar node.
func setScalar(fs *flag.FlagSet, f *flag.Flag, value *yaml.Node) error {
	if value.Kind == yaml.AliasNode {
		value = value.Alias
	}
	if value.Kind != yaml.ScalarNode || value.Tag == "!!null" {
		return fmt.Errorf("%s: want a value (line %d has a %s)", f.Name, value.Line, kindName(value))
	}
	if err := fs.Set(f.Name, value.Value); err != nil {
		typ, _ := flag.UnquoteUsage(f)
		if typ == "" && isBoolFlag(f) {
			typ = "true or false"
		}
		return fmt.Errorf("%s: invalid value %q (want %s): %v", f.Name, value.Value, typ, err)
	}
	return nil
}

// kindName names a YAML node's kind for an error.
func kindName(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.MappingNode:
		return "mapping"
	case n.Kind == yaml.SequenceNode:
		return "list"
	case n.Tag == "!!null":
		return "null (no value)"
	}
	return "value " + n.Value
}
