package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/blockshuffle/blockshuffle/asmgen/amd64"
	"github.com/blockshuffle/blockshuffle/asmgen/arm64"
	"github.com/blockshuffle/blockshuffle/asmgen/table"
	"github.com/blockshuffle/blockshuffle/internal/isa"
)

// pixelDir is where imagetensor's kernels go: a package only it imports,
// so that the root package's programs do not link them.
func pixelDir(root string) string { return filepath.Join(root, "imagetensor", "internal", "kernels") }

// writePixels writes the pixel kernels of each set (the assembly and its
// Go declarations), per architecture the Kit methods that call them, and
// the blocks.
func writePixels(root string) error {
	dir := pixelDir(root)
	arches := map[string][]table.PixelSet{}
	var order []string
	for _, set := range table.PixelSets {
		d := isa.Named(string(set.ISA))
		var asm, stubs []byte
		var err error
		switch d.GOARCH {
		case "amd64":
			asm, stubs, err = amd64Pixels(set)
		case "arm64":
			var a, st string
			a, st, err = neonFile(func(g *arm64.Generator) error { return addPixels(g, set) })
			asm, stubs = []byte(a), []byte(st)
		}
		if err != nil {
			return err
		}
		file := filepath.Join(dir, strings.ToLower(d.Name)+"_"+d.GOARCH)
		if err := os.WriteFile(file+".s", asm, 0o644); err != nil {
			return err
		}
		if err := writeGo(file+".go", stubs); err != nil {
			return err
		}
		if arches[d.GOARCH] == nil {
			order = append(order, d.GOARCH)
		}
		arches[d.GOARCH] = append(arches[d.GOARCH], set)
	}
	for _, arch := range order {
		if err := writeKits(filepath.Join(dir, "kits_"+arch+".go"), constraint, arches[arch]); err != nil {
			return err
		}
	}
	other := "!gc || purego || !(" + strings.Join(order, " || ") + ")"
	if err := writeKits(filepath.Join(dir, "kits_other.go"), other, nil); err != nil {
		return err
	}
	return writeBlocks(filepath.Join(dir, "blocks.go"))
}

// amd64Pixels lowers one x86 set of pixel kernels with avo.
func amd64Pixels(set table.PixelSet) (asm, stubs []byte, err error) {
	return avoFile(func(g *amd64.Generator) error { return addPixels(g, set) })
}

// addPixels adds a set's pixel kernels to a back end's file.
func addPixels(g interface {
	Pixel(p table.Pixel, isa table.ISA) error
}, set table.PixelSet) error {
	for _, p := range table.Pixels {
		if set.Has(p.Name) {
			if err := g.Pixel(p, set.ISA); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeKits writes the Kit methods of one architecture's sets: each calls
// the kernel of the set the Kit's tier runs, or of its base's set, directly,
// not through a func value, so that escape analysis sees the kernels'
// noescape pointers and a row buffer on the caller's stack stays there.
// A Kit's id is its tier's index in kitTiers. Without sets, the methods do
// nothing (For gives no Kit).
func writeKits(path, build string, sets []table.PixelSet) error {
	var tiers []table.ISA
	setOf := map[table.ISA]table.PixelSet{}
	for _, s := range sets {
		for _, t := range s.Tiers {
			tiers = append(tiers, t)
			setOf[t] = s
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\n//go:build %s\n\npackage kernels\n\n", cfg.GeneratedWarning(), build)
	b.WriteString("// kitTiers are the ISAs whose tiers have pixel kernels in this build, by Kit id.\nvar kitTiers = []string{")
	for _, t := range tiers {
		fmt.Fprintf(&b, "%q, ", t)
	}
	b.WriteString("}\n")
	for _, p := range table.Pixels {
		fmt.Fprintf(&b, "\nfunc (k *Kit) %s%s {\n", p.Name, p.Params())
		if len(tiers) > 0 {
			// the ids of the tiers that call each set's kernel, in the sets' order
			ids := map[table.ISA][]string{}
			var from []table.ISA
			for id, t := range tiers {
				s := setOf[t]
				if !s.Has(p.Name) {
					base := table.ISA(isa.Named(string(t)).Base)
					if _, ok := setOf[base]; !ok || !setOf[base].Has(p.Name) {
						return fmt.Errorf("%s: tier %s has no pixel kernel %s, nor has its base", path, t, p.Name)
					}
					s = setOf[base]
				}
				if ids[s.ISA] == nil {
					from = append(from, s.ISA)
				}
				ids[s.ISA] = append(ids[s.ISA], fmt.Sprint(id))
			}
			b.WriteString("switch k.id {\n")
			for _, i := range from {
				fmt.Fprintf(&b, "case %s:\n%s%s(%s)\n", strings.Join(ids[i], ", "), p.Name, i, strings.Join(p.Names(), ", "))
			}
			b.WriteString("}\n")
		}
		b.WriteString("}\n")
	}
	return writeGo(path, b.Bytes())
}

// writeBlocks writes each kernel's block: the unit its n counts.
func writeBlocks(path string) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\npackage kernels\n\n", cfg.GeneratedWarning())
	b.WriteString("// Blocks are how many elements each kernel moves a block: its n counts them.\nconst (\n")
	for _, p := range table.Pixels {
		fmt.Fprintf(&b, "%sBlock = %d\n", p.Name, p.Block)
	}
	b.WriteString(")\n")
	return writeGo(path, b.Bytes())
}
