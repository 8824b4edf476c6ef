package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blockshuffle/blockshuffle/internal/isa"
)

// TestFakeISA proves that adding an ISA is one entry in internal/isa plus,
// for a new architecture, a back end: a copy of each ISA's entry under
// another name, added to the table here and nowhere else, must generate
// the same kernels, table and declarations, renamed. A generator that
// decided anything by an ISA's name, rather than by the fields of its
// entry, would give the copy other kernels, or none.
func TestFakeISA(t *testing.T) {
	real := append([]isa.ISA{}, isa.All...)
	defer func() { isa.All = real }()
	for _, r := range real {
		if r.Name == "" {
			continue
		}
		fake := r
		fake.Name, fake.TierName = "Fake"+r.Name, "fake"+r.TierName
		isa.All = append(isa.All, fake)
	}
	write := map[string]func(root string, i *isa.ISA, f folds) error{"amd64": writeAMD64, "arm64": writeARM64}
	// The originals, then the copies, each in order and each set folding
	// onto its own: the copies must come out as the originals, renamed.
	roots, renames := [2]string{t.TempDir(), t.TempDir()}, []string{}
	for n, prefix := range []string{"", "Fake"} {
		if err := os.Mkdir(filepath.Join(roots[n], "kernels"), 0o755); err != nil {
			t.Fatal(err)
		}
		f := folds{}
		for _, r := range real {
			if r.Name == "" {
				continue
			}
			if err := write[r.GOARCH](roots[n], isa.Named(prefix+r.Name), f); err != nil {
				t.Fatalf("%s%s: %v", prefix, r.Name, err)
			}
			if prefix != "" {
				renames = append(renames, prefix+r.Name, r.Name, strings.ToLower(prefix+r.Name), strings.ToLower(r.Name))
			}
		}
	}
	files, err := filepath.Glob(filepath.Join(roots[0], "kernels", "*"))
	if err != nil || len(files) < 3*(len(real)-1) {
		t.Fatalf("generated %v, %v", files, err)
	}
	rename := strings.NewReplacer(renames...)
	for _, f := range files {
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		got, err := os.ReadFile(filepath.Join(roots[1], "kernels", "fake"+name))
		if err != nil {
			t.Fatalf("the copies have no %s: %v", "fake"+name, err)
		}
		if rename.Replace(string(got)) != string(want) {
			t.Errorf("the copy's %s differs from the original's beyond its names", name)
		}
	}
}
