package blockshuffle_test

import (
	"flag"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
				for _, id := range exported(f) {
					got = append(got, filepath.ToSlash(path)+": "+id)
					if strings.HasPrefix(id, "alias ") {
						// go doc shows an alias as its target's name, without
						// the target's fields and methods.
						t.Errorf("%s: %s: define the type here, with its documentation", path, id)
					}
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
// T, alias A, field T.F, const C, var V.
func exported(f *ast.File) []string {
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
					if s.Assign.IsValid() {
						out = append(out, "alias "+s.Name.Name)
						continue
					}
					out = append(out, "type "+s.Name.Name)
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

// TestGoDoc checks that go doc, where a user looks, shows every exported
// field and method of the public packages: each "field T.F" and "method
// T.M" of docs/api.txt must appear in go doc -all's text for T.
func TestGoDoc(t *testing.T) {
	if testing.Short() { // qemu-i386, which runs the -short suites, crashes on a fork
		t.Skip("runs the go command")
	}
	inSourceTree(t)
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	api, err := os.ReadFile(filepath.Join("docs", "api.txt"))
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{} // package directory -> go doc -all
	for line := range strings.Lines(string(api)) {
		dir, id, ok := strings.Cut(strings.TrimSpace(line), ": ")
		kind, name, _ := strings.Cut(id, " ")
		typ, member, isMember := strings.Cut(name, ".")
		if !ok || strings.HasPrefix(line, "#") || !isMember {
			continue
		}
		doc, seen := docs[dir]
		if !seen {
			out, err := exec.Command(goTool, "doc", "-all", "./"+dir).CombinedOutput()
			if err != nil {
				t.Skipf("go doc -all ./%s: %v\n%s", dir, err, out)
			}
			doc = string(out)
			docs[dir] = doc
		}
		var found bool
		switch kind {
		case "method":
			found = regexp.MustCompile(`(?m)^func \(\w+ \*?` + typ + `\) ` + member + `\(`).MatchString(doc)
		case "field":
			_, decl, _ := strings.Cut(doc, "\ntype "+typ+" struct {\n")
			decl, _, _ = strings.Cut(decl, "\n}\n")
			found = regexp.MustCompile(`(?m)^\t[\w, ]*\b` + member + `\b[\w, ]* `).MatchString(decl)
		}
		if !found {
			t.Errorf("go doc -all ./%s does not show %s", dir, id)
		}
	}
}

// TestExamplesRun finds every Example function of the repository, the
// adapter modules' included, and fails on one that go test would compile
// but not run: without an Output comment last in its body (a comment
// merged into the one before it does not count).
func TestExamplesRun(t *testing.T) {
	inSourceTree(t)
	found := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && path != "." && strings.HasPrefix(d.Name(), ".") {
			if err == nil {
				err = filepath.SkipDir
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, ex := range doc.Examples(f) {
			found++
			if ex.Output == "" && !ex.EmptyOutput {
				t.Errorf("%s: Example%s has no Output comment, so go test never runs it", path, ex.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 10 {
		t.Errorf("found %d examples: the walk missed the test files", found)
	}
}
