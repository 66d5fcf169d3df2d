package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sqlgym/sqlgym/schemas"
)

// schemasFlags are the flags of sqlgym schemas.
type schemasFlags struct {
	list bool
	out  string
}

// runSchemas prints the JSON Schemas of the wire protocol, which are
// embedded in the binary: one by NAME, their names with --list, or every
// one (or NAME) written into --out DIR for client code generation.
func runSchemas(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("schemas", stderr)
	var f schemasFlags
	fs.BoolVar(&f.list, "list", false, "list the schema names, one a line")
	fs.StringVar(&f.out, "out", "", "write NAME.schema.json files into `DIR` (created when missing): every schema, or NAME's")
	flagArgs, names := splitArgs(fs, args)
	if err := parseFlags(fs, flagArgs); err != nil {
		return err
	}
	switch {
	case len(names) > 1:
		return usageError{fmt.Sprintf("schemas: one NAME at most, got %d", len(names))}
	case f.list && (len(names) > 0 || f.out != ""):
		return usageError{"schemas: --list goes alone"}
	case f.list:
		_, err := fmt.Fprintln(stdout, strings.Join(schemas.JSONSchemaNames(), "\n"))
		return err
	case len(names) == 0 && f.out == "":
		fs.Usage()
		return usageError{"schemas: give a NAME, --list or --out DIR"}
	}
	if len(names) == 0 {
		names = schemas.JSONSchemaNames()
	}
	docs, err := loadSchemas(names)
	if err != nil {
		return err
	}
	if f.out == "" {
		_, err := stdout.Write(docs[0])
		return err
	}
	if err := writeSchemas(f.out, names, docs); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %d schemas to %s\n", len(names), f.out)
	return nil
}

// loadSchemas reads the named schemas; an unknown name is a usage error
// that lists the known ones.
func loadSchemas(names []string) ([][]byte, error) {
	docs := make([][]byte, len(names))
	for i, name := range names {
		b, err := schemas.JSONSchema(name)
		if errors.Is(err, schemas.ErrUnknownSchema) {
			return nil, usageError{"schemas: " + err.Error()}
		}
		if err != nil {
			return nil, err
		}
		docs[i] = b
	}
	return docs, nil
}

// writeSchemas writes docs[i] to dir/names[i].schema.json.
func writeSchemas(dir string, names []string, docs [][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("schemas: %w", err)
	}
	for i, name := range names {
		name = strings.TrimSuffix(name, schemas.JSONSchemaSuffix) + schemas.JSONSchemaSuffix
		if err := os.WriteFile(filepath.Join(dir, name), docs[i], 0o644); err != nil {
			return fmt.Errorf("schemas: %w", err)
		}
	}
	return nil
}

// splitArgs separates flags from positional arguments, which may come in
// any order: a flag that takes a value, given without "=", takes the
// argument after it; everything after "--" is positional.
func splitArgs(fs *flag.FlagSet, args []string) (flags, positional []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return flags, append(positional, args[i+1:]...)
		case a == "-" || !strings.HasPrefix(a, "-"):
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if f := fs.Lookup(name); f != nil && !hasValue && !isBoolFlag(f) && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	return flags, positional
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
