package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// root is the module root, three folders up from this package.
const root = "../../.."

// codeIndex answers what a document may say of the code: which
// packages there are (by name, or by their folder), and what each
// declares, read from the non-test Go files with go/parser.
type codeIndex struct {
	t      *testing.T
	byName map[string][]string       // package name -> folders, relative to root
	pkgs   map[string]*declaredNames // folder -> what it declares, parsed on first use
}

// declaredNames is what one package declares.
type declaredNames struct {
	top     map[string]bool                // types, functions, constants and variables
	fields  map[string]map[string]ast.Expr // struct type -> field -> its type
	methods map[string]map[string]bool     // receiver type -> its methods
	files   map[string]map[string]bool     // file name -> the functions and methods it declares
}

// newCodeIndex finds every package of the tree but the hidden folders
// and testdata.
func newCodeIndex(t *testing.T) *codeIndex {
	t.Helper()
	x := &codeIndex{t: t, byName: map[string][]string{}, pkgs: map[string]*declaredNames{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		dir, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		dir = filepath.ToSlash(dir)
		if name := f.Name.Name; !slices.Contains(x.byName[name], dir) {
			x.byName[name] = append(x.byName[name], dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(x.byName) < 20 {
		t.Fatalf("found only %d packages under %s", len(x.byName), root)
	}
	return x
}

// folders are the packages a document's name for one stands for: a
// folder of the module when it has a slash (cmd/sqlgym), else every
// package of that name; none when it names no package.
func (x *codeIndex) folders(pkg string) []string {
	if strings.Contains(pkg, "/") {
		if _, err := os.Stat(filepath.Join(root, pkg)); err != nil {
			return nil
		}
		return []string{pkg}
	}
	return x.byName[pkg]
}

// names parses the package in folder dir, once.
func (x *codeIndex) names(dir string) *declaredNames {
	if n, ok := x.pkgs[dir]; ok {
		return n
	}
	n := &declaredNames{top: map[string]bool{}, fields: map[string]map[string]ast.Expr{},
		methods: map[string]map[string]bool{}, files: map[string]map[string]bool{}}
	x.pkgs[dir] = n
	fset := token.NewFileSet()
	paths, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
	if err != nil {
		x.t.Fatal(err)
	}
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			x.t.Fatal(err)
		}
		n.add(filepath.Base(path), f)
	}
	return n
}

// add records what file declares.
func (n *declaredNames) add(file string, f *ast.File) {
	funcs := map[string]bool{}
	n.files[file] = funcs
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			funcs[d.Name.Name] = true
			if d.Recv == nil {
				n.top[d.Name.Name] = true
				continue
			}
			recv := receiverName(d.Recv.List[0].Type)
			funcs[recv+"."+d.Name.Name] = true
			if n.methods[recv] == nil {
				n.methods[recv] = map[string]bool{}
			}
			n.methods[recv][d.Name.Name] = true
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					n.top[s.Name.Name] = true
					if st, ok := s.Type.(*ast.StructType); ok {
						n.fields[s.Name.Name] = structFields(st)
					}
				case *ast.ValueSpec:
					for _, name := range s.Names {
						n.top[name.Name] = true
					}
				}
			}
		}
	}
}

// receiverName is the type a method's receiver names, without its
// pointer or type parameters.
func receiverName(e ast.Expr) string {
	switch r := e.(type) {
	case *ast.StarExpr:
		return receiverName(r.X)
	case *ast.IndexExpr:
		return receiverName(r.X)
	case *ast.IndexListExpr:
		return receiverName(r.X)
	case *ast.Ident:
		return r.Name
	}
	return ""
}

// structFields are a struct's fields by name (an embedded one by its
// type's name).
func structFields(st *ast.StructType) map[string]ast.Expr {
	out := map[string]ast.Expr{}
	for _, f := range st.Fields.List {
		for _, name := range f.Names {
			out[name.Name] = f.Type
		}
		if len(f.Names) == 0 {
			if sel, ok := f.Type.(*ast.SelectorExpr); ok {
				out[sel.Sel.Name] = f.Type
			}
		}
	}
	return out
}

// hasTop reports whether a package pkg declares name at its top level.
func (x *codeIndex) hasTop(pkg, name string) bool {
	for _, dir := range x.folders(pkg) {
		if x.names(dir).top[name] {
			return true
		}
	}
	return false
}

// member is the type of field typ.name of a package pkg (nil for a
// method), and whether the type has such a field or method.
func (x *codeIndex) member(pkg, typ, name string) (ast.Expr, bool) {
	for _, dir := range x.folders(pkg) {
		n := x.names(dir)
		if e, ok := n.fields[typ][name]; ok {
			return e, true
		}
		if n.methods[typ][name] {
			return nil, true
		}
	}
	return nil, false
}

// declaresFunc reports whether the Go file at path (from the module
// root) declares the function or method fn ("name" or "Type.name").
func (x *codeIndex) declaresFunc(path, fn string) bool {
	n := x.names(filepath.ToSlash(filepath.Dir(path)))
	return n.files[filepath.Base(path)][fn]
}

// isMutex reports whether e is sync.Mutex or sync.RWMutex.
func isMutex(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "sync" && (sel.Sel.Name == "Mutex" || sel.Sel.Name == "RWMutex")
}
