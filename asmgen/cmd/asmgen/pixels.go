package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mmcloughlin/avo/pass"
	"github.com/mmcloughlin/avo/printer"

	"github.com/blockshuffle/blockshuffle/asmgen/amd64"
	"github.com/blockshuffle/blockshuffle/asmgen/arm64"
	"github.com/blockshuffle/blockshuffle/asmgen/table"
	"github.com/blockshuffle/blockshuffle/internal/isa"
)

// pixelDir is where imagetensor's kernels go: a package only it imports,
// so that the root package's programs do not link them.
func pixelDir(root string) string { return filepath.Join(root, "imagetensor", "internal", "kernels") }

// writePixels writes the pixel kernels of each ISA that has them (the
// assembly and its Go declarations) and, per architecture, the Kit
// methods that call them, and the blocks.
func writePixels(root string) error {
	dir := pixelDir(root)
	arches := map[string][]*isa.ISA{}
	var order []string
	for _, i := range table.PixelISAs {
		d := isa.Named(string(i))
		var asm, stubs []byte
		var err error
		switch d.GOARCH {
		case "amd64":
			asm, stubs, err = amd64Pixels(i)
		case "arm64":
			g := arm64.New()
			for _, p := range table.Pixels {
				if err = g.Pixel(p, i); err != nil {
					return err
				}
			}
			header := cfg.GeneratedWarning()
			asm, stubs = []byte(g.Assembly(header, constraint)), []byte(g.Stubs(header, constraint))
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
		arches[d.GOARCH] = append(arches[d.GOARCH], d)
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

// amd64Pixels lowers one x86 ISA's pixel kernels with avo.
func amd64Pixels(i table.ISA) (asm, stubs []byte, err error) {
	g := amd64.New("gc,!purego")
	for _, p := range table.Pixels {
		if err := g.Pixel(p, i); err != nil {
			return nil, nil, err
		}
	}
	f, err := g.Result()
	if err != nil {
		return nil, nil, err
	}
	if err := pass.Compile.Execute(f); err != nil {
		return nil, nil, err
	}
	if asm, err = printer.NewGoAsm(cfg).Print(f); err != nil {
		return nil, nil, err
	}
	stubs, err = printer.NewStubs(cfg).Print(f)
	return asm, stubs, err
}

// writeKits writes the Kit methods of one architecture's ISAs: each calls
// the kernel of the Kit's ISA directly, not through a func value, so that
// escape analysis sees the kernels' noescape pointers and a row buffer on
// the caller's stack stays there. Without ISAs, the methods do nothing
// (For gives no Kit).
func writeKits(path, build string, isas []*isa.ISA) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "// %s\n\n//go:build %s\n\npackage kernels\n\n", cfg.GeneratedWarning(), build)
	b.WriteString("// kitISAs are the ISAs with pixel kernels in this build, by Kit id.\nvar kitISAs = []string{")
	for _, d := range isas {
		fmt.Fprintf(&b, "%q, ", d.Name)
	}
	b.WriteString("}\n")
	for _, p := range table.Pixels {
		fmt.Fprintf(&b, "\nfunc (k *Kit) %s%s {\n", p.Name, p.Params())
		if len(isas) > 0 {
			b.WriteString("switch k.id {\n")
			for id, d := range isas {
				fmt.Fprintf(&b, "case %d:\n%s%s(%s)\n", id, p.Name, d.Name, strings.Join(p.Names(), ", "))
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
