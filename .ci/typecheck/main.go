// Command typecheck type-checks every package of the module, with its
// tests, for the GOOS and GOARCH of its environment, from source: the
// standard library too, so that nothing is compiled. It is the per-target
// half of .ci/vet-all: an identifier one platform lacks (syscall.ENOEXEC on
// plan9) is a type error here, and type-checking costs a second or two per
// target where go vet's compiled export data costs fifteen.
//
//	GOOS=plan9 GOARCH=amd64 go run ./.ci/typecheck   # prints nothing unless it fails
//
// Cgo is off: the module has none. External test packages (package x_test)
// are checked against the package with its test files, as go test builds
// them, so that an export_test.go may export to them.
package main

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	// The source importer reads build.Default, which took GOOS and GOARCH
	// from the environment.
	build.Default.CgoEnabled = false
	fset := token.NewFileSet()
	imp := &modImporter{std: importer.ForCompiler(fset, "source", nil).(types.ImporterFrom), fset: fset, done: map[string]*types.Package{}}
	conf := types.Config{Importer: imp, Sizes: types.SizesFor("gc", build.Default.GOARCH)}
	imp.conf = &conf
	if err := imp.modules(); err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	failed := false
	err := filepath.WalkDir(".", func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if dir != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && dir != "." {
			return filepath.SkipDir // another module
		}
		pkg, err := build.Default.ImportDir(dir, 0)
		if _, none := err.(*build.NoGoError); none {
			return nil
		} else if err != nil {
			return err
		}
		var tested *types.Package // the package with its test files
		for i, files := range [][]string{append(pkg.GoFiles, pkg.TestGoFiles...), pkg.XTestGoFiles} {
			if len(files) == 0 {
				continue
			}
			done := imp.done
			if i == 1 && tested != nil {
				abs, err := filepath.Abs(dir)
				if err != nil {
					return err
				}
				// What the external tests import may import the tested
				// package too, which is the one with test files here:
				// keep those packages out of the cache the others share.
				imp.tested, imp.testedDir, imp.done = tested, abs, maps.Clone(done)
			}
			p, err := check(&conf, fset, dir, files)
			imp.tested, imp.done = nil, done
			if err != nil {
				fmt.Printf("%s/%s: %v\n", build.Default.GOOS, build.Default.GOARCH, err)
				failed = true
			}
			tested = p
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
		failed = true
	}
	if failed {
		os.Exit(1)
	}
}

// modImporter imports the standard library with go/importer's source
// importer, and the packages of this module and its requirements itself,
// from the directories go list -m names: go/build would run go list once
// per import instead.
type modImporter struct {
	std  types.ImporterFrom
	fset *token.FileSet
	conf *types.Config
	dirs map[string]string // module path -> directory
	done map[string]*types.Package

	// tested, while an external test package is checked, is the package
	// it tests, with its test files, which lies in testedDir.
	tested    *types.Package
	testedDir string
}

// modules finds the directories of this module and its requirements.
func (i *modImporter) modules() error {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Path}} {{.Dir}}", "all").Output()
	if err != nil {
		return fmt.Errorf("go list -m all: %v", err)
	}
	i.dirs = map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, dir, ok := strings.Cut(line, " "); ok && dir != "" {
			i.dirs[path] = dir
		}
	}
	return nil
}

func (i *modImporter) Import(path string) (*types.Package, error) { return i.ImportFrom(path, "", 0) }

func (i *modImporter) ImportFrom(path, from string, mode types.ImportMode) (*types.Package, error) {
	for mod, dir := range i.dirs {
		if rest, ok := strings.CutPrefix(path, mod); ok && i.tested != nil && filepath.Join(dir, rest) == i.testedDir {
			return i.tested, nil
		}
	}
	if p, ok := i.done[path]; ok {
		return p, nil
	}
	for mod, dir := range i.dirs {
		rest, ok := strings.CutPrefix(path, mod)
		if !ok || rest != "" && rest[0] != '/' {
			continue
		}
		pkg, err := build.Default.ImportDir(filepath.Join(dir, rest), 0)
		if err != nil {
			return nil, err
		}
		var files []*ast.File
		for _, name := range pkg.GoFiles {
			f, err := parser.ParseFile(i.fset, filepath.Join(pkg.Dir, name), nil, 0)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
		p, err := i.conf.Check(path, i.fset, files, nil)
		i.done[path] = p
		return p, err
	}
	return i.std.ImportFrom(path, from, mode)
}

// check parses and type-checks one package's files in dir.
func check(conf *types.Config, fset *token.FileSet, dir string, names []string) (*types.Package, error) {
	var files []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return conf.Check(dir, fset, files, nil)
}
