// Command publish writes every released module of a source tree into a
// file GOPROXY, as the module proxy would serve them once tagged: the root
// module and each module under integrations/, at the version of the newest
// release in CHANGELOG.md, which it prints on stdout when done. It first
// checks that every go.mod of the tree requires its sibling modules at
// exactly that version.
//
//	go run . -src DIR -proxy DIR   # in .ci/publish; .ci/release-check runs it
//
// It is its own module so that golang.org/x/mod, which builds the module
// zips, is no requirement of the modules users download.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/zip"
)

func main() {
	src := flag.String("src", ".", "the source tree: a clean export of the commit to publish")
	proxy := flag.String("proxy", "", "the file GOPROXY directory to write")
	flag.Parse()
	if *proxy == "" {
		fail(errors.New("-proxy is required"))
	}
	version, err := releaseVersion(filepath.Join(*src, "CHANGELOG.md"))
	if err != nil {
		fail(err)
	}
	mods, err := modules(*src)
	if err != nil {
		fail(err)
	}
	if err := checkRequirements(mods, version); err != nil {
		fail(err)
	}
	for _, m := range mods {
		if !m.released {
			continue
		}
		if err := write(*proxy, m, version); err != nil {
			fail(fmt.Errorf("%s: %w", m.path, err))
		}
		fmt.Fprintf(os.Stderr, "published %s@%s\n", m.path, version)
	}
	fmt.Println(version)
}

// mod is one go.mod of the tree.
type mod struct {
	dir      string
	path     string
	file     *modfile.File
	released bool // the root module and those under integrations/
}

// modules reads every go.mod of the tree.
func modules(src string) ([]mod, error) {
	var out []mod
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "go.mod" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := modfile.Parse(p, data, nil)
		if err != nil {
			return err
		}
		dir := filepath.Dir(p)
		rel, err := filepath.Rel(src, dir)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		out = append(out, mod{dir: dir, path: f.Module.Mod.Path, file: f,
			released: rel == "." || regexp.MustCompile(`^integrations/[^/]+$`).MatchString(rel)})
		return nil
	})
	return out, err
}

// releaseVersion is the version of the first release heading of a Keep a
// Changelog file, "## [0.1.0] - 2026-11-25", as v0.1.0; an Unreleased
// heading before it is skipped.
func releaseVersion(changelog string) (string, error) {
	data, err := os.ReadFile(changelog)
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`(?m)^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$`).FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("%s has no release heading such as ## [0.1.0] - 2026-11-25", changelog)
	}
	v := "v" + string(m[1])
	if !semver.IsValid(v) {
		return "", fmt.Errorf("%s: %s is not a semantic version", changelog, v)
	}
	return v, nil
}

// checkRequirements fails unless every go.mod requires each released
// module it requires at version.
func checkRequirements(mods []mod, version string) error {
	released := map[string]bool{}
	for _, m := range mods {
		released[m.path] = m.released
	}
	var errs []error
	for _, m := range mods {
		for _, r := range m.file.Require {
			if released[r.Mod.Path] && r.Mod.Version != version {
				errs = append(errs, fmt.Errorf("%s requires %s %s, not %s, the version CHANGELOG.md releases",
					filepath.Join(m.dir, "go.mod"), r.Mod.Path, r.Mod.Version, version))
			}
		}
	}
	return errors.Join(errs...)
}

// write puts one module at version into the proxy directory: its .info,
// .mod and .zip, and its version list.
func write(proxy string, m mod, version string) error {
	escaped, err := module.EscapePath(m.path)
	if err != nil {
		return err
	}
	dir := filepath.Join(proxy, escaped, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mv := module.Version{Path: m.path, Version: version}
	var z bytes.Buffer
	if err := zip.CreateFromDir(&z, mv, m.dir); err != nil {
		return err
	}
	gomod, err := os.ReadFile(filepath.Join(m.dir, "go.mod"))
	if err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		version + ".info": info,
		version + ".mod":  gomod,
		version + ".zip":  z.Bytes(),
		"list":            []byte(version + "\n"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "publish:", strings.TrimSpace(err.Error()))
	os.Exit(1)
}
