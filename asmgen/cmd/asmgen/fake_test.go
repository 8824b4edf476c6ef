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
		fake.Name, fake.Tier = "Fake"+r.Name, "fake"+r.Tier
		isa.All = append(isa.All, fake)
	}
	write := map[string]func(root string, i *isa.ISA) error{"amd64": writeAMD64, "arm64": writeARM64}
	for _, r := range real {
		if r.Name == "" {
			continue
		}
		root := t.TempDir()
		if err := os.Mkdir(filepath.Join(root, "kernels"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := write[r.GOARCH](root, isa.Named(r.Name)); err != nil {
			t.Fatal(err)
		}
		if err := write[r.GOARCH](root, isa.Named("Fake"+r.Name)); err != nil {
			t.Fatalf("%s's copy: %v", r.Name, err)
		}
		files, err := filepath.Glob(filepath.Join(root, "kernels", strings.ToLower(r.Name)+"_*"))
		if err != nil || len(files) < 3 {
			t.Fatalf("%s: generated %v, %v", r.Name, files, err)
		}
		for _, f := range files {
			want, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			dir, name := filepath.Split(f)
			got, err := os.ReadFile(filepath.Join(dir, "fake"+name))
			if err != nil {
				t.Fatalf("%s's copy has no %s: %v", r.Name, "fake"+name, err)
			}
			renamed := strings.NewReplacer("Fake"+r.Name, r.Name, "fake"+strings.ToLower(r.Name), strings.ToLower(r.Name)).Replace(string(got))
			if renamed != string(want) {
				t.Errorf("%s: the copy's %s differs from the original's beyond its name", r.Name, name)
			}
		}
	}
}
