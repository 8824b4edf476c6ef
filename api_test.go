package blockshuffle_test

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateAPI = flag.Bool("update-api", false, "rewrite docs/api.txt from the code")

// TestAPI holds every exported identifier of the module's public packages
// to docs/api.txt, so that none is added, or lost, by accident: a change of
// API is a change of that file. go test -run TestAPI -update-api rewrites
// it. Internal packages, commands, tests and other modules (asmgen) are not
// API.
func TestAPI(t *testing.T) {
	inSourceTree(t)
	var got []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if path != "." && (strings.HasPrefix(name, ".") || name == "internal" || name == "testdata" || name == "cmd") {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != "." {
			return filepath.SkipDir // another module
		}
		pkgs, err := parser.ParseDir(token.NewFileSet(), path, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, 0)
		if err != nil {
			return err
		}
		for _, p := range pkgs {
			if p.Name == "main" {
				continue
			}
			for _, f := range p.Files {
				for _, id := range exported(f, true) {
					got = append(got, filepath.ToSlash(path)+": "+id)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	got = slices.Compact(got)
	text := "# The exported API of blockshuffle's public packages; TestAPI keeps it true.\n" + strings.Join(got, "\n") + "\n"
	if *updateAPI {
		if err := os.WriteFile("docs/api.txt", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("docs/api.txt")
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != text {
		wantLines := strings.Split(string(want), "\n")
		for _, l := range got {
			if !slices.Contains(wantLines, l) {
				t.Errorf("new API: %s", l)
			}
		}
		for _, l := range wantLines[1:] {
			if l != "" && !slices.Contains(got, l) {
				t.Errorf("API gone: %s", l)
			}
		}
		t.Error("the exported API differs from docs/api.txt: if that is deliberate, go test -run TestAPI -update-api")
	}
}

// exported lists a file's exported declarations: func F, method T.M, type
// T, field T.F, const C, var V. With follow set, an alias of a type of
// another package of the module (type Params = shape.Params) brings the
// fields and methods of that type, which are the alias's API too.
func exported(f *ast.File, follow bool) []string {
	var out []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv == nil {
				out = append(out, "func "+d.Name.Name)
				continue
			}
			t := d.Recv.List[0].Type
			if s, ok := t.(*ast.StarExpr); ok {
				t = s.X
			}
			if recv := fmt.Sprint(t); ast.IsExported(recv) {
				out = append(out, "method "+recv+"."+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					out = append(out, "type "+s.Name.Name)
					if sel, ok := s.Type.(*ast.SelectorExpr); ok && s.Assign.IsValid() && follow {
						out = append(out, aliased(f, s.Name.Name, sel)...)
					}
					if st, ok := s.Type.(*ast.StructType); ok {
						for _, field := range st.Fields.List {
							for _, n := range field.Names {
								if n.IsExported() {
									out = append(out, "field "+s.Name.Name+"."+n.Name)
								}
							}
						}
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							out = append(out, map[token.Token]string{token.CONST: "const ", token.VAR: "var "}[d.Tok]+n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

// aliased is the API an alias name = pkg.Sel brings: the exported fields
// and methods of Sel, where pkg is a package of this module.
func aliased(f *ast.File, name string, sel *ast.SelectorExpr) []string {
	const module = "github.com/blockshuffle/blockshuffle/"
	for _, imp := range f.Imports {
		path := strings.Trim(imp.Path.Value, `"`)
		if !strings.HasPrefix(path, module) || (imp.Name == nil && filepath.Base(path) != fmt.Sprint(sel.X)) ||
			(imp.Name != nil && imp.Name.Name != fmt.Sprint(sel.X)) {
			continue
		}
		pkgs, err := parser.ParseDir(token.NewFileSet(), strings.TrimPrefix(path, module), func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, 0)
		if err != nil {
			panic(err)
		}
		var out []string
		for _, p := range pkgs {
			for _, file := range p.Files {
				for _, id := range exported(file, false) {
					kind, rest, _ := strings.Cut(id, " ")
					if owner, member, ok := strings.Cut(rest, "."); ok && owner == sel.Sel.Name && (kind == "method" || kind == "field") {
						out = append(out, kind+" "+name+"."+member)
					}
				}
			}
		}
		return out
	}
	return nil
}
